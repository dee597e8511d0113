// A variant as the files record it (sweep.yaml, heuristics.yaml): its name and
// its params, read against the family's space, so that a file can name only
// what the family can compile. One reader for both files, with one set of messages.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/family.hpp>

#include "util/strict_yaml.hpp"

namespace exactune {

// The params map `params` of variant `variant`: the family's axes, every one
// in the family's order, each with one of its axis's values, together spelling
// the variant's name. Throws exactune::input_error "<source>:<line>: <what>"
// with the params' line.
std::vector<Param> read_variant_params(const KernelFamily& family, const strict_yaml::Value& params,
                                       std::string_view variant);

// Whether `params` are a configuration of the family's space as it is now:
// every axis in order, each with one of its values. A sweep of an older format
// may record variants of an older space, which is not.
bool is_configuration(const KernelFamily& family, const std::vector<Param>& params);

// How many variants the family's space holds: the product of its axes' value counts.
std::uint64_t space_size(const KernelFamily& family);

}  // namespace exactune
