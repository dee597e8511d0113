#include "gate/gate_render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "gate/gate_changes.hpp"
#include "util/text_table.hpp"
#include "util/xml_escape.hpp"

namespace exactune {
namespace {

std::string_view verdict_word(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::pass: return "pass";
    case GateVerdict::note: return "note";
    case GateVerdict::warning: return "warning";
    case GateVerdict::fail: return "FAIL";
  }
  return "";
}

// The messages of one JUnit test case's findings (shape, check, regime) that
// have `verdict`: its failures, or its warnings (an ambiguous figure: "rerun").
std::vector<std::string> messages_of(const GateReport& report, const std::string& shape, GateCheck check,
                                     std::optional<TimingRegime> regime, GateVerdict verdict) {
  std::vector<std::string> messages;
  for (const GateFinding& f : report.findings) {
    if (f.shape == shape && f.check == check && f.regime == regime && f.verdict == verdict) {
      messages.push_back(f.message);
    }
  }
  return messages;
}

bool has_finding(const GateReport& report, const std::string& shape, GateCheck check,
                 std::optional<TimingRegime> regime) {
  return std::any_of(report.findings.begin(), report.findings.end(),
                     [&](const GateFinding& f) { return f.shape == shape && f.check == check && f.regime == regime; });
}

// A test case: failed when it has failures; else skipped, JUnit's state for
// "not judged", when it has warnings (an ambiguous figure to rerun).
std::string junit_testcase(const std::string& shape, std::string_view check, const std::vector<std::string>& failures,
                           const std::vector<std::string>& warnings) {
  const std::string open = fmt::format(R"(  <testcase classname="exactune-gate.{}" name="{}")",
                                       shape.empty() ? "sweep" : xml_escape(shape), check);
  if (failures.empty() && warnings.empty()) return open + "/>\n";
  if (failures.empty()) {
    return fmt::format("{}>\n    <skipped message=\"{}\"/>\n  </testcase>\n", open,
                       xml_escape(fmt::format("{}", fmt::join(warnings, "; "))));
  }
  return fmt::format("{}>\n    <failure message=\"{}\">{}</failure>\n  </testcase>\n", open,
                     xml_escape(fmt::format("{}", fmt::join(failures, "; "))),
                     xml_escape(fmt::format("{}", fmt::join(failures, "\n"))));
}

}  // namespace

std::string render_gate_table(const GateReport& report) {
  TextTable table({"shape", "variant", "regime", "baseline", "candidate", "change", "verdict"});
  for (const GateFinding& f : report.findings) {
    const std::string_view label = change_traits(f.change).label;
    table.add_row({f.shape.empty() ? "(all)" : f.shape, f.variant, f.regime ? std::string(regime_name(*f.regime)) : "",
                   f.baseline, f.candidate,
                   f.detail.empty() ? std::string(label) : fmt::format("{}: {}", label, f.detail),
                   std::string(verdict_word(f.verdict))});
  }
  std::string text = table.render();
  const bool warned = std::any_of(report.findings.begin(), report.findings.end(),
                                  [](const GateFinding& f) { return f.verdict == GateVerdict::warning; });
  if (warned) {
    text += "\nto rerun (ambiguous: they fail under --strict):\n";
    for (const GateFinding& f : report.findings) {
      if (f.verdict == GateVerdict::warning && !f.message.empty()) text += fmt::format("  {}\n", f.message);
    }
  }
  if (!report.passed()) {
    text += "\nfailures:\n";
    for (const GateFinding& f : report.findings) {
      if (f.verdict == GateVerdict::fail) text += fmt::format("  {}\n", f.message);
    }
  }
  return text;
}

std::string gate_summary_line(const GateReport& report) {
  std::vector<std::string> counts;
  for (const ChangeTraits& t : kGateChanges) {
    const std::size_t n = report.count(t.change);
    if (n > 0 || t.always_counted) counts.push_back(fmt::format("{} {}", n, n == 1 ? t.label : t.plural));
  }
  if (report.outside_selection > 0) {
    counts.push_back(
        fmt::format("{} baseline (shape, variant) pairs outside the candidate's selection", report.outside_selection));
  }
  return fmt::format("gate: {}: {} (threshold {:g}%)", report.passed() ? "PASS" : "FAIL", fmt::join(counts, ", "),
                     report.threshold * 100);
}

std::string gate_junit_xml(const GateReport& report) {
  std::string cases;
  std::size_t tests = 0, failures = 0, skipped = 0;
  const auto add_case = [&](const std::string& shape, GateCheck check, std::string_view name,
                            std::optional<TimingRegime> regime = std::nullopt) {
    const std::vector<std::string> failed = messages_of(report, shape, check, regime, GateVerdict::fail);
    const std::vector<std::string> warned = messages_of(report, shape, check, regime, GateVerdict::warning);
    cases += junit_testcase(shape, name, failed, warned);
    ++tests;
    if (!failed.empty()) {
      ++failures;
    } else if (!warned.empty()) {
      ++skipped;
    }
  };
  // Findings about the whole sweep (another GPU, another reference) have a case of their own.
  if (has_finding(report, "", GateCheck::exactness, std::nullopt)) add_case("", GateCheck::exactness, "reference");
  if (has_finding(report, "", GateCheck::speed, std::nullopt)) add_case("", GateCheck::speed, "gpu");
  for (const std::string& shape : report.shapes) {
    add_case(shape, GateCheck::exactness, "exactness");
    // A shape has a speed case per regime its chosen configuration was looked at in.
    for (TimingRegime r : kTimingRegimes) {
      if (has_finding(report, shape, GateCheck::speed, r)) {
        add_case(shape, GateCheck::speed, fmt::format("{}_speed", regime_name(r)), r);
      }
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuite name=\"exactune-gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                     tests, failures, skipped);
  out += fmt::format(
      "  <properties>\n    <property name=\"family\" value=\"{}\"/>\n"
      "    <property name=\"threshold\" value=\"{:g}\"/>\n  </properties>\n",
      xml_escape(report.family), report.threshold);
  out += cases;
  out += fmt::format("  <system-out>{}</system-out>\n</testsuite>\n", xml_escape(gate_summary_line(report)));
  return out;
}

}  // namespace exactune
