// Deterministic mutations of a YAML file, the kind that find a reader's
// mistakes: bytes flipped, replaced, inserted or cut, the file truncated,
// YAML's indicator characters and the format's own keys and awkward values
// (.nan, -1, 2147483648, anchors, aliases, bytes that are not UTF-8) put in,
// lines repeated, dropped or swapped, and pieces of other seeds spliced in.
#pragma once
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace exactune::fuzz {

// The longest input a mutation makes: the seeds are small, and a reader's
// cost grows with the length, not with anything this size misses.
inline constexpr std::size_t kMaxMutatedBytes = 64 * 1024;

class Mutator {
 public:
  // `seeds` are the texts of one reader: the source of splices and of its keys.
  Mutator(std::vector<std::string> seeds, std::uint64_t random_seed);

  // One to four mutations of a seed picked at random.
  std::string next();

 private:
  void mutate(std::string& text);
  std::string random_token();

  std::vector<std::string> seeds_;
  std::vector<std::string> keys_;  // "key:" words found in the seeds
  std::mt19937_64 random_;
};

}  // namespace exactune::fuzz
