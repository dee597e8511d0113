// What a sweep covers (space/selection.hpp): the pairs a heuristics table
// chose and their runners-up (--only, gate mode: gate/gate_selection.hpp), or
// every pair; then a shard's share of those (--shard i/n, for a fleet). A
// narrowed sweep is a different run from the whole one, and says so: in its
// closing lines, in its journal's identity and in the folder it writes to.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>

#include "space/selection.hpp"
#include "store/heuristics.hpp"
#include "supervise/journal.hpp"

namespace exactune {

struct SweepScope {
  Selection selection;
  std::optional<Shard> shard;
  std::string only;  // the heuristics file of gate mode; "" for none

  // The scope in words for the closing lines; "" for a whole sweep.
  std::string words() const;
  // A narrowed run is a different run: its journal must not be resumed by another shard or table.
  void add_to(RunIdentity& identity) const;
  // Where the sweep writes unless told: `reports` (reports/<gpu-slug>/<family>)
  // for a whole sweep; a narrowed sweep never lands on the whole sweep's
  // reports: shards/<i>-of-<n>/ or gate/ beside them.
  std::filesystem::path folder_in(const std::filesystem::path& reports) const;
};

// The pairs the heuristics table of gate mode chose and their runners-up
// (`only_table`, read from the file `only`; "" and none: every pair of
// `shapes` that `variant_glob` matches), then shard `shard` ("i/n"; "": all)
// of those. Throws exactune::input_error when `shard` is no shard or the
// table does not fit the sweep (gate_selection).
SweepScope sweep_scope(const KernelFamily& family, const std::vector<Shape>& shapes, const std::string& variant_glob,
                       const std::string& only, const std::optional<Heuristics>& only_table, const std::string& shard);

}  // namespace exactune
