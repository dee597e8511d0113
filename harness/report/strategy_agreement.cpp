#include "report/strategy_agreement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <vector>

#include <exactune/error.hpp>

#include "choose/chooser.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"

namespace exactune {
namespace {

namespace fs = std::filesystem;

// The folders under `root` (itself included) holding a heuristics.yaml, by their path relative to it.
std::map<std::string, fs::path> report_folders(const fs::path& root) {
  std::map<std::string, fs::path> found;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw input_error(fmt::format("{}: not a folder of reports", root.string()));
  if (fs::exists(root / "heuristics.yaml", ec)) found["."] = root;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().filename() == "heuristics.yaml") {
      const fs::path folder = it->path().parent_path();
      found[fs::relative(folder, root).lexically_normal().string()] = folder;
    }
  }
  if (found.empty()) throw input_error(fmt::format("{}: no heuristics.yaml in it or below it", root.string()));
  return found;
}

int fully_timed(const SweepResults& sweep) {
  int n = 0;
  for (const ShapeResult& s : sweep.shapes) {
    for (const VariantResult& v : s.variants) {
      n += v.exact && (v.rotated || v.l2_resident || v.cold);
    }
  }
  return n;
}

std::string described(const fs::path& folder, const SweepResults& sweep) {
  return fmt::format("`{}` ({}, wall {:.0f} s, {} variants timed fully)", folder.string(),
                     sweep.strategy.empty() ? "exhaustive (not recorded)" : sweep.strategy, sweep.wall_s,
                     fully_timed(sweep));
}

// One family's section, adding its verdicts to `counts`.
std::string compare_family(const fs::path& exhaustive_dir, const fs::path& fast_dir, AgreementCounts& counts) {
  const Heuristics exh_h = load_heuristics_file((exhaustive_dir / "heuristics.yaml").string());
  const Heuristics fast_h = load_heuristics_file((fast_dir / "heuristics.yaml").string());
  const SweepResults exh_sweep = read_sweep_file(exhaustive_dir / "sweep.yaml");
  const SweepResults fast_sweep = read_sweep_file(fast_dir / "sweep.yaml");
  ChooserOptions options;
  options.policy = exh_h.policy;
  std::string out =
      fmt::format("## {} on {}, policy {}\n\nexhaustive: {}; fast: {}\n\n", exh_h.family, exh_h.device.name,
                  policy_name(exh_h.policy), described(exhaustive_dir, exh_sweep), described(fast_dir, fast_sweep));
  out += "| shape | exhaustive's choice | fast's choice | equal | verdict |\n|---|---|---|---|---|\n";
  std::map<std::string, std::string> fast_choices;
  for (const Choice& c : fast_h.device.choices) fast_choices.emplace(c.shape, c.chosen.variant);
  for (const Choice& choice : exh_h.device.choices) {
    const std::string& mine = choice.chosen.variant;
    const auto theirs_it = fast_choices.find(choice.shape);
    const std::string theirs = theirs_it == fast_choices.end() ? "" : theirs_it->second;
    std::string verdict;
    if (theirs == mine) {
      verdict = "equal";
      ++counts.equal;
    } else if (theirs.empty()) {
      verdict = "no choice for this shape in the fast sweep";
      ++counts.worse;
    } else {
      const ShapeResult* shape = exh_sweep.find(choice.shape);
      const std::optional<ChoiceGap> gap =
          shape == nullptr ? std::nullopt : compare_choice(*shape, mine, theirs, options);
      if (!gap) {
        verdict = "fast's choice not timed in the exhaustive sweep";
        ++counts.worse;
      } else if (gap->from_samples) {
        const std::string words = gap->verdict == Verdict::same     ? "the same by the comparison"
                                  : gap->verdict == Verdict::slower ? "worse by the comparison"
                                                                    : "ambiguous by the comparison";
        verdict = fmt::format("{} ({})", words, gap->interval);
        (gap->verdict == Verdict::same     ? counts.same
         : gap->verdict == Verdict::slower ? counts.worse
                                           : counts.ambiguous)++;
      } else if (gap->verdict == Verdict::same) {
        verdict = fmt::format("within noise ({:+.1f}%, noise {:.1f}%)", gap->slower * 100, gap->noise * 100);
        ++counts.same;
      } else {
        verdict = fmt::format("worse by {:.1f}% (noise {:.1f}%)", gap->slower * 100, gap->noise * 100);
        ++counts.worse;
      }
    }
    out += fmt::format("| {} | {} | {} | {} | {} |\n", choice.shape, mine, theirs.empty() ? "—" : theirs,
                       theirs == mine ? "yes" : "no", verdict);
  }
  return out;
}

}  // namespace

Agreement strategy_agreement(const fs::path& exhaustive, const fs::path& fast) {
  const std::map<std::string, fs::path> exh = report_folders(exhaustive), quick = report_folders(fast);
  std::vector<std::string> missing;
  for (const auto& [key, folder] : exh) {
    if (!quick.contains(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    throw input_error(
        fmt::format("{}: no report folder {} as in {}", fast.string(), fmt::join(missing, ", "), exhaustive.string()));
  }
  Agreement agreement;
  agreement.markdown = "# Search strategies: exhaustive against fast\n\n";
  for (const auto& [key, folder] : exh) agreement.markdown += compare_family(folder, quick.at(key), agreement.counts);
  const AgreementCounts& c = agreement.counts;
  agreement.markdown += fmt::format("\n{} of {} choices equal, {} within noise, {} worse{}\n", c.equal, c.total(),
                                    c.same, c.worse, c.ambiguous ? fmt::format(", {} ambiguous", c.ambiguous) : "");
  return agreement;
}

}  // namespace exactune
