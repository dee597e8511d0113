// Compiles one request for a GPU architecture with NVRTC, straight to a cubin,
// through the on-disk cache. Works without a GPU or driver.
#pragma once
#include <string>

#include "compile/compile_cache.hpp"
#include <exactune/compile_request.hpp>

namespace exactune {

std::string nvrtc_version();  // e.g. "13.0"

// Never throws for a compile error: the outcome carries ok = false and the log.
CompileOutcome compile_with_nvrtc(const CompileRequest& request, const CompileCache& cache);

}  // namespace exactune
