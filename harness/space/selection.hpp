// Which (shape, variant) pairs a sweep verifies and times: by default every
// valid variant of each shape's size that the --variants glob matches; a
// selection narrows that to a set of pairs. One mechanism serves both ways of
// sweeping part of the space: a shard of a fleet (--shard i/n: a round robin
// over the sorted pairs) and gate mode (--only: what a heuristics table chose,
// gate/gate_selection.hpp). A shape with no selected pair is not swept at all:
// no record, no baselines.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// (shape name, variant name)
using ShapeVariant = std::pair<std::string, std::string>;

class Selection {
 public:
  Selection() = default;  // every pair
  explicit Selection(std::set<ShapeVariant> pairs) : pairs_(std::move(pairs)) {}

  bool everything() const { return !pairs_.has_value(); }
  bool selects(const std::string& shape, const std::string& variant) const {
    return !pairs_ || pairs_->count({shape, variant}) > 0;
  }
  bool selects_any_of(const std::string& shape) const;
  // The shapes with at least one selected pair, in their order.
  std::vector<Shape> shapes_of(const std::vector<Shape>& shapes) const;
  // The selected pairs; nullptr for every pair.
  const std::set<ShapeVariant>* pairs() const { return pairs_ ? &*pairs_ : nullptr; }

 private:
  std::optional<std::set<ShapeVariant>> pairs_;
};

// Every pair a sweep of `shapes` runs: the valid variants of each shape's size
// that `glob` matches, sorted by shape name, then variant name.
std::vector<ShapeVariant> space_pairs(const KernelFamily& family, const std::vector<Shape>& shapes,
                                      const std::string& glob);

// Shard i of n of `sorted_pairs` (space_pairs, or a narrower selection's
// pairs): pair k goes to shard (k mod n) + 1, so that the shards are disjoint,
// cover every pair, and each gets every n-th variant of every shape (about
// the same work, and every shape's baselines in each).
Selection shard_of(const std::vector<ShapeVariant>& sorted_pairs, const Shard& shard);

// Removes the records of unselected pairs (a planted copy goes with the
// variant it copies), and the shapes left without any: what a narrowed sweep
// writes is exactly what it verified.
void drop_unselected(std::vector<ShapeResult>& shapes, const Selection& selection);

// "2/4" -> {2, 4}; throws exactune::input_error "--shard <text>: ..." unless
// it is i/n with whole numbers 1 <= i <= n <= kMaxShards.
Shard parse_shard(const std::string& text);

}  // namespace exactune
