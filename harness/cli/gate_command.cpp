// exactune gate: the CI regression check. Compares a candidate sweep.yaml with
// the committed baseline in the regimes of the chooser's policy (from
// --heuristics, else --policy) and cold; exits 1 on lost bit-exactness or a
// slowdown, 2 when either file is missing or invalid.
// exactune gate-power: the same gate over many gate-mode runs, some with a
// slowdown planted, counted into gate_power.json (ci/gpu.sh gate-power).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include <exactune/error.hpp>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "gate/gate.hpp"
#include "gate/gate_power_runs.hpp"
#include "gate/gate_render.hpp"
#include "gate/remeasure.hpp"
#include "report/file_set.hpp"
#include "store/chooser_policy.hpp"
#include "store/gate_power.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"

namespace exactune::cli {
namespace {

std::vector<std::string> regime_names(const std::vector<TimingRegime>& regimes) {
  std::vector<std::string> names;
  for (TimingRegime r : regimes) names.emplace_back(regime_name(r));
  return names;
}

// Fills in what `gate` gates: the chosen configuration of each shape from the
// heuristics.yaml at `heuristics` (when given), and the regimes of its policy,
// else of --policy `policy_name_given`. Returns the policy.
ChooserPolicy gate_choices(const SweepResults& baseline, const std::string& heuristics,
                           const std::string& policy_name_given, GateOptions& gate) {
  ChooserPolicy policy = policy_name_given.empty() ? kDefaultPolicy : policy_named(policy_name_given);
  if (!heuristics.empty()) {
    const Heuristics h = blaming_the_input([&] { return load_heuristics_file(heuristics); });
    if (!policy_name_given.empty() && policy != h.policy) {
      throw input_error(
          fmt::format("--policy {} differs from the policy {} of {}: the gate checks the regimes "
                      "the choices were made in",
                      policy_name_given, policy_name(h.policy), heuristics));
    }
    policy = h.policy;
    if (h.family != baseline.family) {
      throw input_error(fmt::format("{} holds the choices of family '{}', the baseline is a sweep of '{}'", heuristics,
                                    h.family, baseline.family));
    }
    for (const ShapeResult& s : baseline.shapes) {
      if (const Choice* c = h.device.choice_for(s.shape.size, s.shape.rows())) {
        gate.chosen[s.shape.name] = c->chosen.variant;
      }
    }
  }
  gate.regimes = gated_regimes(policy);
  return policy;
}

// "0.05:path/sweep.yaml": a gate-mode run and the slowdown planted in it;
// "0:first/sweep.yaml+again/sweep.yaml": a run and its re-measures, pooled as
// gate mode pools them.
GatePowerRun gate_power_run(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  double planted = -1;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      planted = std::stod(spec.substr(0, colon), &used);
      if (used != colon) planted = -1;
    } catch (const std::exception&) {
      planted = -1;
    }
  }
  if (!(planted >= 0 && planted <= 1)) {
    throw input_error(fmt::format("run '{}' is not PLANTED:SWEEP, PLANTED a fraction from 0 to 1 (0.05 = +5%)", spec));
  }
  std::vector<std::string> paths;
  for (std::size_t from = colon + 1;;) {
    const std::size_t plus = spec.find('+', from);
    paths.push_back(spec.substr(from, plus == std::string::npos ? std::string::npos : plus - from));
    if (plus == std::string::npos) break;
    from = plus + 1;
  }
  GatePowerRun run{planted, blaming_the_input([&] { return read_sweep_file(paths.front()); }), {}};
  for (std::size_t i = 1; i < paths.size(); ++i) {
    run.remeasured.push_back(blaming_the_input([&] { return read_sweep_file(paths[i]); }));
  }
  return run;
}

}  // namespace

