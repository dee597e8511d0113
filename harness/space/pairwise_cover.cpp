#include "space/pairwise_cover.hpp"

#include <fmt/format.h>

#include <set>
#include <string>
#include <utility>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// (axis index, value) and (later axis index, value); a lone value is its pair with itself.
using AxisValue = std::pair<std::size_t, std::string>;
using ValuePair = std::pair<AxisValue, AxisValue>;

std::vector<ValuePair> pairs_of(const Variant& v) {
  std::vector<ValuePair> pairs;
  for (std::size_t i = 0; i < v.params.size(); ++i) {
    for (std::size_t j = i; j < v.params.size(); ++j) {
      pairs.push_back({{i, v.params[i].value}, {j, v.params[j].value}});
    }
  }
  return pairs;
}

}  // namespace

std::vector<Variant> pairwise_cover(const std::vector<Variant>& variants) {
  std::vector<std::vector<ValuePair>> pairs;
  std::set<ValuePair> uncovered;
  for (const Variant& v : variants) {
    if (v.params.size() != variants.front().params.size()) {
      throw error(fmt::format("pairwise_cover: variant {} has {} axes, {} has {}", v.name, v.params.size(),
                              variants.front().name, variants.front().params.size()));
    }
    for (std::size_t i = 0; i < v.params.size(); ++i) {
      if (v.params[i].axis != variants.front().params[i].axis) {
        throw error(fmt::format("pairwise_cover: axis {} of variant {} is '{}', of {} '{}'", i, v.name,
                                v.params[i].axis, variants.front().name, variants.front().params[i].axis));
      }
    }
    pairs.push_back(pairs_of(v));
    uncovered.insert(pairs.back().begin(), pairs.back().end());
  }
  std::vector<Variant> cover;
  std::vector<bool> taken(variants.size(), false);
  while (!uncovered.empty()) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t k = 0; k < variants.size(); ++k) {
      if (taken[k]) continue;
      std::size_t gain = 0;
      for (const ValuePair& p : pairs[k]) gain += uncovered.count(p);
      if (gain > best_gain) best = k, best_gain = gain;
    }
    taken[best] = true;
    cover.push_back(variants[best]);
    for (const ValuePair& p : pairs[best]) uncovered.erase(p);
  }
  return cover;
}

}  // namespace exactune
