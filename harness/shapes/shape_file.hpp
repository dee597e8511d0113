// Shape files: the YAML problem sets of shapes/ (each family's default set is
// shapes/<family>.yaml, embedded at build time) and any a user passes with
// --shapes. The reader is generic over families: the family declares its
// parameters and judges their values; the reader checks the file's structure,
// names, types and presence, and points every error at its file and line.
#pragma once
#include <string>
#include <string_view>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// Parses a YAML shape set of `family`; `source` names it in error messages.
// Throws exactune::input_error "<source>:<line>: <what is wrong>" on any invalid input.
ShapeSet parse_shapes(const KernelFamily& family, std::string_view yaml_text, const std::string& source);
ShapeSet load_shapes_file(const KernelFamily& family, const std::string& path);
// The family's default set, embedded in the binary at build time.
ShapeSet default_shapes(const KernelFamily& family);

}  // namespace exactune
