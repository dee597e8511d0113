#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

#include <exactune/error.hpp>
#include <exactune/family_server.hpp>
#include <exactune/space.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "runtime/plan_table.hpp"
#include "runtime/runtime_tables.hpp"
#include "runtime/served_kernels.hpp"

namespace exactune {
namespace {

// The plans' key: what decides the kernel (the row count only through the
// tuned bucket it falls in).
struct PlanKey {
  int device = 0;
  int size = 0;
  unsigned alignment = 0;
  std::size_t bucket = 0;
  bool operator==(const PlanKey&) const = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept {
    std::size_t h = std::hash<std::size_t>{}(k.bucket);
    for (std::int64_t part : {std::int64_t{k.device}, std::int64_t{k.size}, std::int64_t{k.alignment}}) {
      h = h * 1000003u ^ std::hash<std::int64_t>{}(part);
    }
    return h;
  }
};

// What a size needs before a plan's key can be made: its buckets' bounds on the device.
struct SizeKey {
  int device = 0;
  int size = 0;
  bool operator==(const SizeKey&) const = default;
};

struct SizeKeyHash {
  std::size_t operator()(const SizeKey& k) const noexcept {
    return std::hash<std::int64_t>{}(std::int64_t{k.device} << 32 ^ static_cast<std::uint32_t>(k.size));
  }
};

struct SizeFacts {
  std::vector<std::optional<std::int64_t>> bucket_bounds;
};

// A GPU the runtime has seen: its identity and its primary context, retained
// for the life of the process (the modules loaded in it are never unloaded:
// a serving process keeps its kernels until it exits, and unloading from
// static destructors would race the driver's own teardown).
struct Device {
  DeviceIdentity identity;
  CUcontext context = nullptr;
};

// How many CTAs of one function the GPU holds at once, for a block size,
// asked of the driver: called by a plan's launch on every call, from any
// thread. A variant launches one block size, so the last answer is kept in one
// atomic word and a call takes no lock; another block size asks again.
class ResidentCtasOf {
 public:
  ResidentCtasOf(CUfunction function, unsigned sm_count)
      : last_(std::make_shared<std::atomic<std::uint64_t>>(0)), function_(function), sm_count_(sm_count) {}

  unsigned operator()(unsigned block_threads) const {
    const std::uint64_t last = last_->load(std::memory_order_relaxed);
    if (last != 0 && static_cast<unsigned>(last >> 32) == block_threads) return static_cast<unsigned>(last);
    int per_sm = 0;
    check(cuda_driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function_, static_cast<int>(block_threads),
                                                                    0),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    const unsigned ctas = std::max(1u, static_cast<unsigned>(per_sm) * sm_count_);
    last_->store((std::uint64_t{block_threads} << 32) | ctas, std::memory_order_relaxed);
    return ctas;
  }

 private:
  std::shared_ptr<std::atomic<std::uint64_t>> last_;  // block_threads << 32 | CTAs; 0: none yet
  CUfunction function_;
  unsigned sm_count_;
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
  State(const KernelFamily& f, Geometry g, std::size_t bound)
      : family(f),
        geometry(std::move(g)),
        sizes(bound),
        plans(bound),
        full(fmt::format("the runtime already holds plans for {} problems of {} (a bound on its memory): this one runs "
                         "the framework's chain",
                         bound, f.name())) {}

  struct Entry {
    std::unique_ptr<LaunchPlan> plan;
    std::string why_not;
  };

  const KernelFamily& family;
  Geometry geometry;
  PlanTable<SizeKey, SizeFacts, SizeKeyHash> sizes;
  PlanTable<PlanKey, Entry, PlanKeyHash> plans;
  const std::string full;
  // The devices, compiled variants and modules, shared by the plans: held
  // briefly, never through a compile.
  std::mutex loaded_mutex;
  std::map<int, Device> devices;
  std::map<std::tuple<int, std::string, int>, CUfunction> loaded;  // (device, variant, size)
  // The modules loaded, by (device, binary id): the variants and sizes of one
  // NVRTC batch share its cubin, loaded once per device.
  std::map<std::pair<int, std::string>, CUmodule> modules;

