// What every reader of a user's file must do with any input at all: read it,
// or refuse it with exactune::input_error "<file>:<line>: <what>" on one line;
// never another exception, a crash, a hang or unbounded memory. One check per
// reader, shared by the bounded fuzzer (fuzz_readers.cpp) and the libFuzzer
// harnesses (libfuzzer_reader.cpp). Where a reader has a writer, what it read
// must also write out and read back to the same text.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace exactune::fuzz {

// The name every input is read under: refusals must name it.
inline constexpr std::string_view kInputName = "fuzz.yaml";

struct Verdict {
  bool accepted = false;
  std::string problem;  // empty: the reader behaved; else what it did wrong

  bool ok() const { return problem.empty(); }
};

struct Reader {
  std::string name;  // the folder of its seeds under the corpus: shapes, sweep, heuristics, ...
  std::function<Verdict(std::string_view text)> check;
};

// shapes (every registered family's shape reader), sweep, heuristics, targets,
// verified_defaults, gate (a candidate sweep.yaml compared with a baseline and
// chosen from, as `exactune gate` and `exactune report` do).
const std::vector<Reader>& readers();
// nullptr when there is no reader of that name.
const Reader* find_reader(std::string_view name);

}  // namespace exactune::fuzz
