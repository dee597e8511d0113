// Where the runtime gets the binary of a kernel it serves: from the kernel
// export (compile/kernel_export.hpp) when the export holds that very kernel,
// else from NVRTC through the on-disk compile cache. A served configuration
// the export holds is loaded without NVRTC, so that a runtime installed with
// its export (the wheel's) needs no CUDA toolkit for it.
//
// The export is, in order: the folder $EXACTUNE_EXPORT_DIR names ("off": no
// export; a folder without a readable index is an error, never a silent
// fallback), else exactune_export/ beside the library or program the runtime
// is linked into (the wheel puts it beside exactune/lib/libexactune_runtime.so),
// when it has an index.
#pragma once
#include <filesystem>
#include <string>

#include <exactune/compile_request.hpp>

#include "compile/compile_cache.hpp"
#include "compile/kernel_export.hpp"

namespace exactune {

inline constexpr const char* kExportDirVariable = "EXACTUNE_EXPORT_DIR";
inline constexpr const char* kExportFolderName = "exactune_export";

// The folder beside the library (or program) that holds this code.
std::filesystem::path export_beside_runtime();

// The export the runtime serves from, read once per process; nullptr when there
// is none. Throws exactune::input_error, on every call, when the folder
// $EXACTUNE_EXPORT_DIR names holds no readable index, or when the index beside
// the runtime is malformed.
const KernelExport* runtime_export();

struct ServedKernel {
  CompiledKernel kernel;
  bool from_export = false;
  // Why the export's kernel for this configuration was not used (stale,
  // damaged); empty when it was used or the export holds none.
  std::string export_refusal;
};

// The kernel `request` builds, `variant` of `family` at `size`: the export's
// when `exported` holds one whose key (nvrtc_build_key) is the request's and
// whose cubin is whole; else compiled by NVRTC through `cache`. Throws
// exactune::error with NVRTC's reason (its log, or why it cannot be loaded)
// when it must compile and cannot, preceded by the export's refusal if any.
ServedKernel served_kernel(const KernelExport* exported, const std::string& family, const std::string& variant,
                           int size, const CompileRequest& request, const CompileCache& cache);

}  // namespace exactune
