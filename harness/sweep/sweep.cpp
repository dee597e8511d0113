// run_sweep and the records the verify stage leaves for it (sweep.hpp); the
// run itself, phase by phase, is SweepRun's (sweep_run.hpp).
#include "sweep/sweep.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "sweep/sweep_run.hpp"

namespace exactune {
namespace {

std::string failure_kind(const VerifyRecord& r) {
  if (r.disposition == Disposition::incorrect) return "incorrect";
  if (r.message.rfind("hung:", 0) == 0) return "hung";  // killed at its deadline by the supervisor
  return r.message.rfind("compile failed", 0) == 0 ? "compile" : "runtime";
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
  return SweepRun(family, backend, shapes, cache, options)();
}

}  // namespace exactune
