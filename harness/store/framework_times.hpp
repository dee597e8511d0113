// The framework's own eager time per shape, measured beside a sweep: what the
// torch ops' benchmark (python/tools/runtime_bench.py) records in
// reports/<gpu>/runtime.json on the same GPU. summary.md sets it beside the
// reference chain, which is exactune's replica of the framework's kernels and
// not the framework itself: speedups are claimed against the framework.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace exactune {

struct FrameworkTimes {
  std::string source;                      // e.g. "runtime.json (torch 2.11.0+cu130)"; empty when there is none
  std::map<std::string, double> eager_us;  // per shape name: the framework's chain under CUDA-graph replay

  std::optional<double> eager(const std::string& shape) const;
};

// The figures of `family` in <sweep folder>/../runtime.json, or none when that
// file does not exist. Throws exactune::input_error naming the file when it is
// not what runtime_bench.py writes.
FrameworkTimes framework_times_beside(const std::filesystem::path& sweep_folder, const std::string& family);

}  // namespace exactune
