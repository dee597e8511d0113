// `exactune sweep --devices all|0,1,...`: every GPU of the host at once. This
// process opens no GPU: it lists them (CUDA driver), groups identical ones
// (name, arch, SM count), and per group of k starts k children, each
// `exactune sweep <the same arguments> --device d --shard i/k --out
// <shards>/<i>` (a normal supervised sweep, --resume included) with its
// output in <shards>/<i>/sweep.log; then it merges each group
// (merge_command.hpp) into reports/<gpu-slug>/<family>/ (or --out/<gpu-slug>).
// Different models each get their own sweep. A child that leaves no
// sweep.yaml fails the command with its log's path; the other groups are
// still merged and written.
#pragma once
#include <string>
#include <vector>

#include "store/chooser_policy.hpp"

namespace exactune::cli {

// "all", or ordinals "0,2"; throws exactune::input_error on a malformed list, a
// repeated ordinal or one beyond the GPUs visible, exactune::error when there is no GPU.
std::vector<int> parse_devices(const std::string& devices);

// Returns the command's exit code: 0 when every child passed and every group merged.
int sweep_on_devices(const std::string& devices, const std::string& out, const std::string& family,
                     ChooserPolicy policy);

}  // namespace exactune::cli
