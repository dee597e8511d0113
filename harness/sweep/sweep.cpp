#include "sweep/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "backends/gpu/device_info.hpp"
#include <exactune/error.hpp>
#include "time/statistics.hpp"

namespace exactune {
namespace {

std::string failure_kind(const VerifyRecord& r) {
  if (r.disposition == Disposition::incorrect) return "incorrect";
  return r.message.rfind("compile failed", 0) == 0 ? "compile" : "runtime";
}

DeviceRecord device_record(const GpuDescription& gpu) {
  return DeviceRecord{gpu.name,         gpu.slug(),          gpu.arch(),          gpu.sm_count,
                      gpu.l2_bytes,     gpu.memory_clock_khz, gpu.memory_bus_bits, gpu.driver_version,
                      gpu.nvrtc_version};
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Times one shape: the copy and the eager chain, then every exact variant.
class ShapeTimer {
 public:
  ShapeTimer(Timer& timer, Workload& workload, const std::string& shape)
      : timer_(timer), workload_(workload), shape_(shape) {}

  void time_baselines(ShapeResult& result) {
    result.copy_hot = timer_.hot(shape_ + "/copy", [&] { workload_.launch_copy(); }).timing;
    result.copy_cold = timer_.cold(shape_ + "/copy", [&] { workload_.launch_copy(); }).timing;
    result.eager_hot = timer_.hot(shape_ + "/eager", [&] { workload_.launch_reference(); }).timing;
    result.eager_cold = timer_.cold(shape_ + "/eager", [&] { workload_.launch_reference(); }).timing;
  }

  // Returns the hot samples, for merging with a later re-timing.
  std::vector<double> time_variant(const LoadedKernel& kernel, const Variant& variant, VariantResult& result,
                                   bool with_cold) {
    const std::string name = shape_ + "/" + variant.name;
    Measurement hot = timer_.hot(name, [&] { workload_.launch_variant(kernel, variant); });
    result.hot = hot.timing;
    if (with_cold) result.cold = timer_.cold(name, [&] { workload_.launch_variant(kernel, variant); }).timing;
    return hot.samples_us;
  }

 private:
  Timer& timer_;
  Workload& workload_;
  std::string shape_;
};

const VariantBuild* find_build(const VerifyStageResult& verified, int size, const std::string& variant) {
  for (const VariantBuild& b : verified.builds) {
    if (b.size == size && b.variant.name == variant) return &b;
  }
  return nullptr;
}

}  // namespace

std::vector<ShapeResult> results_from_verification(const KernelFamily& family, const std::vector<Shape>& shapes,
                                                   const VerifyStageResult& verified) {
  std::map<std::pair<std::string, std::string>, std::vector<const VerifyRecord*>> records;
  for (const VerifyRecord& r : verified.records) records[{r.shape, r.variant}].push_back(&r);
  std::vector<ShapeResult> results;
  for (const Shape& shape : shapes) {
    ShapeResult s;
    s.shape = shape;
    s.bytes_moved = family.bytes_moved(shape);
    for (const VariantBuild& b : verified.builds) {
      if (b.size != shape.size) continue;
      VariantResult v;
      v.variant = b.variant.name;
      v.params = b.variant.params;
      v.registers = b.outcome.kernel.resources.registers;
      v.spill_bytes = b.outcome.kernel.resources.spill_store_bytes + b.outcome.kernel.resources.spill_load_bytes;
      for (const VerifyRecord* r : records[{shape.name, b.variant.name}]) {
        ++v.cases_total;
        if (r->disposition == Disposition::passed) {
          ++v.cases_passed;
        } else if (v.failure_kind.empty()) {
          v.failure_kind = failure_kind(*r);
          v.failure = fmt::format("{}: {}", r->input_case, r->message);
        }
      }
      v.exact = v.cases_total > 0 && v.cases_passed == v.cases_total;
      s.variants.push_back(std::move(v));
    }
    results.push_back(std::move(s));
  }
  return results;
}

SweepResults run_sweep(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes,
                       const CompileCache& cache, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](SweepProgress p) {
    if (options.on_progress) options.on_progress(p);
  };
  SweepResults results;
  results.device = device_record(backend.gpu());
  results.family = family.name();
  results.reference_recipe = family.reference_recipe();
  results.created = utc_now();

