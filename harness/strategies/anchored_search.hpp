// The sweep's anchors: variants it times fully whatever a strategy's screens
// say, so that the reports can set the table's choice against them with
// figures of the same standing. Today the one anchor is the configuration a
// serving framework's hand rule maps to (KernelFamily::framework_rule): the
// page of what the tables buy (report/table_buys) compares against it, and a
// successive-halving sweep would otherwise cut it in its first round and leave
// that comparison empty. The strategy decides over the other variants only.
#pragma once
#include <string>
#include <vector>

#include "strategies/search_strategy.hpp"

namespace exactune {

// `strategy`'s decision over `variants` less `anchors`, with every anchor that
// is among `variants` added to fully_timed (after the strategy's, in the order
// given), never screened. An anchor not among `variants` (not exact at this
// shape, or not selected) is ignored.
SearchDecision decide_with_anchors(const SearchStrategy& strategy, const std::vector<std::string>& variants,
                                   const std::vector<std::string>& anchors, const ScreenMeasure& screen,
                                   const SearchContext& context);

}  // namespace exactune
