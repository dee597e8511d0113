// Speed targets per shape, and why a sweep misses one: reports/<gpu>/targets.yaml,
// written by hand next to the sweep it judges. summary.md sets each target
// against the sweep's own figures (the best exact variant's hot median over the
// copy's), so the verdict is computed and only the reason is prose.
//
//   targets:
//     - shape: flux1-1024px-image
//       best_over_copy: 1.05
//     - shape: sana-1024px
//       best_over_copy: 1.45
//       reason_if_missed: "x stays in L2 ..."
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

struct ShapeTarget {
  std::string shape;
  double best_over_copy = 0;     // hot, at most
  std::string reason_if_missed;  // measured, for a target the sweep misses
};

struct Targets {
  std::vector<ShapeTarget> shapes;
};

// Throws exactune::input_error naming `source` and the line of what is wrong.
Targets parse_targets_yaml(std::string_view text, const std::string& source);
Targets load_targets_file(const std::string& path);
// The targets.yaml of a reports folder, or none when it has no such file.
Targets targets_beside(const std::filesystem::path& folder);

}  // namespace exactune
