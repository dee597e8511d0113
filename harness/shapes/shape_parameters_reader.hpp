// A shape's parameters as the files that record shapes spell them (a shape
// file, and each shape of a sweep.yaml): one reader for both, so that a value
// refused in one is refused in the other, with the same message and line.
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
void read_shape_parameters(const KernelFamily& family, const strict_yaml::Fields& fields,
                           const strict_yaml::Value& item, Shape& shape);

}  // namespace exactune