void add_gate_command(CLI::App& app, Run& run) {
  struct Options {
    std::string baseline;
    std::string candidate;
    GateOptions gate;
    std::string junit;
    std::string heuristics;
    std::string policy;
    std::vector<std::string> remeasured;
    std::string rerun_list;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "gate",
      "Compare a candidate sweep.yaml with a baseline of the same kernel family: fail (exit 1) when a variant "
      "that was bit-exact no longer is, or when a shape's chosen configuration (from --heuristics, else the "
      "baseline's fastest exact variant) is slower, in each regime the chooser's policy ranks by and cold. Speed "
      "is compared on the samples, each against its run's copy: slower, same or faster against the threshold, or "
      "ambiguous (too wide to tell: a warning to rerun, a failure under --strict)");
  command->add_option("--baseline", options->baseline, "the committed sweep.yaml to compare against")
      ->required()
      ->check(nonempty_path());
  command->add_option("--candidate", options->candidate, "the new sweep.yaml")->required()->check(nonempty_path());
  command
      ->add_option("--threshold", options->gate.threshold,
                   "the effect size, as a fraction: the smallest slowdown that matters (0.05 = 5%)")
      ->check(finite_number_from(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("--confidence", options->gate.confidence,
                   "of each comparison's interval; 1 - confidence is the false-alarm budget of all figures together")
      ->check(finite_number_from(0.5, 0.9999))
      ->capture_default_str();
  command
      ->add_option("--remeasured", options->remeasured,
                   "another run of the same narrowed sweep whose samples pool with the candidate's, each against "
                   "its run's copy (repeatable): how gate mode re-measures what was ambiguous")
      ->check(nonempty_path());
  command
      ->add_option("--rerun-list", options->rerun_list,
                   "write the names of the shapes with an ambiguous figure to this file, one a line (empty when "
                   "none): what gate mode re-measures")
      ->check(nonempty_path());
  command->add_flag("--strict", options->gate.strict,
                    "an ambiguous figure (its interval too wide to tell) fails the gate instead of warning");
  command->add_option("--junit", options->junit, "also write the result as JUnit XML to this file, for CI")
      ->check(nonempty_path());
  command
      ->add_option("--heuristics", options->heuristics,
                   "the committed heuristics.yaml: its choice for each shape is the configuration whose speed is "
                   "gated, and its policy the regimes gated besides cold (default: the baseline's fastest exact "
                   "variant)")
      ->check(nonempty_path());
  command->add_option("--policy", options->policy,
                      "without --heuristics: the regimes gated besides cold, as the chooser's policy names them "
                      "(rotated, cold, both, l2_resident; default rotated)");
  command->callback([&run, options] {
    run = [options] {
      if (!options->junit.empty()) check_output_file("--junit", options->junit);
      const SweepResults baseline = blaming_the_input([&] { return read_sweep_file(options->baseline); });
      if (!options->rerun_list.empty()) check_output_file("--rerun-list", options->rerun_list);
      SweepResults candidate = blaming_the_input([&] { return read_sweep_file(options->candidate); });
      for (const std::string& path : options->remeasured) {
        const SweepResults again = blaming_the_input([&] { return read_sweep_file(path); });
        try {
          pool_remeasured(candidate, again);
        } catch (const input_error& e) {
          throw input_error(fmt::format("{}: {}", path, e.what()));
        }
      }
      GateOptions gate = options->gate;
      const ChooserPolicy policy = gate_choices(baseline, options->heuristics, options->policy, gate);
      fmt::print("policy {}: gating {}\n", policy_name(policy), fmt::join(regime_names(gate.regimes), ", "));
      const GateReport report = compare_sweeps(baseline, candidate, gate);
      fmt::print("candidate {} ({}) against baseline {} ({})\n{}{}\n", options->candidate, candidate.device.name,
                 options->baseline, baseline.device.name, render_gate_table(report), gate_summary_line(report));
      if (!options->junit.empty()) {
        blaming_the_input([&] { write_file_whole(options->junit, gate_junit_xml(report)); });
      }
      if (!options->rerun_list.empty()) {
        std::string names;
        for (const std::string& shape : shapes_to_remeasure(report)) names += shape + "\n";
        blaming_the_input([&] { write_file_whole(options->rerun_list, names); });
      }
      return report.passed() ? 0 : kExitFailure;
    };
  });
}

}  // namespace exactune::cli

namespace exactune::cli {

void add_gate_power_command(CLI::App& app, Run& run) {
  struct Options {
    std::string baseline;
    std::string heuristics;
    std::vector<std::string> runs;
    std::string out;
    GateOptions gate;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "gate-power",
      "Gate many gate-mode runs against one baseline, some with a slowdown planted (exactune sweep --only H "
      "--plant-slowdown F), and write how often the gate failed an unchanged build and caught each planted "
      "slowdown, beside the slowdown the runs measured, to gate_power.json (ci/gpu.sh gate-power)");
  command->add_option("--baseline", options->baseline, "the sweep.yaml the runs are gated against")
      ->required()
      ->check(nonempty_path());
  command->add_option("--heuristics", options->heuristics, "the heuristics.yaml whose choices are gated")
      ->required()
      ->check(nonempty_path());
  command->add_option("--out", options->out, "the gate_power.json to write")->required()->check(nonempty_path());
  command->add_option("--threshold", options->gate.threshold, "the gate's effect size, as exactune gate takes it")
      ->check(finite_number_from(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("runs", options->runs,
                   "PLANTED:SWEEP for each run: 0:run1/sweep.yaml 0.05:run7/sweep.yaml ...; a run that was "
                   "re-measured, PLANTED:SWEEP+AGAIN[+AGAIN]: its runs pooled as gate mode pools them")
      ->required();
  command->callback([&run, options] {
    run = [options] {
      check_output_file("--out", options->out);
      const SweepResults baseline = blaming_the_input([&] { return read_sweep_file(options->baseline); });
      GateOptions gate = options->gate;
      gate_choices(baseline, options->heuristics, "", gate);
      std::vector<GatePowerRun> runs;
      for (const std::string& spec : options->runs) runs.push_back(gate_power_run(spec));
      const GatePower power = measure_gate_power(baseline, runs, gate);
      blaming_the_input([&] { write_gate_power_file(options->out, power); });
      for (const GatePowerLevel& l : power.levels) {
        fmt::print("planted {:+.0f}%: {} runs, {} failed, {} ambiguous, measured {:+.1f}%\n", l.planted * 100, l.runs,
                   l.failed, l.ambiguous, l.measured * 100);
      }
      fmt::print("wrote {}\n", options->out);
      return 0;
    };
  });
}

}  // namespace exactune::cli
