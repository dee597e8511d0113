// The recorded sweep of heuristics_fixture as a sweep.yaml the strict reader
// takes, for the tests that run the CLI on one (report, gate): its untimed
// exact variants are given the cases they passed, which a file must state.
#pragma once
#include <filesystem>

#include "heuristics_fixture.hpp"
#include "store/sweep_file.hpp"

namespace sweep_file_fixture {

inline exactune::SweepResults readable_sweep() {
  exactune::SweepResults r = heuristics_fixture::recorded_sweep();
  for (exactune::ShapeResult& s : r.shapes) {
    for (exactune::VariantResult& v : s.variants) {
      if (v.exact && v.cases_total == 0) v.cases_passed = v.cases_total = 9;
    }
  }
  return r;
}

// `results` as <root>/reports/nvidia-h200/layer_norm_modulate/sweep.yaml, where a sweep leaves it.
inline std::filesystem::path write_sweep(const std::filesystem::path& root,
                                         const exactune::SweepResults& results = readable_sweep()) {
  const std::filesystem::path folder = root / "reports" / "nvidia-h200" / "layer_norm_modulate";
  std::filesystem::create_directories(folder);
  heuristics_fixture::write_text(folder / "sweep.yaml", exactune::to_sweep_yaml(results));
  return folder / "sweep.yaml";
}

}  // namespace sweep_file_fixture
