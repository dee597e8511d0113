#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <exactune/error.hpp>
#include <exactune/family_server.hpp>
#include <exactune/space.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "compile/compiler.hpp"
#include "runtime/runtime_tables.hpp"

namespace exactune {
namespace {

struct RequestHash {
  std::size_t operator()(const ServedRequest& r) const noexcept {
    std::size_t h = std::hash<std::int64_t>{}(r.rows);
    for (std::int64_t part : {std::int64_t{r.device}, std::int64_t{r.size}, std::int64_t{r.alignment}}) {
      h = h * 1000003u ^ std::hash<std::int64_t>{}(part);
    }
    return h;
  }
};

// A GPU the runtime has seen: its identity and its primary context, retained
// for the life of the process (the modules loaded in it are never unloaded:
// a serving process keeps its kernels until it exits, and unloading from
// static destructors would race the driver's own teardown).
struct Device {
  DeviceIdentity identity;
  CUcontext context = nullptr;
};

// A compiled variant loaded on one device, with its occupancy per block size.
struct LoadedVariant {
  CUfunction function = nullptr;
  std::map<unsigned, unsigned> resident_ctas;
};

// Test hook: EXACTUNE_PLANTED_FAULT=N compiles every served variant with
// planted fault N (the faults the verifier's tests use), so that the exactness
// gate above the runtime can be seen to catch a wrong kernel.
std::string planted_fault() {
  const char* fault = std::getenv("EXACTUNE_PLANTED_FAULT");
  return fault && *fault && std::string(fault) != "0" ? fault : "";
}

}  // namespace

void runtime_log_once(const std::string& line) {
  static std::mutex mutex;
  static std::set<std::string> logged;
  const char* setting = std::getenv("EXACTUNE_LOG");
  if (setting && std::string(setting) == "0") return;
  std::lock_guard lock(mutex);
  if (logged.insert(line).second) std::fprintf(stderr, "exactune: %s\n", line.c_str());
}

struct FamilyServer::State {
  const KernelFamily& family;
  Geometry geometry;
  std::shared_mutex mutex;
  struct Entry {
    std::unique_ptr<LaunchPlan> plan;
    std::string why_not;
  };
  std::unordered_map<ServedRequest, Entry, RequestHash> plans;
  std::map<int, Device> devices;
  std::map<std::tuple<int, std::string, int>, LoadedVariant> loaded;  // (device, variant, size)
  // The modules loaded, by (device, binary id): the variants and sizes of one
  // NVRTC batch share its cubin, loaded once per device.
  std::map<std::pair<int, std::string>, CUmodule> modules;

  const Device& device(int ordinal) {
    auto it = devices.find(ordinal);
    if (it != devices.end()) return it->second;
    const CudaDriver& driver = cuda_driver();
    const GpuDescription gpu = describe_gpu(ordinal);
    Device d{{gpu.name, gpu.cc_major, gpu.cc_minor, gpu.sm_count}, nullptr};
    CUdevice handle = 0;
    check(driver.cuDeviceGet(&handle, ordinal), "cuDeviceGet");
    check(driver.cuDevicePrimaryCtxRetain(&d.context, handle), "cuDevicePrimaryCtxRetain");
    return devices.emplace(ordinal, d).first->second;
  }

  LoadedVariant& load(const Device& d, int ordinal, const Variant& variant, int size) {
    const auto key = std::make_tuple(ordinal, variant.name, size);
    if (auto it = loaded.find(key); it != loaded.end()) return it->second;
    const std::string arch = fmt::format("sm_{}{}", d.identity.cc_major, d.identity.cc_minor);
    CompileRequest request = family.variant_request(variant, size, arch);
    if (const std::string fault = planted_fault(); !fault.empty()) {
      runtime_log_once(
          fmt::format("EXACTUNE_PLANTED_FAULT={}: every served kernel is compiled wrong on purpose", fault));
      request.defines.push_back("EXACTUNE_PLANTED_FAULT=" + fault);
    }
    static const CompileCache cache{CompileCache::default_directory()};
    const std::vector<CompileOutcome> outcome = compile_all({request}, cache, CompileOptions{1, {}});
    if (!outcome.front().ok) throw error(fmt::format("{} failed to compile:\n{}", request.name, outcome.front().log));
    const CudaDriver& driver = cuda_driver();
    check(driver.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
    const Binary& binary = *outcome.front().kernel.binary;
    CUmodule& module = modules[{ordinal, binary.id}];
    if (module == nullptr) {
      if (const CUresult r = driver.cuModuleLoadData(&module, binary.bytes.c_str()); r != CUDA_SUCCESS) {
        module = nullptr;
        throw_cuda_error(r, fmt::format("loading {} on {}", request.name, d.identity.describe()));
      }
    }
    LoadedVariant v;
    if (const CUresult r = driver.cuModuleGetFunction(&v.function, module, outcome.front().kernel.entry.c_str());
        r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("finding the entry point of {}", request.name));
    }
    return loaded.emplace(key, std::move(v)).first->second;
  }

