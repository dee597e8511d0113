// How often a fast search strategy chooses as exhaustive search does: two
// report folders of the same shapes swept on the same GPU, one with
// `--strategy exhaustive` and one with a fast strategy (each holding the
// heuristics.yaml and sweep.yaml a sweep writes, or folders holding several
// such, one per family, matched by their path below the root). Per choice of
// exhaustive's heuristics.yaml: both choices, whether they are equal, and if
// not how fast's compares with exhaustive's in exhaustive's own sweep, by the
// chooser's comparison (choose/chooser.hpp compare_choice): the same, worse,
// or ambiguous. ci/speed.sh puts the Markdown into harness_speed.json.
#pragma once
#include <filesystem>
#include <string>

namespace exactune {

struct AgreementCounts {
  int equal = 0;
  int same = 0;  // not equal, but the comparison calls them the same
  int worse = 0;
  int ambiguous = 0;
  int total() const { return equal + same + worse + ambiguous; }
};

struct Agreement {
  std::string markdown;  // a section per family, then the summary line
  AgreementCounts counts;
};

// Throws exactune::input_error naming the folder or file that cannot be read,
// or a family folder of `exhaustive` that `fast` lacks.
Agreement strategy_agreement(const std::filesystem::path& exhaustive, const std::filesystem::path& fast);

}  // namespace exactune
