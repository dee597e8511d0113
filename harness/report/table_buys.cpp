// What the tables buy: each shape's chosen configuration, the framework rule's
// and the other GPUs' choices, looked up in the one sweep that timed the shape.
#include "report/table_buys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "store/chooser_policy.hpp"
#include "util/markdown_text.hpp"

namespace exactune {
namespace {

// A configuration as a shape's sweep timed it: its figure, or why there is none.
struct Timed {
  std::optional<double> us;
  std::string missing;  // why `us` is none
};

Timed timed(const ShapeResult& s, const KernelFamily& family, const Configuration& c, TimingRegime regime) {
  const auto v = std::find_if(s.variants.begin(), s.variants.end(),
                              [&](const VariantResult& candidate) { return candidate.variant == c.variant; });
  if (v == s.variants.end()) {
    const std::string excluded = family.exclusion(c.params, s.shape.size);
    if (excluded.empty()) return {std::nullopt, "not timed in this sweep"};
    return {std::nullopt, fmt::format("not timed in this sweep: no variant at {} {} ({})", family.size_parameter(),
                                      s.shape.size, excluded)};
  }
  if (!v->exact) return {std::nullopt, "not exact"};
  if (const std::optional<Timing>& t = v->timing(regime)) return {t->median_us, {}};
  if (v->screened_out) {
    return {std::nullopt, fmt::format("not timed in this sweep (screened out in round {})", v->screened_out->round)};
  }
  return {std::nullopt, "not timed in this sweep"};
}

std::string us_text(const Timed& t) { return t.us ? fmt::format("{:.2f}", *t.us) : markdown_text(t.missing); }

// Over the table's figure: above 1, the table's choice is that much faster.
std::string over_table(const Timed& other, const Timed& table) {
  if (!other.us || !table.us || *table.us <= 0) return kMarkdownMissing;
  return fmt::format("{:.2f}", *other.us / *table.us);
}

// The table's configuration for a shape: its bucket's choice, else the device default.
struct TableChoice {
  Configuration configuration;
  bool is_default = false;
};

TableChoice table_choice(const DeviceHeuristics& device, const Shape& shape) {
  if (const Choice* c = device.choice_for(shape.size, shape.rows())) return {c->chosen, false};
  return {device.default_configuration, true};
}

std::string choice_text(const TableChoice& c) {
  return c.is_default ? fmt::format("{} (default)", markdown_code(c.configuration.variant))
                      : markdown_code(c.configuration.variant);
}

// The cells of one shape: table's choice, its figure, the rule's configuration,
// its figure, rule/table.
struct RowCells {
  std::string shape, size, rows, chosen, chosen_us, rule, rule_us, ratio;
  Timed table;
};

RowCells row_cells(const ShapeResult& s, const Heuristics& h, const KernelFamily& family) {
  const TimingRegime regime = policy_figure(h.policy);
  const TableChoice chosen = table_choice(h.device, s.shape);
  RowCells cells;
  cells.shape = markdown_text(s.shape.name);
  cells.size = fmt::format("{}", s.shape.size);
  cells.rows = fmt::format("{}", s.shape.rows());
  cells.chosen = choice_text(chosen);
  cells.table = timed(s, family, chosen.configuration, regime);
  cells.chosen_us = us_text(cells.table);
  const std::optional<FrameworkRule> rule = family.framework_rule(s.shape);
  if (!rule) {
    cells.rule = "no framework rule";
    cells.rule_us = kMarkdownMissing;
    cells.ratio = kMarkdownMissing;
    return cells;
  }
  const Timed by_rule = timed(s, family, rule->configuration, regime);
  cells.rule = markdown_code(rule->configuration.variant);
  cells.rule_us = us_text(by_rule);
  cells.ratio = over_table(by_rule, cells.table);
  return cells;
}

// The rules of the shapes, each said once: the framework, its words, why its configuration.
std::string rules_paragraph(const std::vector<ShapeResult>& shapes, const KernelFamily& family) {
  std::vector<std::tuple<std::string, std::string, std::string>> rules;
  for (const ShapeResult& s : shapes) {
    if (const std::optional<FrameworkRule> r = family.framework_rule(s.shape)) {
      const auto said = std::make_tuple(r->framework, r->rule, r->why);
      if (std::find(rules.begin(), rules.end(), said) == rules.end()) rules.push_back(said);
    }
  }
  if (rules.empty()) {
    return fmt::format(
        "No framework rule: no serving framework hand-picks a launch of `{}` (KernelFamily::framework_rule), so "
        "there is no rule to set the table against.\n\n",
        family.name());
  }
  std::string out;
  for (const auto& [framework, words, why] : rules) {
    fmt::format_to(std::back_inserter(out), "{}'s rule: `{}`. Its configuration in exactune's space: {}.\n\n",
                   markdown_text(framework), words, markdown_text(why));
  }
  return out;
}

}  // namespace

std::string table_buys_section(const SweepResults& results, const Heuristics& h) {
  const KernelFamily& family = FamilyRegistry::find(results.family);
  std::string out = fmt::format(
      "## What the table buys\n\nPer shape, the {} median (µs) of the configuration the table chooses "
      "(heuristics.yaml) and of the one the serving framework's hand rule maps to in exactune's space, both "
      "timed in this sweep: rule/table is a ratio within one sweep on one GPU (above 1, the table's choice is "
      "faster). Against the other GPUs' choices: tables/{} under the reports folder.\n\n",
      regime_label(policy_figure(h.policy)), kTableVsRuleFile);
  out += rules_paragraph(results.shapes, family);
  fmt::format_to(std::back_inserter(out),
                 "| shape | {} | rows | table's choice | µs | framework rule's configuration | µs | rule/table |\n"
                 "|---|---:|---:|---|---:|---|---:|---:|\n",
                 family.size_parameter());
  for (const ShapeResult& s : results.shapes) {
    const RowCells c = row_cells(s, h, family);
    fmt::format_to(std::back_inserter(out), "| {} | {} | {} | {} | {} | {} | {} | {} |\n", c.shape, c.size, c.rows,
                   c.chosen, c.chosen_us, c.rule, c.rule_us, c.ratio);
  }
  return out;
}

std::string table_vs_rule_page(const std::vector<SweptFamily>& swept) {
  std::string out =
      "Generated by exactune tables from reports/*/*/sweep.yaml and heuristics.yaml; do not edit.\n\n"
      "# What the tables buy, per GPU and shape\n\n"
      "Per GPU and shape, the figure (median µs, in the regime of that GPU's chooser policy) of the configuration "
      "the table chooses, of the one the serving framework's hand rule maps to in exactune's space "
      "(KernelFamily::framework_rule), and of each other GPU's choice for the same shape, all timed in the one "
      "sweep of that GPU: every ratio is within one sweep on one GPU (above 1, the table's choice is faster). "
      "\"not timed in this sweep\": the sweep has no figure of that configuration (a search strategy cut it, or "
      "it is no variant at the shape's size).\n";
  std::vector<std::string> families;
  for (const SweptFamily& f : swept) {
    if (std::find(families.begin(), families.end(), f.results.family) == families.end())
      families.push_back(f.results.family);
  }
  if (families.empty()) out += "\nNo sweep.yaml lies beside any heuristics.yaml: nothing to compare.\n";
  for (const std::string& name : families) {
    const KernelFamily& family = FamilyRegistry::find(name);
    std::vector<const SweptFamily*> gpus;
    for (const SweptFamily& f : swept) {
      if (f.results.family == name) gpus.push_back(&f);
    }
    std::stable_sort(gpus.begin(), gpus.end(), [](const SweptFamily* a, const SweptFamily* b) {
      return a->heuristics.device.slug < b->heuristics.device.slug;
    });
    fmt::format_to(std::back_inserter(out), "\n## {}\n\n", name);
    std::vector<ShapeResult> all_shapes;
    for (const SweptFamily* g : gpus) {
      all_shapes.insert(all_shapes.end(), g->results.shapes.begin(), g->results.shapes.end());
    }
    out += rules_paragraph(all_shapes, family);
    fmt::format_to(std::back_inserter(out),
                   "| GPU | shape | {} | rows | table's choice | µs | framework rule's configuration | µs | "
                   "rule/table | other GPUs' choices: µs here, over the table's |\n"
                   "|---|---|---:|---:|---|---:|---|---:|---:|---|\n",
                   family.size_parameter());
    for (const SweptFamily* g : gpus) {
      const TimingRegime regime = policy_figure(g->heuristics.policy);
      for (const ShapeResult& s : g->results.shapes) {
        const RowCells c = row_cells(s, g->heuristics, family);
        std::vector<std::string> others;
        for (const SweptFamily* other : gpus) {
          if (other == g) continue;
          const TableChoice theirs = table_choice(other->heuristics.device, s.shape);
          const Timed here = timed(s, family, theirs.configuration, regime);
          others.push_back(fmt::format("{}: {} {} ({})", markdown_text(other->heuristics.device.slug),
                                       choice_text(theirs), us_text(here), over_table(here, c.table)));
        }
        fmt::format_to(
            std::back_inserter(out), "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            markdown_text(g->heuristics.device.slug), c.shape, c.size, c.rows, c.chosen, c.chosen_us, c.rule, c.rule_us,
            c.ratio,
            others.empty() ? std::string("no other GPU swept yet") : fmt::format("{}", fmt::join(others, "; ")));
      }
    }
  }
  return out;
}

}  // namespace exactune
