// One kernel to compile: which embedded template, which instantiation, for which
// target. The same request compiles for a GPU architecture (NVRTC) or for the
// host (the CPU execution layer), so both run the very same template source.
#pragma once
#include <string>
#include <vector>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

struct CompileRequest {
  std::string name;                  // for reports, e.g. "w4_r1_peeled_v16_registers@D3072"
  std::string main_file;             // embedded path, e.g. "kernel_templates/copy.cuh"
  std::string name_expression;       // e.g. "&exactune_kernels::copy_bytes"
  std::string target;                // "sm_90", "sm_80", ... or "host"
  std::vector<std::string> defines;  // "NAME=VALUE", e.g. "EXACTUNE_PLANTED_FAULT=1"
};

struct CompileOutcome {
  CompileRequest request;
  bool ok = false;
  std::string log;        // compiler output (errors, or the ptxas report)
  double compile_ms = 0;  // wall time of the compile itself (0 on a cache hit)
  bool cache_hit = false;
  CompiledKernel kernel;  // valid when ok
};

}  // namespace exactune