  const SupportKernels support = load_support_kernels(family, backend, cache);
  VerifyStageOptions stage;
  stage.variant_glob = options.variant_glob;
  stage.compile.jobs = options.jobs;
  stage.verify.seed = options.seed;
  std::size_t verified_runs = 0;
  stage.verify.on_record = [&](const VerifyRecord& r) {
    progress({"verify", ++verified_runs, 0, fmt::format("{} {}", r.shape, r.variant)});
  };
  const VerifyStageResult verified = run_verify_stage(family, backend, support, shapes, cache, stage);
  results.shapes = results_from_verification(family, shapes, verified);

  Timer timer(backend, options.timer);
  results.timing = timer.method();
  std::size_t to_time = 0, timed = 0;
  for (const ShapeResult& s : results.shapes) {
    to_time += 1 + std::count_if(s.variants.begin(), s.variants.end(), [](const VariantResult& v) { return v.exact; });
  }
  std::map<std::pair<std::string, std::string>, std::vector<double>> hot_samples;
  std::map<std::string, std::unique_ptr<LoadedKernel>> loaded;
  auto kernel_for = [&](const VariantBuild& build) -> const LoadedKernel& {
    auto& k = loaded[build.outcome.kernel.name];
    if (!k) k = backend.load(build.outcome.kernel);
    return *k;
  };

  for (ShapeResult& s : results.shapes) {
    const InputCase timing_case = family.timing_case(s.shape);
    std::unique_ptr<Workload> workload =
        family.make_workload(backend, support, s.shape, timing_case, case_seed(options.seed, s.shape.name, timing_case.name));
    ShapeTimer shape_timer(timer, *workload, s.shape.name);
    shape_timer.time_baselines(s);
    progress({"time", ++timed, to_time, s.shape.name + " copy and eager"});
    for (VariantResult& v : s.variants) {
      if (!v.exact) continue;
      const VariantBuild* build = find_build(verified, s.shape.size, v.variant);
      try {
        hot_samples[{s.shape.name, v.variant}] = shape_timer.time_variant(kernel_for(*build), build->variant, v, true);
      } catch (const std::exception& e) {
        v.failure = fmt::format("timing failed: {}", e.what());
      }
      progress({"time", ++timed, to_time, s.shape.name + " " + v.variant});
    }
  }

  // The fastest few of each shape, timed again in reverse order, their samples
  // merged: a winner must hold up over two separate measurements.
  std::size_t retimed = 0;
  const std::size_t to_retime = results.shapes.size() * options.retime_top;
  for (ShapeResult& s : results.shapes) {
    std::vector<VariantResult*> ranked;
    for (VariantResult& v : s.variants) {
      if (v.hot) ranked.push_back(&v);
    }
    std::sort(ranked.begin(), ranked.end(),
              [](const VariantResult* a, const VariantResult* b) { return a->hot->median_us < b->hot->median_us; });
    ranked.resize(std::min<std::size_t>(ranked.size(), options.retime_top));
    if (ranked.empty()) continue;
    const InputCase timing_case = family.timing_case(s.shape);
    std::unique_ptr<Workload> workload =
        family.make_workload(backend, support, s.shape, timing_case, case_seed(options.seed, s.shape.name, timing_case.name));
    ShapeTimer shape_timer(timer, *workload, s.shape.name);
    for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
      VariantResult& v = **it;
      const VariantBuild* build = find_build(verified, s.shape.size, v.variant);
      VariantResult again = v;
      std::vector<double>& samples = hot_samples[{s.shape.name, v.variant}];
      const std::vector<double> more = shape_timer.time_variant(kernel_for(*build), build->variant, again, false);
      samples.insert(samples.end(), more.begin(), more.end());
      v.hot = timing_from_samples(samples);
      progress({"re-time", ++retimed, to_retime, s.shape.name + " " + v.variant});
    }
  }
  results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return results;
}

}  // namespace exactune
