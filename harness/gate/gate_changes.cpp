#include "gate/gate_changes.hpp"

#include <algorithm>

namespace exactune {

const std::array<ChangeTraits, 19> kGateChanges = {{
    {GateChange::lost_exactness, GateVerdict::fail, "lost exactness", "lost exactness", true},
    {GateChange::slower, GateVerdict::fail, "slower beyond noise", "slower beyond noise", true},
    {GateChange::changed_shape, GateVerdict::fail, "changed shape", "changed shapes", false},
    {GateChange::chosen_removed, GateVerdict::fail, "chosen variant removed", "chosen variants removed", false},
    {GateChange::chosen_not_timed, GateVerdict::fail, "chosen variant not timed", "chosen variants not timed", false},
    {GateChange::removed_shape, GateVerdict::fail, "removed shape", "removed shapes", false},
    {GateChange::different_gpu, GateVerdict::fail, "different GPU", "different GPU", false},
    {GateChange::different_reference, GateVerdict::fail, "different reference", "different reference", false},
    {GateChange::different_inputs, GateVerdict::fail, "different inputs", "different inputs", false},
    {GateChange::different_copy, GateVerdict::fail, "different copy", "different copies", false},
    {GateChange::ambiguous, GateVerdict::warning, "ambiguous: rerun", "ambiguous: rerun", false},
    {GateChange::slower_under_threshold, GateVerdict::pass, "slower under threshold", "slower under threshold", false},
    {GateChange::within_noise, GateVerdict::pass, "within noise", "within noise", false},
    {GateChange::improved, GateVerdict::pass, "improved", "improved", false},
    {GateChange::speed_not_gated, GateVerdict::note, "speed not gated", "speed not gated", false},
    {GateChange::gained_exactness, GateVerdict::note, "gained exactness", "gained exactness", false},
    {GateChange::new_variant, GateVerdict::note, "new variant", "new variants", false},
    {GateChange::removed_variant, GateVerdict::note, "removed variant", "removed variants", false},
    {GateChange::new_shape, GateVerdict::note, "new shape", "new shapes", false},
}};

const ChangeTraits& change_traits(GateChange change) {
  return *std::find_if(kGateChanges.begin(), kGateChanges.end(),
                       [&](const ChangeTraits& t) { return t.change == change; });
}

}  // namespace exactune
