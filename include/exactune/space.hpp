// The variant space: every combination of a family's axes at one size (the family's size parameter),
// each either valid or excluded with the family's reason.
#pragma once
#include <string>
#include <vector>

#include <exactune/family.hpp>

namespace exactune {

struct Candidate {
  Variant variant;
  std::string excluded_because;  // empty: valid

  bool valid() const { return excluded_because.empty(); }
};

// In the order of the axes' values (first axis slowest); names are unique.
std::vector<Candidate> enumerate_space(const KernelFamily& family, int size);
std::vector<Variant> valid_variants(const KernelFamily& family, int size);

}  // namespace exactune