  Device device(int ordinal) {
    std::lock_guard lock(loaded_mutex);
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

  // The variant, from the export or compiled (outside the lock: other problems
  // go on; runtime/served_kernels.hpp), and loaded on the device.
  CUfunction load(const Device& d, int ordinal, const Variant& variant, int size) {
    const auto key = std::make_tuple(ordinal, variant.name, size);
    {
      std::lock_guard lock(loaded_mutex);
      if (auto it = loaded.find(key); it != loaded.end()) return it->second;
    }
    const std::string arch = fmt::format("sm_{}{}", d.identity.cc_major, d.identity.cc_minor);
    CompileRequest request = family.variant_request(variant, size, arch);
    const std::string fault = planted_fault();
    if (!fault.empty()) {
      runtime_log_once(
          fmt::format("EXACTUNE_PLANTED_FAULT={}: every served kernel is compiled wrong on purpose", fault));
      request.defines.push_back("EXACTUNE_PLANTED_FAULT=" + fault);
    }
    static const CompileCache cache{CompileCache::default_directory()};
    // A planted fault is never in the export: its kernels are compiled.
    const KernelExport* exported = fault.empty() ? runtime_export() : nullptr;
    const ServedKernel served = served_kernel(exported, family.name(), variant.name, size, request, cache);
    if (!served.export_refusal.empty()) runtime_log_once(served.export_refusal + "; compiling it with NVRTC");
    if (served.from_export) {
      runtime_log_once(fmt::format("{}: kernels loaded from the export in {}, not compiled", family.name(),
                                   exported->directory.string()));
    }

    std::lock_guard lock(loaded_mutex);
    if (auto it = loaded.find(key); it != loaded.end()) return it->second;  // loaded by another problem meanwhile
    const CudaDriver& driver = cuda_driver();
    check(driver.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
    const Binary& binary = *served.kernel.binary;
    CUmodule& module = modules[{ordinal, binary.id}];
    if (module == nullptr) {
      if (const CUresult r = driver.cuModuleLoadData(&module, binary.bytes.c_str()); r != CUDA_SUCCESS) {
        module = nullptr;
        throw_cuda_error(r, fmt::format("loading {} on {}", request.name, d.identity.describe()));
      }
    }
    CUfunction function = nullptr;
    if (const CUresult r = driver.cuModuleGetFunction(&function, module, served.kernel.entry.c_str());
        r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("finding the entry point of {}", request.name));
    }
    return loaded.emplace(key, function).first->second;
  }

  // The bucket bounds of a size on the device (bucket_bounds); none without a table.
  SizeFacts size_facts(int ordinal, int size) {
    const Device d = device(ordinal);
    const FamilyTable* table = runtime_tables().find(family.name());
    if (!table) return {};
    return {bucket_bounds(resolve_device(*table, d.identity), size)};
  }

  // First sight of a problem: the first candidate of the tables that is valid
  // and verified at this size and that the family accepts for the request's
  // data (choose_candidate); none: not served, logged once.
  Entry resolve(const ServedRequest& request) {
    const Device d = device(request.device);
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
    const CUfunction function = load(d, request.device, *it, request.size);
    RowsLaunch launch = geometry(*it, request.size, ResidentCtasOf(function, d.identity.sm_count));
    const PlannedLaunch first = launch(request.rows);
    if (first.geometry.dynamic_shared_bytes > 0) {
      // Past 48 KiB a kernel must be allowed its dynamic shared memory first;
      // a variant's shared memory depends on its size, not on the rows.
      std::lock_guard lock(loaded_mutex);
      check(cuda_driver().cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(first.geometry.dynamic_shared_bytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    auto plan = std::make_unique<LaunchPlan>(
        LaunchPlan{function, d.context, it->name, std::string(step_name(candidate.step)), std::move(launch)});
    if (candidate.step != CandidateStep::tuned_bucket) {
      runtime_log_once(fmt::format("{} on GPU {}: {} {} served by the {} {}{}", family.name(), request.device,
                                   family.size_parameter(), request.size, plan->step, plan->variant, choice.refusals));
    }
    return {std::move(plan), ""};
  }

  ServeOutcome outcome(const Entry& entry, std::int64_t rows) const {
    if (!entry.plan) return {nullptr, &entry.why_not, {}};
    return {entry.plan.get(), nullptr, entry.plan->launch_for_rows(rows)};
  }

  ServeOutcome not_held() const {
    runtime_log_once(full);
    return {nullptr, &full, {}};
  }
};

FamilyServer::FamilyServer(const KernelFamily& family, Geometry geometry, std::size_t bound)
    : state_(new State(family, std::move(geometry), bound)) {}
FamilyServer::~FamilyServer() = default;

ServeOutcome FamilyServer::serve(const ServedRequest& request, CUstream stream) {
  State& s = *state_;
  const SizeKey size_key{request.device, request.size};
  if (const SizeFacts* facts = s.sizes.find(size_key)) {
    const PlanKey key{request.device, request.size, request.alignment, bucket_of(facts->bucket_bounds, request.rows)};
    if (const State::Entry* entry = s.plans.find(key)) return s.outcome(*entry, request.rows);
  }
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  check(cuda_driver().cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    // Not remembered: outside capture the same request is served.
    static const std::string during_capture =
        "first sight of this problem during CUDA-graph capture (compiling and loading cannot be captured; call it "
        "once outside capture)";
    return {nullptr, &during_capture, {}};
  }
  const SizeFacts* facts = s.sizes.get(size_key, [&] { return s.size_facts(request.device, request.size); });
  if (!facts) return s.not_held();
  const PlanKey key{request.device, request.size, request.alignment, bucket_of(facts->bucket_bounds, request.rows)};
  const State::Entry* entry = s.plans.get(key, [&] { return s.resolve(request); });
  if (!entry) return s.not_held();
  return s.outcome(*entry, request.rows);
}

CUresult FamilyServer::launch(const LaunchPlan& plan, const LaunchGeometry& g, CUstream stream, void** args) {
  const CudaDriver& driver = cuda_driver();
  CUcontext current = nullptr;
  if (const CUresult r = driver.cuCtxGetCurrent(&current); r != CUDA_SUCCESS) return r;
  if (current != plan.context) {
    if (const CUresult r = driver.cuCtxSetCurrent(plan.context); r != CUDA_SUCCESS) return r;
  }
  return driver.cuLaunchKernel(plan.function, g.grid.x, g.grid.y, g.grid.z, g.block.x, g.block.y, g.block.z,
                               g.dynamic_shared_bytes, stream, args, nullptr);
}

}  // namespace exactune
