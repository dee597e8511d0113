// The CPU execution layer against the GPU, on the same inputs: the reference
// chain run by both. rsqrtf has no exact host equivalent, so the two may differ;
// every difference must trace to a row whose rstd differs, and mean (which no
// approximation touches) must agree bit for bit. Prints the figures.
#include <fmt/format.h>

#include <cstring>
#include <set>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"
#include "shapes/shape_file.hpp"
#include "support/shared_gpu.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

struct ReferenceRun {
  std::vector<std::uint16_t> out, y;
  std::vector<float> mean, rstd;
};

ReferenceRun run_reference(Backend& backend, const SupportKernels& support, const Shape& shape,
                           const ModulateInputs& inputs) {
  LayerNormModulateWorkload w(backend, support, shape, inputs);
  w.launch_reference();
  backend.synchronize();
  return {w.download_reference_output(), w.download_layer_norm_output(), w.download_mean(), w.download_rstd()};
}

}  // namespace

TEST_CASE("CPU-run and GPU-run references differ only in rows whose rstd differs", "[gpu][cpu_vs_gpu]") {
  const KernelFamily& family = layer_norm_modulate_family();
  const CompileCache cache(CompileCache::default_directory());
  CpuBackend cpu;
  const SupportKernels gpu_support = load_support_kernels(family, shared_gpu(), cache);
  const SupportKernels cpu_support = load_support_kernels(family, cpu, cache);
  constexpr int kRows = 64;

  std::int64_t elements = 0, differing_elements = 0, rows = 0, rstd_rows = 0, untraced = 0, mean_rows = 0;
  const ShapeSet defaults = default_shapes(family);
  for (const Shape& full : defaults.shapes) {
    const Shape shape = first_rows(family, full, kRows);
    for (const ModulateCase& c : modulate_cases(ModulateProblem::of(shape).eps)) {
      INFO(shape.name << " " << c.name);
      const ModulateInputs inputs = make_modulate_inputs(shape, c, case_seed(1, shape.name, c.name));
      const ReferenceRun g = run_reference(shared_gpu(), gpu_support, shape, inputs);
      const ReferenceRun h = run_reference(cpu, cpu_support, shape, inputs);
      std::set<std::int64_t> rstd_differs;
      for (std::int64_t r = 0; r < shape.rows(); ++r) {
        if (bits(g.rstd[r]) != bits(h.rstd[r])) rstd_differs.insert(r);
        if (bits(g.mean[r]) != bits(h.mean[r])) ++mean_rows;
      }
      for (std::size_t i = 0; i < g.out.size(); ++i) {
        const auto row = static_cast<std::int64_t>(i / shape.size);
        const bool differs = g.out[i] != h.out[i] || g.y[i] != h.y[i];
        differing_elements += differs;
        untraced += differs && !rstd_differs.count(row);
      }
      elements += static_cast<std::int64_t>(g.out.size());
      rows += shape.rows();
      rstd_rows += static_cast<std::int64_t>(rstd_differs.size());
    }
  }
  fmt::print(
      "cpu_vs_gpu: {} rows, {} elements over {} shapes x {} cases: rstd differs in {} rows; {} elements differ "
      "(output or LayerNorm), {} of them in rows whose rstd agrees; mean differs in {} rows\n",
      rows, elements, defaults.shapes.size(), modulate_cases(1e-6).size(), rstd_rows, differing_elements, untraced,
      mean_rows);
  CHECK(untraced == 0);
  CHECK(mean_rows == 0);
}

}  // namespace exactune
