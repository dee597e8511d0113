// What `exactune merge` does, for `exactune sweep --devices` too: the shards'
// sweep.yaml files merged (store/sweep_merge.hpp) and written to a folder as
// a whole sweep writes them: sweep.yaml and every report; a merge that is
// still narrowed (shards missing, gate mode) writes its sweep.yaml alone, since
// the choices and tables need the whole space.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "store/chooser_policy.hpp"
#include "store/sweep_merge.hpp"

namespace exactune::cli {

// Prints what it merged and wrote; returns the files written.
std::vector<std::filesystem::path> write_merged_sweep(const std::vector<std::string>& shard_files,
                                                      const std::filesystem::path& out, const MergeOptions& options,
                                                      ChooserPolicy policy);

}  // namespace exactune::cli
