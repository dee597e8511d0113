// A pairwise cover of a set of variants: a few of them in which every pair of
// axis values that occurs together in some variant of the set occurs together
// in at least one. A CPU suite verifies such a cover where verifying every
// variant would take too long (an interaction between two levers shows in it;
// one between three may not), and leaves the whole space to the GPU sweeps,
// which verify every variant they time.
#pragma once
#include <vector>

#include <exactune/family.hpp>

namespace exactune {

// Greedy and deterministic: the next variant taken is the one, in the given
// order, that covers the most pairs not covered yet. Every value of every axis
// in `variants` is in the cover, and so is every pair of them that some variant
// holds. The variants must name the same axes in the same order.
std::vector<Variant> pairwise_cover(const std::vector<Variant>& variants);

}  // namespace exactune
