#include "verify/verifier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <set>

#include "compile/compile_cache.hpp"
#include "util/content_hash.hpp"
#include "verify/device_compare.hpp"
#include "verify/verify_records.hpp"

namespace exactune {

const char* to_string(Disposition d) {
  switch (d) {
    case Disposition::passed: return "passed";
    case Disposition::incorrect: return "incorrect";
    case Disposition::failed: return "failed";
    case Disposition::not_run: return "not run";
  }
  return "?";
}

std::uint64_t case_seed(std::uint64_t seed, const std::string& shape, const std::string& input_case) {
  return std::stoull(content_hash({fmt::format("{}", seed), shape, input_case}).substr(0, 16), nullptr, 16);
}

namespace {

VerifyRecord record_for(const Shape& shape, const VariantBuild& build, const InputCase& c) {
  VerifyRecord r;
  r.shape = shape.name;
  r.variant = build.variant.name;
  r.input_case = c.name;
  return r;
}

// Loads each variant's kernel once; a load failure is remembered with its message.
class KernelLoader {
 public:
  explicit KernelLoader(Backend& backend) : backend_(backend) {}
  const LoadedKernel* load(const VariantBuild& build, std::string& failure) {
    const std::string key = build.outcome.kernel.name + "/" + build.outcome.kernel.target;
    if (auto it = failures_.find(key); it != failures_.end()) {
      failure = it->second;
      return nullptr;
    }
    if (auto it = loaded_.find(key); it != loaded_.end()) return it->second.get();
    try {
      return (loaded_[key] = backend_.load(build.outcome.kernel)).get();
    } catch (const std::exception& e) {
      failure = failures_[key] = fmt::format("load failed: {}", e.what());
      return nullptr;
    }
  }

