#include "runtime/served_kernels.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include <exactune/error.hpp>

#include "compile/compiler.hpp"
#include "compile/nvrtc_compiler.hpp"

namespace exactune {
namespace fs = std::filesystem;

namespace {

std::optional<KernelExport> load_export() {
  if (const char* dir = std::getenv(kExportDirVariable); dir && *dir) {
    if (std::string(dir) == "off") return std::nullopt;
    return read_kernel_export(dir);
  }
  const fs::path beside = export_beside_runtime();
  std::error_code ec;
  if (beside.empty() || !fs::exists(beside / kExportIndexFile, ec)) return std::nullopt;
  return read_kernel_export(beside);
}

// Why `kernel`, the export's entry for `request`'s configuration, cannot
// stand for it; empty when it can, and then `binary` holds its cubin.
std::string refusal(const KernelExport& exported, const ExportedKernel& kernel, const CompileRequest& request,
                    std::shared_ptr<const Binary>& binary) {
  const std::string where = fmt::format("the export in {} (made by `{}`, {})", exported.directory.string(),
                                        exported.generated_by, exported.compiler);
  if (kernel.key != nvrtc_build_key(request)) {
    return fmt::format(
        "{} holds {} for {}, but built from other kernel sources, options or defines than this runtime's "
        "(stale: regenerate it with exactune export)",
        where, request.name, request.target);
  }
  try {
    binary = read_exported_cubin(exported, kernel);
  } catch (const std::exception& e) {
    return fmt::format("{} holds {} for {}, but its cubin is damaged: {}", where, request.name, request.target,
                       e.what());
  }
  return {};
}

}  // namespace

fs::path export_beside_runtime() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&export_beside_runtime), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path holder = fs::weakly_canonical(fs::path(info.dli_fname), ec);
  if (ec) return {};
  return holder.parent_path() / kExportFolderName;
}

const KernelExport* runtime_export() {
  static std::once_flag once;
  static std::optional<KernelExport> exported;
  static std::string failure;
  std::call_once(once, [] {
    try {
      exported = load_export();
    } catch (const std::exception& e) {
      failure = fmt::format("{} (set {}=off to serve without an export)", e.what(), kExportDirVariable);
    }
  });
  if (!failure.empty()) throw input_error(failure);
  return exported ? &*exported : nullptr;
}

ServedKernel served_kernel(const KernelExport* exported, const std::string& family, const std::string& variant,
                           int size, const CompileRequest& request, const CompileCache& cache) {
  ServedKernel served;
  if (exported) {
    if (const ExportedKernel* kernel = exported->find(family, request.target, variant, size)) {
      std::shared_ptr<const Binary> binary;
      served.export_refusal = refusal(*exported, *kernel, request, binary);
      if (served.export_refusal.empty()) {
        served.from_export = true;
        served.kernel.name = request.name;
        served.kernel.target = request.target;
        served.kernel.entry = kernel->entry;
        served.kernel.binary = std::move(binary);
        served.kernel.resources.registers = -1;  // the export does not record them: the runtime needs none
        return served;
      }
    }
  }
  const std::vector<CompileOutcome> outcome = compile_all({request}, cache, CompileOptions{1, {}});
  if (!outcome.front().ok) {
    throw error(fmt::format("{}{} failed to compile:\n{}",
                            served.export_refusal.empty() ? "" : served.export_refusal + "; then ", request.name,
                            outcome.front().log));
  }
  served.kernel = outcome.front().kernel;
  return served;
}

}  // namespace exactune
