#include "cli/backend_choice.hpp"

#include <fmt/format.h>

#include <exactune/error.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "cli/common_options.hpp"
#include "verify/verify_stage.hpp"

namespace exactune::cli {

void BackendOptions::add_to(CLI::App& command) {
  command.add_flag("--cpu", cpu,
                   "execute the kernel templates on the CPU (no GPU needed; rsqrtf is host-approximated, so this "
                   "proves arithmetic order, not aten's rstd bits)");
  command
      .add_option("--rows", cpu_rows,
                  fmt::format("with --cpu: rows of each shape to run, at most {} (the CPU runs a row thousands of "
                              "times slower than a GPU, and allocates the buffers of every row it runs)",
                              kMaxCpuRows))
      ->check(whole_number_from(1, kMaxCpuRows))
      ->capture_default_str();
}

std::unique_ptr<Backend> BackendOptions::open() const {
  if (cpu) return std::make_unique<CpuBackend>();
  if (const auto reason = why_no_gpu()) {
    throw error(fmt::format("no usable GPU ({}); add --cpu to run the kernel templates on the CPU", *reason));
  }
  return open_gpu_backend(0);
}

std::vector<Shape> BackendOptions::shapes_for(const KernelFamily& family, const ShapeSet& set) const {
  if (!cpu) return set.shapes;
  std::vector<Shape> shapes;
  for (const Shape& s : set.shapes) shapes.push_back(first_rows(family, s, cpu_rows));
  return shapes;
}

std::string BackendOptions::note() const {
  return cpu ? fmt::format(" (CPU: first {} rows of each shape; rstd host-approximated)", cpu_rows) : "";
}

}  // namespace exactune::cli
