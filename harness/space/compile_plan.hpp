// Which kernels a run compiles: every valid variant of a family for each size
// and target, optionally narrowed by a glob on the variant name, plus the
// family's support kernels (reference, eager chain, copy) for each target.
#pragma once
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>
#include <exactune/family.hpp>

namespace exactune {

struct CompilePlan {
  std::vector<CompileRequest> variants;
  std::vector<CompileRequest> support;
  std::size_t excluded = 0;  // combinations the family's constraints rule out
};

CompilePlan plan_compiles(const KernelFamily& family, const std::vector<int>& sizes,
                          const std::vector<std::string>& targets, const std::string& variant_glob = "*");

}  // namespace exactune
