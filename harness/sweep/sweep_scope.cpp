// The scope of a sweep (sweep_scope.hpp): its selection from --only and
// --shard, and how a narrowed sweep names itself.
#include "sweep/sweep_scope.hpp"

#include <fmt/format.h>

#include "gate/gate_selection.hpp"

namespace exactune {

std::string SweepScope::words() const {
  std::string words;
  if (shard) words += fmt::format(" shard {}/{}", shard->index, shard->count);
  if (!only.empty()) words += fmt::format(" gate mode (only {})", only);
  return words;
}

void SweepScope::add_to(RunIdentity& identity) const {
  if (shard) identity["shard"] = fmt::format("{}/{}", shard->index, shard->count);
  if (!only.empty()) identity["only"] = only;
}

std::filesystem::path SweepScope::folder_in(const std::filesystem::path& reports) const {
  return shard           ? reports / "shards" / fmt::format("{}-of-{}", shard->index, shard->count)
         : !only.empty() ? reports / "gate"
                         : reports;
}

SweepScope sweep_scope(const KernelFamily& family, const std::vector<Shape>& shapes, const std::string& variant_glob,
                       const std::string& only, const std::optional<Heuristics>& only_table, const std::string& shard) {
  SweepScope scope;
  scope.only = only;
  if (!only.empty()) {
    scope.selection = gate_selection(only_table.value(), only, family, shapes, variant_glob);
  }
  if (!shard.empty()) {
    scope.shard = parse_shard(shard);
    const std::vector<ShapeVariant> pairs =
        scope.selection.everything()
            ? space_pairs(family, shapes, variant_glob)
            : std::vector<ShapeVariant>(scope.selection.pairs()->begin(), scope.selection.pairs()->end());
    scope.selection = shard_of(pairs, *scope.shard);
  }
  return scope;
}

}  // namespace exactune
