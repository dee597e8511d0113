#include "fuzz/mutator.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace exactune::fuzz {
namespace {

// YAML's indicators and structure, and bytes a text reader must survive.
constexpr std::array<std::string_view, 34> kSyntax = {",",
                                                      "[",
                                                      "]",
                                                      "{",
                                                      "}",
                                                      ": ",
                                                      "- ",
                                                      "? ",
                                                      "&a ",
                                                      "*a",
                                                      "!",
                                                      "!!str ",
                                                      "|",
                                                      ">",
                                                      "'",
                                                      "\"",
                                                      "%",
                                                      "@",
                                                      "`",
                                                      "#",
                                                      "\n",
                                                      "\t",
                                                      "---\n",
                                                      "...\n",
                                                      "~",
                                                      "\\",
                                                      "\xc3",
                                                      "\xff",
                                                      std::string_view("\0", 1),
                                                      "\r",
                                                      "\xef\xbb\xbf",
                                                      "  ",
                                                      "\n  - ",
                                                      ":"};

// Values that sit on an edge of some range or type.
constexpr std::array<std::string_view, 30> kValues = {".nan",        "-.inf",      ".inf",
                                                      "nan",         "inf",        "-1",
                                                      "0",           "-2",         "2147483648",
                                                      "-2147483649", "4294967296", "99999999999999999999",
                                                      "1e400",       "-0.0",       "1e-400",
                                                      "0x10",        "true",       "yes",
                                                      "null",        "\"\"",       "''",
                                                      "[]",          "{}",         "\"2147483648\"",
                                                      "\"\\n\"",     "\"\\x00\"",  "\"a\\u0085b\"",
                                                      "&x [1]",      "*x",         "\"\xff\""};

}  // namespace

Mutator::Mutator(std::vector<std::string> seeds, std::uint64_t random_seed)
    : seeds_(std::move(seeds)), random_(random_seed) {
  // The format's keys: every word directly before a ':'.
  std::set<std::string> keys;
  for (const std::string& seed : seeds_) {
    for (std::size_t colon = seed.find(':'); colon != std::string::npos; colon = seed.find(':', colon + 1)) {
      std::size_t start = colon;
      while (start > 0 && (std::isalnum(static_cast<unsigned char>(seed[start - 1])) || seed[start - 1] == '_'))
        --start;
      if (start < colon) keys.insert(seed.substr(start, colon - start + 1));
    }
  }
  keys_.assign(keys.begin(), keys.end());
}

std::string Mutator::random_token() {
  std::uniform_int_distribution<int> kind(0, 2);
  const auto pick = [&](const auto& list) { return std::string(list[random_() % list.size()]); };
  switch (kind(random_)) {
    case 0: return pick(kSyntax);
    case 1: return pick(kValues);
    default: return keys_.empty() ? pick(kSyntax) : pick(keys_) + " " + pick(kValues);
  }
}

void Mutator::mutate(std::string& text) {
  const auto position = [&](std::size_t size) {
    return size == 0 ? 0 : static_cast<std::size_t>(random_() % (size + 1));
  };
  // The start of each line, for the line-wise mutations.
  const auto lines = [&] {
    std::vector<std::size_t> starts = {0};
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n' && i + 1 < text.size()) starts.push_back(i + 1);
    }
    return starts;
  };
  const auto line_at = [&](std::size_t start) {
    const std::size_t end = text.find('\n', start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
  };
  switch (random_() % 10) {
    case 0:  // flip a bit
      if (!text.empty()) text[random_() % text.size()] ^= static_cast<char>(1u << (random_() % 8));
      break;
    case 1:  // replace a byte
      if (!text.empty()) text[random_() % text.size()] = static_cast<char>(random_() % 256);
      break;
    case 2: {  // cut a few bytes out
      const std::size_t at = position(text.size());
      text.erase(at, 1 + random_() % 16);
      break;
    }
    case 3:  // truncate
      text.resize(position(text.size()));
      break;
    case 4:  // insert syntax, a value or a key
      text.insert(position(text.size()), random_token());
      break;
    case 5: {  // replace a value: what follows ": " up to the end of its line, or a ',' or '}'
      const std::size_t colon = text.find(": ", position(text.size()));
      if (colon == std::string::npos) break;
      const std::size_t end = text.find_first_of(",}\n", colon + 2);
      text.replace(colon + 2, (end == std::string::npos ? text.size() : end) - colon - 2, random_token());
      break;
    }
    case 6: {  // repeat a line
      const std::vector<std::size_t> starts = lines();
      const std::string line = line_at(starts[random_() % starts.size()]);
      text.insert(starts[random_() % starts.size()], line);
      break;
    }
    case 7: {  // drop a line
      const std::vector<std::size_t> starts = lines();
      const std::size_t start = starts[random_() % starts.size()];
      text.erase(start, line_at(start).size());
      break;
    }
    case 8: {  // swap two lines
      const std::vector<std::size_t> starts = lines();
      std::size_t a = starts[random_() % starts.size()], b = starts[random_() % starts.size()];
      if (a == b) break;
      if (a > b) std::swap(a, b);
      const std::string first = line_at(a), second = line_at(b);
      text.replace(b, second.size(), first);
      text.replace(a, first.size(), second);
      break;
    }
    default: {  // splice in a piece of another seed
      const std::string& other = seeds_[random_() % seeds_.size()];
      const std::size_t from = position(other.size());
      text.insert(position(text.size()), other.substr(from, 1 + random_() % 256));
      break;
    }
  }
  if (text.size() > kMaxMutatedBytes) text.resize(kMaxMutatedBytes);
}

std::string Mutator::next() {
  std::string text = seeds_[random_() % seeds_.size()];
  for (int n = 1 + static_cast<int>(random_() % 4); n > 0; --n) mutate(text);
  return text;
}

}  // namespace exactune::fuzz