 private:
  Backend& backend_;
  std::map<std::string, std::unique_ptr<LoadedKernel>> loaded_;
  std::map<std::string, std::string> failures_;
};

// The reference's output is on the device already; the variant's is compared
// there, and only the comparison's summary comes back.
void run_one(Workload& workload, const LoadedKernel& kernel, const VariantBuild& build, Backend& backend,
             DeviceComparer& comparer, VerifyRecord& r) {
  workload.poison_output();
  workload.launch_variant(kernel, build.variant);
  // The variant's own wait: a fault it causes surfaces here, in its step, and
  // is reported after its kernel rather than after the compare kernel's.
  backend.synchronize();
  const std::vector<OutputRegion> regions = workload.output_regions();
  const ComparisonResult cmp = comparer.compare(regions, workload.row_length());
  r.mismatches = cmp.mismatches;
  r.first_mismatch = cmp.first;
  if (cmp.exact()) {
    r.disposition = Disposition::passed;
  } else {
    r.disposition = Disposition::incorrect;
    r.message = fmt::format("{} of {} elements differ; first at {}", cmp.mismatches, total_elements(regions),
                            describe(*cmp.first));
  }
}

// A run's record from the journal: the record its worker kept, or the crash the
// supervisor saw in it ("hung: ...", "failed: the worker died of ...").
VerifyRecord record_from(const StepOutcome& outcome, const Shape& shape, const VariantBuild& build,
                         const InputCase& c) {
  VerifyRecord r = record_for(shape, build, c);
  if (outcome.crashed()) {
    r.disposition = Disposition::failed;
    r.message = outcome.crash_description();
    return r;
  }
  read_run_record(outcome.record, r);  // checked when the journal was read
  return r;
}

}  // namespace

std::vector<VerifyRecord> verify_variants(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                          const std::vector<Shape>& shapes, const std::vector<VariantBuild>& builds,
                                          const VerifyOptions& options) {
  std::vector<VerifyRecord> records;
  Steps* const steps = options.steps;
  auto emit = [&](VerifyRecord r) {
    if (options.on_record) options.on_record(r);
    records.push_back(std::move(r));
  };
  // A run's record: journaled when supervised, and a failure may have cost the device.
  auto keep = [&](const std::string& step, VerifyRecord r) {
    if (steps) steps->finish(step, run_record_json(r));
    const bool failed = r.disposition == Disposition::failed;
    emit(std::move(r));
    if (steps && failed) steps->after_failure();
  };
  KernelLoader loader(backend);
  DeviceComparer comparer(backend, support.get(kCompareBitsKernel));
  // A variant that failed to run in one case (a launch error, a fault, a crash
  // or a hang) is not run in the others: each would cost a fresh worker, or a
  // deadline. Its records say where it failed.
  std::map<std::pair<std::string, std::string>, std::string> crashed_in;  // (shape, variant) -> why
  auto remember_crash = [&](const VerifyRecord& r) {
    const bool failed_to_run = r.disposition == Disposition::failed && r.message.rfind("compile failed", 0) != 0 &&
                               r.message.rfind("load failed", 0) != 0;
    if (failed_to_run) {
      crashed_in.emplace(
          std::make_pair(r.shape, r.variant),
          fmt::format("not run: it {} in case {}", r.message.rfind("hung", 0) == 0 ? "hung" : "failed", r.input_case));
    }
  };
  for (const Shape& shape : shapes) {
    const std::vector<InputCase> cases =
        options.recorded_inputs ? options.recorded_inputs->cases(shape) : family.input_cases(shape);
    const double bytes = static_cast<double>(family.bytes_moved(shape));
    auto setup_step_of = [&](const InputCase& c) { return verify_setup_step(shape.name, c.name); };
    auto runs_left = [&](const InputCase& c) {
      return !steps || std::any_of(builds.begin(), builds.end(), [&](const VariantBuild& b) {
        return b.size == shape.size && steps->recorded(verify_run_step(shape.name, c.name, b.variant.name)) == nullptr;
      });
    };
    // The workloads of every case with runs left, made at once on threads of
    // their own: making one is mostly the family's host-side input generation,
    // a sequential random stream per (shape, case) that one core makes far
    // slower than the device verifies. Each is taken, and what it threw
    // rethrown, inside its case's own step. Recorded inputs are made in turn.
    std::map<std::string, std::future<std::unique_ptr<Workload>>> made;
    if (!options.recorded_inputs) {
      for (const InputCase& c : cases) {
        if (!runs_left(c) || (steps && steps->recorded(setup_step_of(c)))) continue;
        const std::uint64_t seed = case_seed(options.seed, shape.name, c.name);
        made[c.name] = std::async(std::launch::async, [&family, &backend, &support, &shape, c, seed] {
          return family.make_workload(backend, support, shape, c, seed);
        });
      }
    }
    for (const InputCase& input_case : cases) {
      const std::string setup_step = setup_step_of(input_case);
      auto run_step = [&](const VariantBuild& build) {
        return verify_run_step(shape.name, input_case.name, build.variant.name);
      };
      const bool any_left = runs_left(input_case);
      std::unique_ptr<Workload> workload;
      std::string setup_failure;
      if (const StepOutcome* earlier = steps ? steps->recorded(setup_step) : nullptr; earlier && any_left) {
        setup_failure =
            fmt::format("the reference could not run: {}",
                        earlier->crashed() ? earlier->crash_description() : read_failure_record(earlier->record));
      } else if (any_left) {
        // The inputs are made on the host first, outside the step: the
        // deadline is the device's (a multiple of the bytes' roofline), and
        // a shape of many rows can take a billion host draws.
        std::exception_ptr not_made;
        try {
          workload = options.recorded_inputs ? options.recorded_inputs->workload(backend, support, shape, input_case)
                                             : made.at(input_case.name).get();
        } catch (...) {
          not_made = std::current_exception();
        }
        // The reference chain: a few launches over the shape's bytes. Its
        // output stays on the device for every variant's comparison.
        if (steps) steps->begin(setup_step, options.deadlines.for_bytes(8 * bytes));
        try {
          if (not_made) std::rethrow_exception(not_made);
          workload->launch_reference();
          backend.synchronize();
          if (steps) steps->end(setup_step);
        } catch (const std::exception& e) {
          setup_failure = fmt::format("the reference could not run: {}", e.what());
          if (steps) {
            steps->finish(setup_step, failure_record_json(e.what()));
            steps->after_failure();
          }
        }
      }
      for (std::size_t b = 0; b < builds.size(); ++b) {
        const VariantBuild& build = builds[b];
        if (build.size != shape.size) continue;
        if (options.await_build) options.await_build(b);
        const std::string step = run_step(build);
        if (const StepOutcome* earlier = steps ? steps->recorded(step) : nullptr) {
          VerifyRecord r = record_from(*earlier, shape, build, input_case);
          remember_crash(r);
          emit(std::move(r));
          continue;
        }
        VerifyRecord r = record_for(shape, build, input_case);
        std::string failure;
        if (const auto crashed = crashed_in.find({shape.name, build.variant.name}); crashed != crashed_in.end()) {
          r.disposition = Disposition::not_run;
          r.message = crashed->second;
        } else if (!build.outcome.ok) {
          r.disposition = Disposition::failed;
          r.message = "compile failed: " + build.outcome.log.substr(0, build.outcome.log.find('\n'));
        } else if (!setup_failure.empty()) {
          r.disposition = Disposition::not_run;
          r.message = setup_failure;
        } else if (const LoadedKernel* kernel = loader.load(build, failure); kernel == nullptr) {
          r.disposition = Disposition::failed;
          r.message = failure;
        } else {
          if (steps) steps->begin(step, options.deadlines.for_bytes(bytes));
          try {
            run_one(*workload, *kernel, build, backend, comparer, r);
          } catch (const std::exception& e) {
            r.disposition = Disposition::failed;
            r.message = e.what();
          }
        }
        remember_crash(r);
        keep(step, std::move(r));
      }
    }
  }
  return records;
}

VerifySummary summarize(const std::vector<VerifyRecord>& records) {
  VerifySummary s;
  std::map<std::string, bool> exact;  // "shape/variant" -> all passed
  for (const VerifyRecord& r : records) {
    ++s.records;
    switch (r.disposition) {
      case Disposition::passed: ++s.passed; break;
      case Disposition::incorrect: ++s.incorrect; break;
      case Disposition::failed: ++s.failed; break;
      case Disposition::not_run: ++s.not_run; break;
    }
    auto [it, fresh] = exact.emplace(r.shape + "/" + r.variant, true);
    it->second = it->second && r.disposition == Disposition::passed;
  }
  s.shape_variants = exact.size();
  for (const auto& [key, ok] : exact) s.exact_shape_variants += ok ? 1 : 0;
  return s;
}

}  // namespace exactune
