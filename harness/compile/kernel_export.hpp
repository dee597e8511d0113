// The kernel export: compiled kernels stored beside the runtime, so that a
// served call loads its kernel instead of compiling it and needs no CUDA
// toolkit (`exactune export` writes one; docs/runtime.md says what it holds).
// This file is the format's one home: its reader, its writer and the check of
// an exported cubin before it is used.
//
// A folder holds the index (kExportIndexFile) and the cubins it names, each
// named by its content hash; kernels compiled in one NVRTC batch share one.
// The index is text: a first line saying it is generated and by what command,
// a line naming the format and the compiler, the columns' names, then one line
// per kernel, tab-separated:
//   key  family  target  variant  size  entry  cubin  bytes  hash
// where key is nvrtc_build_key of the kernel's request (compile/nvrtc_compiler.hpp):
// a request whose key differs (other kernel sources, options, defines) is
// not what the export holds, and goes to NVRTC.
#pragma once
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/compiled_kernel.hpp>

namespace exactune {

inline constexpr const char* kExportIndexFile = "exactune_export.tsv";

struct ExportedKernel {
  std::string key;     // nvrtc_build_key of the request it was built from
  std::string family;  // the family's name
  std::string target;  // "sm_90"
  std::string variant;
  int size = 0;            // the value of the family's size parameter
  std::string entry;       // the kernel's lowered name in its cubin
  std::string cubin;       // the cubin's file name in the folder, "<hash>.cubin"
  std::size_t bytes = 0;   // the cubin's size
  std::string cubin_hash;  // the cubin's content hash (util/content_hash.hpp)
};

struct KernelExport {
  std::filesystem::path directory;
  std::string generated_by;  // the command that wrote it, as its first line says
  std::string compiler;      // e.g. "NVRTC 13.0"
  std::vector<ExportedKernel> kernels;

  // The kernel exported for this configuration, nullptr when none is.
  const ExportedKernel* find(std::string_view family, std::string_view target, std::string_view variant,
                             int size) const;
};

// The index of the export in `directory`. Throws exactune::input_error
// "<index>:<line>: <what is wrong>" when it is missing or malformed.
KernelExport read_kernel_export(const std::filesystem::path& directory);

// The kernel's cubin, read and checked against the index (its size and content
// hash), as a Binary whose id is that hash. Throws exactune::error naming the
// file and the damage when it is missing or not what was exported.
std::shared_ptr<const Binary> read_exported_cubin(const KernelExport& exported, const ExportedKernel& kernel);

// Writes an export into `directory` (created when need be): every cubin of
// `cubins` (by file name, as the kernels name them), then the index, so that
// an index never names a cubin not yet written; cubins of an earlier export
// that the new index does not name are removed. `command` is what the first
// line says generated it. Throws exactune::error when a file cannot be written.
void write_kernel_export(const std::filesystem::path& directory, const std::string& command,
                         const std::string& compiler, const std::vector<ExportedKernel>& kernels,
                         const std::map<std::string, std::string>& cubins);

// The file name an exported cubin is stored under: its content hash, ".cubin".
std::string exported_cubin_name(std::string_view cubin_hash);

}  // namespace exactune
