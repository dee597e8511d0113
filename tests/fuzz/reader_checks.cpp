#include "fuzz/reader_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <optional>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "choose/chooser.hpp"
#include "fuzz/seed_corpus.hpp"
#include "gate/gate.hpp"
#include "gate/gate_render.hpp"
#include "shapes/shape_file.hpp"
#include "store/chooser_policy.hpp"
#include "store/defaults_record.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/targets.hpp"
#include "store/variant_params.hpp"

namespace exactune::fuzz {
namespace {

// A refusal as the CLI prints it: "<name>:<line>[:<column>]: <what>", one line.
std::string located_problem(const std::string& message) {
  const std::string prefix = fmt::format("{}:", kInputName);
  if (message.rfind(prefix, 0) != 0) return fmt::format("the refusal does not start with '{}': {}", prefix, message);
  std::size_t at = prefix.size();
  const auto digits = [&] {
    const std::size_t start = at;
    while (at < message.size() && std::isdigit(static_cast<unsigned char>(message[at]))) ++at;
    return at > start;
  };
  if (!digits()) return "the refusal names no line: " + message;
  if (at < message.size() && message[at] == ':' && at + 1 < message.size() &&
      std::isdigit(static_cast<unsigned char>(message[at + 1]))) {
    ++at;
    digits();  // the column
  }
  if (message.compare(at, 2, ": ") != 0 || at + 2 >= message.size()) return "the refusal says nothing: " + message;
  const bool one_line = std::none_of(message.begin(), message.end(),
                                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (!one_line) return "the refusal holds a control character (it would print on several lines): " + message;
  return {};
}

// Runs a reader: accepted, refused in the located form, or what went wrong.
template <typename Read>
Verdict judge(Read&& read) {
  Verdict v;
  try {
    read();
    v.accepted = true;
  } catch (const input_error& e) {
    v.problem = located_problem(e.what());
  } catch (const exactune::error& e) {
    v.problem = fmt::format("exactune::error instead of input_error (exit 1, not 2): {}", e.what());
  } catch (const std::exception& e) {
    v.problem = fmt::format("internal error: {}", e.what());
  } catch (...) {
    v.problem = "internal error: an exception that is no std::exception";
  }
  return v;
}

// What runs after a reader accepted: it may refuse (exactune::error, exit 1
// or 2 in the CLI) but never fail otherwise.
template <typename Use>
std::string downstream_problem(std::string_view stage, Use&& use) {
  try {
    use();
  } catch (const exactune::error&) {
  } catch (const std::exception& e) {
    return fmt::format("{}: internal error on an accepted file: {}", stage, e.what());
  }
  return {};
}

// Written out and read back, what was read must read again and write out the same.
template <typename Value, typename Parse, typename Write>
std::string round_trip_problem(std::string_view what, const Value& read, Parse parse, Write write) {
  std::string written;
  try {
    written = write(read);
    const std::string again = write(parse(written));
    if (again != written) return fmt::format("{} written twice differs:\n{}\n---\n{}", what, written, again);
  } catch (const std::exception& e) {
    return fmt::format("{} as written does not read back: {}\n{}", what, e.what(), written);
  }
  return {};
}

SweepResults parse_sweep(const std::string& text) { return parse_sweep_yaml(text, std::string(kInputName)); }
Heuristics parse_heuristics(const std::string& text) { return parse_heuristics_yaml(text, std::string(kInputName)); }
DefaultsRecord parse_defaults(const std::string& text) { return parse_defaults_yaml(text, std::string(kInputName)); }

// A sweep of an older format may hold variants of an older space: it cannot
// be written in today's format, which names every axis (nor chosen from).
bool of_todays_space(const SweepResults& sweep) {
  const KernelFamily& family = FamilyRegistry::find(sweep.family);
  return std::all_of(sweep.shapes.begin(), sweep.shapes.end(), [&](const ShapeResult& s) {
    return std::all_of(s.variants.begin(), s.variants.end(),
                       [&](const VariantResult& v) { return is_configuration(family, v.params); });
  });
}

Verdict check_shapes(std::string_view text) {
  Verdict all;
  for (const KernelFamily* family : FamilyRegistry::all()) {
    const Verdict v = judge([&] { parse_shapes(*family, text, std::string(kInputName)); });
    if (!v.ok()) return v;
    all.accepted = all.accepted || v.accepted;
  }
  return all;
}

Verdict check_sweep(std::string_view text) {
  SweepResults read;
  Verdict v = judge([&] { read = parse_sweep(std::string(text)); });
  if (v.accepted && of_todays_space(read)) {
    v.problem = round_trip_problem("the sweep", read, parse_sweep, to_sweep_yaml);
  }
  return v;
}

Verdict check_heuristics(std::string_view text) {
  Heuristics read;
  Verdict v = judge([&] { read = parse_heuristics(std::string(text)); });
  if (v.accepted) v.problem = round_trip_problem("the heuristics", read, parse_heuristics, to_heuristics_yaml);
  return v;
}

Verdict check_targets(std::string_view text) {
  return judge([&] { parse_targets_yaml(text, std::string(kInputName)); });
}

Verdict check_verified_defaults(std::string_view text) {
  DefaultsRecord read;
  Verdict v = judge([&] { read = parse_defaults(std::string(text)); });
  if (v.accepted) v.problem = round_trip_problem("the record", read, parse_defaults, to_defaults_yaml);
  return v;
}

// The baseline a candidate of `family` is gated against: its generated sweep.
const SweepResults* baseline_of(const std::string& family) {
  static const std::map<std::string, SweepResults> baselines = [] {
    std::map<std::string, SweepResults> made;
    for (const KernelFamily* f : FamilyRegistry::all()) {
      if (std::optional<SweepResults> sweep = generated_sweep(*f)) made.emplace(f->name(), std::move(*sweep));
    }
    return made;
  }();
  const auto it = baselines.find(family);
  return it == baselines.end() ? nullptr : &it->second;
}

// What `exactune gate` and `exactune report` do with a candidate they read.
Verdict check_gate(std::string_view text) {
  SweepResults candidate;
  Verdict v = judge([&] { candidate = parse_sweep(std::string(text)); });
  if (!v.accepted) return v;
  const auto gate = [&](const SweepResults& baseline) {
    GateOptions options;
    const GateReport report = compare_sweeps(baseline, candidate, options);
    render_gate_table(report);
    gate_summary_line(report);
    gate_junit_xml(report);
  };
  v.problem = downstream_problem("gate against itself", [&] { gate(candidate); });
  if (v.ok()) {
    if (const SweepResults* baseline = baseline_of(candidate.family)) {
      v.problem = downstream_problem("gate against the baseline", [&] { gate(*baseline); });
    }
  }
  for (ChooserPolicy policy : {ChooserPolicy::rotated, ChooserPolicy::both}) {
    if (!v.ok()) return v;
    std::optional<Heuristics> chosen;
    v.problem = downstream_problem("choose", [&] {
      ChooserOptions options;
      options.policy = policy;
      chosen = choose_heuristics(candidate, options);
    });
    if (v.ok() && chosen) {
      v.problem = round_trip_problem("the chosen heuristics", *chosen, parse_heuristics, to_heuristics_yaml);
    }
  }
  return v;
}

}  // namespace

const std::vector<Reader>& readers() {
  static const std::vector<Reader> all = {
      {"shapes", check_shapes},
      {"sweep", check_sweep},
      {"heuristics", check_heuristics},
      {"targets", check_targets},
      {"verified_defaults", check_verified_defaults},
      {"gate", check_gate},
  };
  return all;
}

const Reader* find_reader(std::string_view name) {
  for (const Reader& r : readers()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

}  // namespace exactune::fuzz
