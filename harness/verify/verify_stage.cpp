#include "verify/verify_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <iterator>
#include <optional>
#include <set>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "space/compile_plan.hpp"
#include "util/name_glob.hpp"
#include "verify/arriving_builds.hpp"
#include "verify/device_compare.hpp"

namespace exactune {

SupportKernels load_support_kernels(const KernelFamily& family, Backend& backend, const CompileCache& cache,
                                    std::vector<CompileOutcome>* outcomes) {
  std::vector<CompileRequest> requests = family.support_requests(backend.target());
  requests.push_back(compare_bits_request(backend.target()));  // the core's own: the verifier's device compare
  const std::vector<CompileOutcome> compiled = compile_all(requests, cache);
  SupportKernels support;
  for (const CompileOutcome& o : compiled) {
    if (!o.ok)
      throw error(
          fmt::format("the support kernel {} failed to compile for {}:\n{}", o.request.name, o.request.target, o.log));
    support.add(o.request.name, backend.load(o.kernel));
  }
  if (outcomes) *outcomes = compiled;
  return support;
}

VerifyStageResult run_verify_stage(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                   const std::vector<Shape>& shapes, const CompileCache& cache,
                                   const VerifyStageOptions& options) {
  VerifyStageResult result;

  std::set<int> sizes;
  for (const Shape& s : shapes) sizes.insert(s.size);
  std::vector<CompileRequest> requests;
  // Per build, the variant it was made from: what the selection names (a planted copy goes with its original).
  std::vector<std::string> selected_as;
  auto add_build = [&](Variant variant, int size, std::vector<std::string> defines, std::string original) {
    CompileRequest r = family.variant_request(variant, size, backend.target());
    r.defines.insert(r.defines.end(), defines.begin(), defines.end());
    requests.push_back(std::move(r));
    result.builds.push_back(VariantBuild{std::move(variant), size, {}});
    selected_as.push_back(std::move(original));
  };
  const auto selected_at_size = [&](int size, const std::string& variant) {
    return std::any_of(shapes.begin(), shapes.end(),
                       [&](const Shape& s) { return s.size == size && options.selection.selects(s.name, variant); });
  };
  for (int size : sizes) {
    std::optional<Variant> first;
    for (const Candidate& c : enumerate_space(family, size)) {
      if (!name_matches(c.variant.name, options.variant_glob)) continue;
      if (!c.valid()) {
        ++result.excluded;
        continue;
      }
      if (!selected_at_size(size, c.variant.name)) continue;
      if (!first) first = c.variant;
      add_build(c.variant, size, options.variant_defines, c.variant.name);
    }
    for (const std::string& kind : options.planted_crashes) {
      const auto& kinds = planted_crash_kinds();
      const auto found = std::find(kinds.begin(), kinds.end(), kind);
      if (found == kinds.end()) {
        throw input_error(fmt::format("--plant-crash {}: not a kind of crash ({})", kind, fmt::join(kinds, ", ")));
      }
      if (!first) continue;
      Variant planted = *first;
      planted.name += ".planted-" + kind;
      std::vector<std::string> defines = options.variant_defines;
      defines.push_back(fmt::format("EXACTUNE_PLANTED_CRASH={}", found - kinds.begin() + 1));
      add_build(std::move(planted), size, std::move(defines), first->name);
    }
  }
  // The compile runs on a thread of its own, and each build is verified as soon as its own outcome is in: in the
  // order the builds were asked for, the order the compile makes them (size by size).
  ArrivingBuilds arriving(result.builds);
  CompileOptions compile = options.compile;
  compile.on_progress = [&arriving, shown = options.compile.on_progress](const CompileProgress& p) {
    arriving.arrive(p.index, *p.last);
    if (shown) shown(p);
  };
  // After `arriving`, so destroyed first: a verification that throws waits here for the compile to end.
  std::future<void> compiled = std::async(std::launch::async, [&] {
    try {
      compile_all(requests, cache, compile);
    } catch (...) {
      arriving.fail(std::current_exception());
      throw;
    }
  });

  if (options.selection.everything()) {
    VerifyOptions verify = options.verify;
    verify.await_build = [&arriving](std::size_t b) { arriving.await(b); };
    result.records = verify_variants(family, backend, support, shapes, result.builds, verify);
    compiled.get();
    return result;
  }
  compiled.get();
  // Narrowed: each shape runs only its own selected builds (the verifier runs
  // every build of a shape's size), one shape at a time, in the same order.
  for (const Shape& shape : shapes) {
    std::vector<VariantBuild> selected;
    for (std::size_t i = 0; i < result.builds.size(); ++i) {
      if (result.builds[i].size == shape.size && options.selection.selects(shape.name, selected_as[i])) {
        selected.push_back(result.builds[i]);
      }
    }
    if (selected.empty()) continue;
    std::vector<VerifyRecord> records = verify_variants(family, backend, support, {shape}, selected, options.verify);
    std::move(records.begin(), records.end(), std::back_inserter(result.records));
  }
  return result;
}

const std::vector<std::string>& planted_crash_kinds() {
  // In the order of EXACTUNE_PLANTED_CRASH's values (kernel_templates/planted_crash.cuh).
  static const std::vector<std::string> kinds = {"trap", "out-of-bounds", "spin"};
  return kinds;
}

std::size_t count_verify_runs(const KernelFamily& family, const std::vector<Shape>& shapes, const std::string& glob,
                              const Selection& selection) {
  std::size_t runs = 0;
  for (const Shape& shape : shapes) {
    std::size_t variants = 0;
    for (const Candidate& c : enumerate_space(family, shape.size)) {
      variants += c.valid() && name_matches(c.variant.name, glob) && selection.selects(shape.name, c.variant.name);
    }
    runs += variants * family.input_cases(shape).size();
  }
  return runs;
}

Shape first_rows(const KernelFamily& family, const Shape& shape, int rows) {
  if (rows <= 0 || rows > kMaxCpuRows) {
    throw input_error(fmt::format("--rows {}: must be from 1 to {}", rows, kMaxCpuRows));
  }
  return family.with_rows_at_most(shape, rows);
}

}  // namespace exactune
