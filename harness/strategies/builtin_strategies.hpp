// The strategies exactune ships, made here rather than registered by static
// objects: a static library drops an object file nothing refers to, and with
// it such a registration. StrategyRegistry's constructor adds these.
#pragma once
#include <memory>

#include "strategies/search_strategy.hpp"

namespace exactune {

// Every exact variant gets the full timing: what every sweep did before strategies.
std::unique_ptr<SearchStrategy> make_exhaustive_strategy();

// The numbers successive halving runs by (successive_halving.cpp says why these).
struct SuccessiveHalvingSettings {
  int screen_repetitions = 3;  // repetitions per screen: the fewest that give a spread
  int first_iterations = 1;    // samples per repetition in round 1, doubled each round
  int max_rounds = 4;          // rounds of 1, 2, 4 and 8 samples per repetition
  double noise_floor = 0.03;   // the least relative margin a cut leaves above the best
  int min_survivors = 4;       // never fewer fully timed than this (nor than SearchContext::keep_at_least)
};
std::unique_ptr<SearchStrategy> make_successive_halving_strategy(const SuccessiveHalvingSettings& settings = {});

}  // namespace exactune
