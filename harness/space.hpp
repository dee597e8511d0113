// The variant space: every combination of a family's axes at one hidden size,
// each either valid or excluded with the family's reason.
#pragma once
#include <string>
#include <vector>

#include "family.hpp"

namespace exactune {

struct Candidate {
  Variant variant;
  std::string excluded_because;  // empty: valid

  bool valid() const { return excluded_because.empty(); }
};

// In the order of the axes' values (first axis slowest); names are unique.
std::vector<Candidate> enumerate_space(const KernelFamily& family, int hidden);
std::vector<Variant> valid_variants(const KernelFamily& family, int hidden);

}  // namespace exactune
