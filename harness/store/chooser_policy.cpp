#include "store/chooser_policy.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <exactune/error.hpp>

namespace exactune {

std::string_view policy_name(ChooserPolicy policy) {
  switch (policy) {
    case ChooserPolicy::rotated: return "rotated";
    case ChooserPolicy::cold: return "cold";
    case ChooserPolicy::both: return "both";
    case ChooserPolicy::l2_resident: return "l2_resident";
  }
  return "";
}

ChooserPolicy policy_named(std::string_view name) {
  for (ChooserPolicy p :
       {ChooserPolicy::rotated, ChooserPolicy::cold, ChooserPolicy::both, ChooserPolicy::l2_resident}) {
    if (policy_name(p) == name) return p;
  }
  throw input_error(fmt::format("policy '{}' is none of rotated, cold, both, l2_resident", name));
}

std::vector<TimingRegime> policy_regimes(ChooserPolicy policy) {
  switch (policy) {
    case ChooserPolicy::rotated: return {TimingRegime::rotated};
    case ChooserPolicy::cold: return {TimingRegime::cold};
    case ChooserPolicy::both: return {TimingRegime::rotated, TimingRegime::cold};
    case ChooserPolicy::l2_resident: return {TimingRegime::l2_resident};
  }
  return {};
}

std::vector<TimingRegime> gated_regimes(ChooserPolicy policy) {
  std::vector<TimingRegime> regimes = policy_regimes(policy);
  if (std::find(regimes.begin(), regimes.end(), TimingRegime::cold) == regimes.end()) {
    regimes.push_back(TimingRegime::cold);
  }
  return regimes;
}

TimingRegime policy_figure(ChooserPolicy policy) { return policy_regimes(policy).front(); }

}  // namespace exactune
