// What the tables buy, per GPU and shape: the time of the configuration a
// table chooses against the configuration the serving framework's hand rule
// maps to in exactune's space (KernelFamily::framework_rule) and against each
// other GPU's choice for the same shape, every figure from the one sweep that
// timed the shape: ratios within one sweep on one GPU, no cross-GPU times.
// summary.md's section "What the table buys" (one GPU) and the page
// reports/tables/table_vs_rule.md that `exactune tables` writes (every family,
// every GPU swept).
#pragma once
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "store/family_tables.hpp"
#include "store/heuristics.hpp"

namespace exactune {

// The page `exactune tables` writes under its --out folder.
inline constexpr const char* kTableVsRuleFile = "table_vs_rule.md";

// summary.md's section, from heading to its last line: per shape the table's
// choice (heuristics' device table, else its default) and the rule's
// configuration, each with its figure in the policy's regime, and rule/table;
// "not timed in this sweep" or "not exact" where the sweep has no figure.
std::string table_buys_section(const SweepResults& results, const Heuristics& heuristics);

// The page: per family (the order of `swept`, grouped) and GPU, the same rows
// with a column of every other GPU's choice for the shape, timed in this GPU's
// sweep ("no other GPU swept yet" where the family has one GPU).
std::string table_vs_rule_page(const std::vector<SweptFamily>& swept);

}  // namespace exactune
