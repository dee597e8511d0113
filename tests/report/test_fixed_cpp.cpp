// The fixed C++ of the generated headers (harness/report/generated/): compiled
// as the files stand, in the context a generated header gives them, with the
// system's compiler, so that an error in them fails here, naming their own
// lines, before any header is generated; and pasted as the emitter pastes them.
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "report/fixed_cpp.hpp"
#include "support/host_probe.hpp"
#include "support/scratch_directory.hpp"
#include "util/embedded_files.hpp"

using namespace exactune;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the exactune::error that pasting the file with these slots throws.
std::string paste_failure(const char* path, const std::vector<FixedCppSlot>& slots) {
  try {
    paste_fixed_cpp(path, "n", slots);
  } catch (const error& e) {
    return e.what();
  }
  return "(pasted)";
}

// A family's header around the two files, as the emitter writes it, with tables
// small enough to check each rule of select() by hand: GPU A's table splits
// size 1024 at 100 rows; its default is the wide variant, proven on the host
// at sizes 512 to 2048 in steps of 512; the global default at every multiple
// of 8. GPU R verified its defaults itself (own_record), wide at 512 alone and
// the global default up to 64: the host's record serves it no more.
constexpr const char* kProbe = R"(#include <cstdio>

namespace exactune_heuristics::probe {

struct LaunchConfig {
  int vector_bytes;
  const char* variant;
};
#include "harness/report/generated/table_types.inc.hpp"

inline constexpr Entry kTable[] = {
    {"GPU A", 9, 0, 132, 1024, 100, {8, "narrow"}},
    {"GPU A", 9, 0, 132, 1024, -1, {16, "wide"}},
};
inline constexpr ArchDefault kArchDefaults[] = {
    {"GPU A", 9, 0, 132, false, {16, "wide"}},
    {"GPU R", 8, 9, 84, true, {16, "wide"}},
};
inline constexpr LaunchConfig kGlobalDefault = {8, "safe"};
inline constexpr VerifiedSizes kVerified[] = {
    {"narrow", 1024, 1024, 1, "GPU A"},
    {"wide", 512, 2048, 512, nullptr},
    {"safe", 8, 4096, 8, nullptr},
    {"wide", 512, 512, 1, "GPU R"},
    {"safe", 8, 64, 8, "GPU R"},
};
#include "harness/report/generated/select.inc.hpp"

}  // namespace exactune_heuristics::probe

using namespace exactune_heuristics::probe;

constexpr bool answers(const LaunchConfig& c, const char* variant) { return same_name(c.variant, variant); }

static_assert(answers(select("GPU A", 9, 0, 132, 1024, 50, 16), "narrow"), "rule 2, by name: the first bucket");
static_assert(answers(select("GPU A", 9, 0, 132, 1024, 500, 16), "wide"), "rule 2: the last bucket, unbounded");
static_assert(answers(select(nullptr, 9, 0, 132, 1024, 50, 16), "narrow"), "rule 1 by compute capability and SMs");
static_assert(answers(select("GPU B", 9, 0, 114, 1024, 50, 16), "wide"), "rule 3: by compute capability alone");
static_assert(answers(select("GPU B", 9, 0, 114, 1000, 50, 16), "safe"), "rule 4: the default is not proven at 1000");
static_assert(answers(select("GPU C", 8, 0, 108, 1024, 50, 16), "safe"), "rule 4: no device");
static_assert(runs_eager(select("GPU C", 8, 0, 108, 1001, 50, 16)), "rule 5: nothing proven at 1001");
static_assert(runs_eager(select("GPU A", 9, 0, 132, 1024, 50, 4)), "rule 5: alignment below 8");
static_assert(answers(select("GPU R", 8, 9, 84, 512, 50, 16), "wide"), "GPU R's own evidence serves it");
static_assert(answers(select("GPU R", 8, 9, 84, 64, 50, 16), "safe"), "GPU R's own evidence of the global default");
static_assert(runs_eager(select("GPU R", 8, 9, 84, 1024, 50, 16)), "the host's record serves no GPU with its own");
static_assert(answers(select("GPU S", 8, 9, 20, 512, 50, 16), "wide"), "GPU R's evidence serves the GPUs resolved to it");
static_assert(runs_eager(select("GPU S", 8, 9, 20, 1024, 50, 16)), "and the host's record does not");

int main() { std::printf("%s\n", select("GPU A", 9, 0, 132, 1536, 50, 16).variant); }
)";

}  // namespace

TEST_CASE("the fixed C++ of the generated headers compiles as it stands, and its select() answers by the rules") {
  ScratchDirectory dir("fixed-cpp");
  const std::vector<host_probe::ProbeFile> files = {
      {kTableTypesSource, std::string(embedded_file(kTableTypesSource))},
      {kSelectSource, std::string(embedded_file(kSelectSource))},
  };
  // As it stands, fits() has none of a family's narrowing conditions: it reads none of its arguments.
  CHECK(host_probe::compile_and_run(dir.path(), files, kProbe, "-Wno-unused-parameter") == "wide\n");
}

TEST_CASE("the fixed C++ of select() is pasted with the family's size parameter and its lines in the slots") {
  const std::string pasted = paste_fixed_cpp(
      kSelectSource, "n",
      {{"fallback conditions", "  if (c.wide && n % 8 != 0) return false;\n"}, {"fallback answers", ""}});
  CHECK(pasted.rfind("// What select() answers", 0) == 0);  // the file's own documentation left out
  CHECK_FALSE(contains(pasted, std::string(kSizePlaceholder)));
  CHECK_FALSE(contains(pasted, "-- slot:"));
  CHECK(contains(pasted,
                 "constexpr bool fits(const LaunchConfig& c, int n, int alignment) {\n"
                 "  if (c.wide && n % 8 != 0) return false;\n"
                 "  return true;\n}\n"));
  CHECK(contains(pasted, "verified(c.config, n, device)) return c.config;\n  return kEagerPath;\n}\n"));
  CHECK(contains(pasted, "e.n == n"));

  const std::string types = paste_fixed_cpp(kTableTypesSource, "n", {{"fallback members", "  LaunchConfig narrow;\n"}});
  CHECK(contains(types, "  int n;\n  long long max_rows;\n  LaunchConfig config;\n  LaunchConfig narrow;\n};\n"));
  CHECK(contains(types, "  LaunchConfig config;\n  LaunchConfig narrow;\n};\n\n// A variant proven"));
}

TEST_CASE("pasting the fixed C++ of the generated headers fails where the file and the emitter disagree on a slot") {
  CHECK(contains(paste_failure(kSelectSource, {{"fallback answers", ""}}),
                 "a slot the emitter does not fill: // -- slot: fallback conditions --"));
  CHECK(contains(paste_failure(kTableTypesSource, {{"fallback members", ""}, {"no such slot", ""}}),
                 "no line for slot 'no such slot'"));
}
