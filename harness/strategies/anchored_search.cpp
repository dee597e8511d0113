// The sweep's anchors, timed fully beside a strategy's decision (see the header).
#include "strategies/anchored_search.hpp"

#include <algorithm>

namespace exactune {

SearchDecision decide_with_anchors(const SearchStrategy& strategy, const std::vector<std::string>& variants,
                                   const std::vector<std::string>& anchors, const ScreenMeasure& screen,
                                   const SearchContext& context) {
  const auto is_anchor = [&](const std::string& v) {
    return std::find(anchors.begin(), anchors.end(), v) != anchors.end();
  };
  std::vector<std::string> searched;
  std::vector<std::string> anchored;
  for (const std::string& v : variants) (is_anchor(v) ? anchored : searched).push_back(v);
  SearchDecision decision = strategy.decide(searched, screen, context);
  decision.fully_timed.insert(decision.fully_timed.end(), anchored.begin(), anchored.end());
  return decision;
}

}  // namespace exactune
