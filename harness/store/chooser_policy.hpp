// The chooser's policy: which timing regime(s) a choice ranks by. heuristics.yaml
// records it (`policy:`); the chooser ranks by it, the sweep re-times its
// contenders in its regimes, and the gate checks them, and cold.
#pragma once
#include <string_view>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// Which timing regime(s) (results.hpp) the chooser ranks by, named in
// heuristics.yaml as `policy:`; the gate checks the same regimes, and cold.
//   rotated (the default): the hot figure with inputs cycled past twice the
//     L2: serving runs activations that are not L2-resident.
//   cold: the L2-flushed figure.
//   both: the sum of the rotated and the cold figure, each over its copy's:
//     a variant must be fast in both to win.
//   l2_resident: the hot figure replaying the same buffers, what every
//     heuristics.yaml without a `policy:` was chosen by. Only for sweeps timed
//     before the rotated regime existed: it flatters shapes that fit in L2.
enum class ChooserPolicy { rotated, cold, both, l2_resident };
inline constexpr ChooserPolicy kDefaultPolicy = ChooserPolicy::rotated;

std::string_view policy_name(ChooserPolicy policy);
// Throws exactune::input_error naming the policies on any other name.
ChooserPolicy policy_named(std::string_view name);
// The regimes the policy ranks by: where contenders are timed again and the gate looks.
std::vector<TimingRegime> policy_regimes(ChooserPolicy policy);
// What the gate checks for heuristics of this policy: the policy's regimes,
// then cold, which is always gated (a configuration chosen hot must not have
// got slower cold either).
std::vector<TimingRegime> gated_regimes(ChooserPolicy policy);
// The regime whose median a choice records as median_us: rotated for `both`.
TimingRegime policy_figure(ChooserPolicy policy);

}  // namespace exactune
