#include "space/selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "space/compile_plan.hpp"
#include "util/name_glob.hpp"

namespace exactune {

bool Selection::selects_any_of(const std::string& shape) const {
  if (!pairs_) return true;
  const auto first = pairs_->lower_bound({shape, ""});
  return first != pairs_->end() && first->first == shape;
}

std::vector<Shape> Selection::shapes_of(const std::vector<Shape>& shapes) const {
  std::vector<Shape> selected;
  std::copy_if(shapes.begin(), shapes.end(), std::back_inserter(selected),
               [&](const Shape& s) { return selects_any_of(s.name); });
  return selected;
}

std::vector<ShapeVariant> space_pairs(const KernelFamily& family, const std::vector<Shape>& shapes,
                                      const std::string& glob) {
  std::vector<ShapeVariant> pairs;
  for (const Shape& shape : shapes) {
    for (const Candidate& c : enumerate_space(family, shape.size)) {
      if (c.valid() && name_matches(c.variant.name, glob)) pairs.emplace_back(shape.name, c.variant.name);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

Selection shard_of(const std::vector<ShapeVariant>& sorted_pairs, const Shard& shard) {
  std::set<ShapeVariant> mine;
  for (std::size_t k = static_cast<std::size_t>(shard.index - 1); k < sorted_pairs.size(); k += shard.count) {
    mine.insert(sorted_pairs[k]);
  }
  return Selection(std::move(mine));
}

void drop_unselected(std::vector<ShapeResult>& shapes, const Selection& selection) {
  if (selection.everything()) return;
  for (ShapeResult& s : shapes) {
    std::erase_if(s.variants, [&](const VariantResult& v) {
      const std::string original = v.variant.substr(0, v.variant.find(".planted-"));
      return !selection.selects(s.shape.name, original);
    });
  }
  std::erase_if(shapes, [](const ShapeResult& s) { return s.variants.empty(); });
}

Shard parse_shard(const std::string& text) {
  const auto whole = [](std::string_view part, int& out) {
    const auto [stop, status] = std::from_chars(part.data(), part.data() + part.size(), out);
    return !part.empty() && status == std::errc() && stop == part.data() + part.size();
  };
  const std::size_t slash = text.find('/');
  Shard shard;
  const bool parsed = slash != std::string::npos && whole(std::string_view(text).substr(0, slash), shard.index) &&
                      whole(std::string_view(text).substr(slash + 1), shard.count);
  if (!parsed || shard.count < 1 || shard.index < 1 || shard.index > shard.count) {
    throw input_error(
        fmt::format("--shard {}: must be i/n, whole numbers with 1 <= i <= n (e.g. 1/2 and 2/2 are "
                    "the two halves of a sweep)",
                    text));
  }
  if (shard.count > kMaxShards) {
    throw input_error(fmt::format("--shard {}: a sweep is split into at most {} shards", text, kMaxShards));
  }
  return shard;
}

}  // namespace exactune
