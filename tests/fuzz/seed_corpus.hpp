// The inputs the fuzzers start from: the seed files kept under a corpus
// folder (<corpus>/<reader>/*), and a valid file of every kind made for each
// registered family that has default shapes, from its shapes and its space,
// so that every family is fuzzed without this code naming one.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>

namespace exactune::fuzz {

struct Seed {
  std::string reader;  // Reader::name
  std::string name;    // the file, or "<generated: FAMILY>"
  std::string text;
};

// Every file under <corpus>/<reader>/, in name order, for every reader folder there.
std::vector<Seed> seed_files(const std::filesystem::path& corpus);
// Per registered family with default shapes: a valid shape file, sweep.yaml,
// heuristics.yaml, targets.yaml, record of verified defaults and gate candidate.
std::vector<Seed> generated_seeds();
// A valid sweep of `family` on two of its default shapes; none without default shapes.
std::optional<SweepResults> generated_sweep(const KernelFamily& family);

}  // namespace exactune::fuzz
