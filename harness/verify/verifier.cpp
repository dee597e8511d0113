#include "verify/verifier.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include "compile/compile_cache.hpp"

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

void run_one(Workload& workload, const LoadedKernel& kernel, const VariantBuild& build, Backend& backend,
             const std::vector<std::uint16_t>& expected, VerifyRecord& r) {
  workload.poison_output();
  workload.launch_variant(kernel, build.variant);
  backend.synchronize();
  const std::vector<std::uint16_t> actual = workload.download_output();
  const ComparisonResult cmp = compare_bf16(expected, actual, workload.row_length());
  r.mismatches = cmp.mismatches;
  r.first_mismatch = cmp.first;
  if (cmp.exact()) {
    r.disposition = Disposition::passed;
  } else {
    r.disposition = Disposition::incorrect;
    r.message = fmt::format("{} of {} elements differ; first at {}", cmp.mismatches, expected.size(), describe(*cmp.first));
  }
}

}  // namespace

std::vector<VerifyRecord> verify_variants(const KernelFamily& family, Backend& backend,
                                          const SupportKernels& support, const std::vector<Shape>& shapes,
                                          const std::vector<VariantBuild>& builds, const VerifyOptions& options) {
  std::vector<VerifyRecord> records;
  auto emit = [&](VerifyRecord r) {
    if (options.on_record) options.on_record(r);
    records.push_back(std::move(r));
  };
  KernelLoader loader(backend);
  for (const Shape& shape : shapes) {
    const std::vector<InputCase> cases =
        options.recorded_inputs ? options.recorded_inputs->cases(shape) : family.input_cases(shape);
    for (const InputCase& input_case : cases) {
      std::unique_ptr<Workload> workload;
      std::vector<std::uint16_t> expected;
      std::string setup_failure;
      try {
        workload = options.recorded_inputs
                       ? options.recorded_inputs->workload(backend, support, shape, input_case)
                       : family.make_workload(backend, support, shape, input_case,
                                              case_seed(options.seed, shape.name, input_case.name));
        workload->launch_reference();
        backend.synchronize();
        expected = workload->download_reference_output();
      } catch (const std::exception& e) {
        setup_failure = fmt::format("the reference could not run: {}", e.what());
      }
      for (const VariantBuild& build : builds) {
        if (build.size != shape.size) continue;
        VerifyRecord r = record_for(shape, build, input_case);
        std::string failure;
        if (!build.outcome.ok) {
          r.disposition = Disposition::failed;
          r.message = "compile failed: " + build.outcome.log.substr(0, build.outcome.log.find('\n'));
        } else if (!setup_failure.empty()) {
          r.disposition = Disposition::not_run;
          r.message = setup_failure;
        } else if (const LoadedKernel* kernel = loader.load(build, failure); kernel == nullptr) {
          r.disposition = Disposition::failed;
          r.message = failure;
        } else {
          try {
            run_one(*workload, *kernel, build, backend, expected, r);
          } catch (const std::exception& e) {
            r.disposition = Disposition::failed;
            r.message = e.what();
          }
        }
        emit(std::move(r));
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
