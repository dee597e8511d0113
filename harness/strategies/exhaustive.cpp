// The exhaustive strategy: every exact variant of a shape gets the full
// timing, and nothing is screened. The reference the fast strategies are
// compared with (exactune agreement), and what sweeps did before strategies.
#include "strategies/builtin_strategies.hpp"

namespace exactune {
namespace {

class Exhaustive final : public SearchStrategy {
 public:
  std::string name() const override { return "exhaustive"; }
  std::string description() const override {
    return "time every exact variant fully in every regime (slow; the reference the others are checked against)";
  }
  std::string settings() const override { return "every exact variant timed fully"; }
  SearchDecision decide(const std::vector<std::string>& variants, const ScreenMeasure&,
                        const SearchContext&) const override {
    SearchDecision decision;
    decision.fully_timed = variants;
    return decision;
  }
};

}  // namespace

std::unique_ptr<SearchStrategy> make_exhaustive_strategy() { return std::make_unique<Exhaustive>(); }

}  // namespace exactune
