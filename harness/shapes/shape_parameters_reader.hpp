// A shape's name and parameters as the files that record shapes spell them (a
// shape file, and each shape of a sweep.yaml; the name also where a
// heuristics.yaml or targets.yaml refers to a shape): one reader for all, so
// that a value refused in one is refused in the others, with the same message
// and line.
#pragma once
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "util/strict_yaml.hpp"

namespace exactune {

// Reads the family's parameters from a shape's fields (a missing one takes its
// default; one without a default fails, naming the key), each a whole number
// that fits in an int or a finite real as the family declares it, and judged
// by the family; then completes the shape (its size and rows), failing on the
// shape's line (`item`) when the family refuses the combination.
// The shape's name: a string that keeps the rule of names (shape_name_problem:
// it names report files), refused on its line when it breaks it.
std::string read_shape_name(const strict_yaml::Value& value);

void read_shape_parameters(const KernelFamily& family, const strict_yaml::Fields& fields,
                           const strict_yaml::Value& item, Shape& shape);

}  // namespace exactune
