// The search strategies a sweep can use, by name: the built-in ones
// (builtin_strategies.hpp) from the start, and any other added at start-up by
// EXACTUNE_REGISTER_STRATEGY(Type) in a file linked into the binary, as a
// stopping criterion is added to nvbench's criterion manager. `--strategy`
// finds one by name; its help and its error list them all.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "strategies/search_strategy.hpp"

namespace exactune {

class StrategyRegistry {
 public:
  // What a sweep uses unless told otherwise.
  static constexpr std::string_view kDefault = "successive_halving";

  static StrategyRegistry& instance();

  // Takes `strategy` in; throws exactune::error when its name is taken or not [a-z0-9_]+.
  const SearchStrategy& add(std::unique_ptr<SearchStrategy> strategy);
  // Throws exactune::input_error naming every known strategy on an unknown name.
  const SearchStrategy& find(std::string_view name) const;
  // In the order added: the built-ins first, the default before them all.
  std::vector<const SearchStrategy*> all() const;
  // "name: description" per strategy, "; "-separated: for help texts and errors.
  std::string listing() const;

 private:
  StrategyRegistry();
  std::vector<std::unique_ptr<SearchStrategy>> strategies_;
};

#define EXACTUNE_STRATEGY_CONCAT_INNER(a, b) a##b
#define EXACTUNE_STRATEGY_CONCAT(a, b) EXACTUNE_STRATEGY_CONCAT_INNER(a, b)
// Adds a default-constructed TYPE to the registry when the program starts.
#define EXACTUNE_REGISTER_STRATEGY(TYPE)                                                               \
  static const ::exactune::SearchStrategy& EXACTUNE_STRATEGY_CONCAT(exactune_strategy_, __COUNTER__) = \
      ::exactune::StrategyRegistry::instance().add(std::make_unique<TYPE>())

}  // namespace exactune
