// A libFuzzer harness of one reader (the one EXACTUNE_FUZZ_READER names, see
// CMakeLists.txt): the same check as the bounded fuzzer's, for a developer's
// longer runs under clang's sanitizers (README.md). A mishandled input aborts,
// and libFuzzer saves it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz/reader_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const exactune::fuzz::Reader* const reader = exactune::fuzz::find_reader(EXACTUNE_FUZZ_READER);
  if (reader == nullptr) std::abort();
  const exactune::fuzz::Verdict verdict = reader->check(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!verdict.ok()) {
    std::fprintf(stderr, "%s: %s\n", EXACTUNE_FUZZ_READER, verdict.problem.c_str());
    std::abort();
  }
  return 0;
}
