// The registry of search strategies: the built-ins, then whatever registered itself.
#include "strategies/strategy_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include <exactune/error.hpp>

#include "strategies/builtin_strategies.hpp"

namespace exactune {

StrategyRegistry::StrategyRegistry() {
  add(make_successive_halving_strategy());
  add(make_exhaustive_strategy());
}

StrategyRegistry& StrategyRegistry::instance() {
  static StrategyRegistry registry;
  return registry;
}

const SearchStrategy& StrategyRegistry::add(std::unique_ptr<SearchStrategy> strategy) {
  const std::string name = strategy->name();
  const bool well_named = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!well_named) throw error(fmt::format("search strategy '{}': a name is [a-z0-9_]+", name));
  for (const auto& known : strategies_) {
    if (known->name() == name) throw error(fmt::format("search strategy '{}' is registered twice", name));
  }
  strategies_.push_back(std::move(strategy));
  return *strategies_.back();
}

const SearchStrategy& StrategyRegistry::find(std::string_view name) const {
  for (const auto& strategy : strategies_) {
    if (strategy->name() == name) return *strategy;
  }
  throw input_error(fmt::format("--strategy '{}' is no search strategy; the strategies are: {}", name, listing()));
}

std::vector<const SearchStrategy*> StrategyRegistry::all() const {
  std::vector<const SearchStrategy*> out;
  for (const auto& strategy : strategies_) out.push_back(strategy.get());
  return out;
}

std::string StrategyRegistry::listing() const {
  std::vector<std::string> entries;
  for (const auto& strategy : strategies_) {
    entries.push_back(fmt::format("{}: {}", strategy->name(), strategy->description()));
  }
  return fmt::format("{}", fmt::join(entries, "; "));
}

}  // namespace exactune