  unsigned resident_ctas(LoadedVariant& v, const Device& d, unsigned block_threads) {
    if (auto it = v.resident_ctas.find(block_threads); it != v.resident_ctas.end()) return it->second;
    int per_sm = 0;
    check(cuda_driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.function,
                                                                    static_cast<int>(block_threads), 0),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return v.resident_ctas[block_threads] = std::max(1u, static_cast<unsigned>(per_sm) * d.identity.sm_count);
  }

  // First sight of a request: the first candidate of the tables that is valid
  // and verified at this size and that the family accepts for the request's
  // data (choose_candidate); none: not served, logged once.
  Entry resolve(const ServedRequest& request) {
    const Device& d = device(request.device);
    const FamilyTable* table = runtime_tables().find(family.name());
    if (!table) {
      return {nullptr, fmt::format("{} has no {} table", runtime_tables().source, family.name())};
    }
    const DeviceResolution resolution = resolve_device(*table, d.identity);
    runtime_log_once(fmt::format("{} on GPU {}, {}: {}, from {}", family.name(), request.device, d.identity.describe(),
                                 resolution.describe(), runtime_tables().source));
    const std::vector<Variant> valid = valid_variants(family, request.size);
    const CandidateChoice choice =
        choose_candidate(family, valid, *table, resolution, request.size, request.rows, request.alignment);
    if (!choice.chosen) {
      const std::string why = fmt::format(
          "no variant of the tables was verified at {} {} and can take the data "
          "(run the framework's chain){}",
          family.size_parameter(), request.size, choice.refusals);
      runtime_log_once(fmt::format("{} on GPU {}: {} {}, {}-byte aligned, not served: {}", family.name(),
                                   request.device, family.size_parameter(), request.size, request.alignment, why));
      return {nullptr, why};
    }
    const TableCandidate& candidate = *choice.chosen;
    const auto it =
        std::find_if(valid.begin(), valid.end(), [&](const Variant& v) { return v.name == candidate.variant; });
    LoadedVariant& loaded_variant = load(d, request.device, *it, request.size);
    const ResidentCtas ctas = [&](unsigned threads) { return resident_ctas(loaded_variant, d, threads); };
    const PlannedLaunch planned = geometry(*it, request, ctas);
    if (planned.geometry.dynamic_shared_bytes > 0) {
      // Past 48 KiB a kernel must be allowed its dynamic shared memory first.
      check(cuda_driver().cuFuncSetAttribute(loaded_variant.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(planned.geometry.dynamic_shared_bytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    auto plan = std::make_unique<LaunchPlan>(LaunchPlan{loaded_variant.function, d.context, planned.geometry,
                                                        planned.family_flags, it->name,
                                                        std::string(step_name(candidate.step))});
    if (candidate.step != CandidateStep::tuned_bucket) {
      runtime_log_once(fmt::format("{} on GPU {}: {} {} served by the {} {}{}", family.name(), request.device,
                                   family.size_parameter(), request.size, plan->step, plan->variant, choice.refusals));
    }
    return {std::move(plan), ""};
  }
};

FamilyServer::FamilyServer(const KernelFamily& family, Geometry geometry)
    : state_(new State{family, std::move(geometry), {}, {}, {}, {}, {}}) {}
FamilyServer::~FamilyServer() = default;

ServeOutcome FamilyServer::serve(const ServedRequest& request, CUstream stream) {
  {
    std::shared_lock lock(state_->mutex);
    if (const auto it = state_->plans.find(request); it != state_->plans.end()) {
      return it->second.plan ? ServeOutcome{it->second.plan.get(), nullptr}
                             : ServeOutcome{nullptr, &it->second.why_not};
    }
  }
  std::unique_lock lock(state_->mutex);
  if (const auto it = state_->plans.find(request); it != state_->plans.end()) {
    return it->second.plan ? ServeOutcome{it->second.plan.get(), nullptr} : ServeOutcome{nullptr, &it->second.why_not};
  }
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  check(cuda_driver().cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    // Not remembered: outside capture the same request is served.
    static const std::string during_capture =
        "first sight of this problem during CUDA-graph capture (compiling and loading cannot be captured; call it "
        "once outside capture)";
    return {nullptr, &during_capture};
  }
  State::Entry entry = state_->resolve(request);
  const auto it = state_->plans.emplace(request, std::move(entry)).first;
  return it->second.plan ? ServeOutcome{it->second.plan.get(), nullptr} : ServeOutcome{nullptr, &it->second.why_not};
}

CUresult FamilyServer::launch(const LaunchPlan& plan, CUstream stream, void** args) {
  return launch(plan, plan.geometry.grid, stream, args);
}

CUresult FamilyServer::launch(const LaunchPlan& plan, Dim3 grid, CUstream stream, void** args) {
  const CudaDriver& driver = cuda_driver();
  CUcontext current = nullptr;
  if (const CUresult r = driver.cuCtxGetCurrent(&current); r != CUDA_SUCCESS) return r;
  if (current != plan.context) {
    if (const CUresult r = driver.cuCtxSetCurrent(plan.context); r != CUDA_SUCCESS) return r;
  }
  const LaunchGeometry& g = plan.geometry;
  return driver.cuLaunchKernel(plan.function, grid.x, grid.y, grid.z, g.block.x, g.block.y, g.block.z,
                               g.dynamic_shared_bytes, stream, args, nullptr);
}

}  // namespace exactune
