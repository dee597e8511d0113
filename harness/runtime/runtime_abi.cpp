// The family-independent half of the runtime's C ABI (exactune/runtime.h).
#include <exactune/runtime.h>
#include <fmt/format.h>

#include <cstring>

#include <exactune/family_registry.hpp>
#include <exactune/runtime_entry.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "runtime/runtime_tables.hpp"
#include "runtime/served_kernels.hpp"

namespace exactune {
namespace {
thread_local std::string last_error;
}  // namespace

exactune_status runtime_status(exactune_status status, const std::string& why) {
  last_error = why;
  return status;
}

const char* plan_text(const LaunchPlan* plan) {
  static thread_local std::string text;
  text = plan ? fmt::format("{} ({})", plan->variant, plan->step) : "";
  return text.c_str();
}

exactune_status launch_status(const LaunchPlan& plan, const LaunchGeometry& geometry, CUstream stream, void** params) {
  const CUresult r = FamilyServer::launch(plan, geometry, stream, params);
  if (r == CUDA_SUCCESS) return EXACTUNE_OK;
  return runtime_status(EXACTUNE_ERROR, fmt::format("launching {} failed: {}", plan.variant, describe_cuda_result(r)));
}

}  // namespace exactune

extern "C" {

const char* exactune_status_name(int status) {
  switch (status) {
    case EXACTUNE_OK: return "EXACTUNE_OK";
    case EXACTUNE_NOT_SERVED: return "EXACTUNE_NOT_SERVED";
    case EXACTUNE_INVALID_ARGUMENT: return "EXACTUNE_INVALID_ARGUMENT";
    case EXACTUNE_ERROR: return "EXACTUNE_ERROR";
  }
  return "unknown exactune status";
}

const char* exactune_runtime_last_error(void) { return exactune::last_error.c_str(); }

int exactune_runtime_candidates(const char* family, const char* device_name, int cc_major, int cc_minor, int sm_count,
                                int64_t size, int64_t rows, char* text, size_t capacity) {
  using namespace exactune;
  return runtime_entry("exactune_runtime_candidates", [&] {
    if (!family || !device_name || !text) throw input_error("family, device_name and text must not be NULL");
    if (size < 1 || size > INT32_MAX || rows < 1)
      throw input_error(fmt::format("size {}, rows {}: both must be >= 1", size, rows));
    const FamilyTable* table = runtime_tables().find(family);
    if (!table) return runtime_status(EXACTUNE_NOT_SERVED, fmt::format("no table for family '{}'", family));
    // A size the family's entry would refuse has no candidates either.
    for (const KernelFamily* known : FamilyRegistry::all()) {
      if (known->name() != family) continue;
      if (const std::string problem = known->parameter_problem(known->size_parameter(), static_cast<double>(size));
          !problem.empty()) {
        return runtime_status(EXACTUNE_NOT_SERVED, problem);
      }
    }
    const DeviceResolution resolution =
        resolve_device(*table, DeviceIdentity{device_name, cc_major, cc_minor, sm_count});
    std::string out = fmt::format("device\t{}\n", resolution.describe());
    for (const TableCandidate& c : table_candidates(*table, resolution, static_cast<int>(size), rows)) {
      // The runtime launches only what is proven on this GPU at this size: say which candidates are.
      const bool verified = table->verified_at(c.variant, static_cast<int>(size), resolution.device);
      out += fmt::format("{}\t{}\t{}\n", c.variant, step_name(c.step), verified ? "verified" : "unverified");
    }
    if (out.size() + 1 > capacity) throw input_error(fmt::format("text needs {} bytes", out.size() + 1));
    std::memcpy(text, out.c_str(), out.size() + 1);
    return EXACTUNE_OK;
  });
}

int exactune_runtime_export(char* text, size_t capacity) {
  using namespace exactune;
  return runtime_entry("exactune_runtime_export", [&] {
    if (!text) throw input_error("text must not be NULL");
    const KernelExport* exported = nullptr;
    try {
      exported = runtime_export();
    } catch (const std::exception& e) {
      return runtime_status(EXACTUNE_ERROR, e.what());  // the export named is unreadable: not the caller's argument
    }
    if (!exported) {
      return runtime_status(EXACTUNE_NOT_SERVED,
                            fmt::format("no kernel export: {} is unset and {} holds no {}", kExportDirVariable,
                                        export_beside_runtime().string(), kExportIndexFile));
    }
    const std::string out = fmt::format("{}\t{}\t{}\t{}\n", exported->directory.string(), exported->kernels.size(),
                                        exported->compiler, exported->generated_by);
    if (out.size() + 1 > capacity) throw input_error(fmt::format("text needs {} bytes", out.size() + 1));
    std::memcpy(text, out.c_str(), out.size() + 1);
    return EXACTUNE_OK;
  });
}

}  // extern "C"
