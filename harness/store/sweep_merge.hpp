// exactune merge: the sweep.yaml files of the shards of one sweep (--shard
// i/n, on one GPU model: a fleet's machines or one host's GPUs) made into the
// sweep.yaml the whole sweep would have written. Shards that ran on other
// GPU models or toolchains, against another reference, on other inputs, with
// other timer settings or strategies, are refused: their figures do not mix.
// Per shape, each variant's record comes from its shard; the copy and the
// reference chain, measured by every shard that had pairs of the shape, are
// the median across those shards, and the copy's range across them (how far
// apart two GPUs of one model measure the same bytes) is folded into the
// shape's run-to-run noise, so that the chooser and the gate take GPU-to-GPU
// differences for noise.
#pragma once
#include <string>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// A shard's sweep.yaml: where it was read from, its text (to locate a field in
// messages) and what it says.
struct ShardFile {
  std::string path;
  std::string text;
  SweepResults results;
};

// Reads each file (parse_sweep_yaml: its errors are located in it).
std::vector<ShardFile> read_shard_files(const std::vector<std::string>& paths);

struct MergeOptions {
  bool allow_partial = false;  // merge even when some shards of the n are missing (recorded in missing_shards)
};

// Throws exactune::input_error "<file>:<line>: ..." naming both files and the
// field when two shards differ in the GPU model (name, arch, SM count), the
// toolchain (driver version, NVRTC version), the family, the reference
// recipe, the seed, the timing method, the strategy or the gate-mode table;
// when a file is not a shard, when two are the same shard or of different
// counts, when shards overlap or define a shape differently, or sweep other
// shapes (a shard that holds two variants of a shape holds every n-th of its
// pairs, so every shard of that sweep holds some); and when some are missing,
// unless options.allow_partial.
SweepResults merge_shards(const std::vector<ShardFile>& shards, const MergeOptions& options = {});

// Shard numbers in words, runs of them as ranges: {2, 3, 4, 7} -> "2-4, 7".
std::string shard_numbers_text(const std::vector<int>& ascending);

}  // namespace exactune
