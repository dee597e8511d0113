// A batch of NVRTC requests for the compile tests: the toy family's variants
// (tests/toy_family), kernels of one template file and so one NVRTC program,
// each a template instantiation, so that a program's cubin holds the kernels
// it was asked for and no others. `define`, unused by the template, makes the
// program one no other test compiled: the H200 machine's NVRTC reports ptxas
// figures for a process's first compile of a program only.
#pragma once
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "toy_family/toy_family.hpp"

namespace exactune_test {

// The first `count` valid toy variants at length 64, for sm_90 (4 at most).
inline std::vector<exactune::CompileRequest> toy_batch(std::size_t count, const std::string& define) {
  const exactune::KernelFamily& toy = toy_family();
  const std::vector<exactune::Variant> variants = exactune::valid_variants(toy, 64);
  REQUIRE(variants.size() >= count);
  std::vector<exactune::CompileRequest> batch;
  for (std::size_t i = 0; i < count; ++i) {
    batch.push_back(toy.variant_request(variants[i], 64, "sm_90"));
    batch.back().defines.push_back(define);
  }
  return batch;
}

}  // namespace exactune_test
