// A recorded sweep of this family to choose from (made of the records of
// support/sweep_records.hpp), and the files a test writes and reads (those of
// support/host_probe.hpp): what test_cli_messages.cpp runs the CLI on. The
// core's tests have the toy family's (support/recorded_sweep.hpp).
#pragma once
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "store/heuristics.hpp"
#include "support/host_probe.hpp"
#include "support/scratch_directory.hpp"
#include "support/sweep_records.hpp"

namespace heuristics_fixture {

using namespace exactune;
namespace fs = std::filesystem;

// The variants the recorded sweep uses, by the axes this test knows; any
// further axis of the family takes its first value.
inline constexpr const char* kAten = "w4_r1_predicated_v8_reload";
inline constexpr const char* kRegisters = "w2_r1_predicated_v8_registers";
inline constexpr const char* kWide = "w2_r1_predicated_v16_reload";
inline constexpr const char* kWideNarrowed = "w2_r1_predicated_v8_reload";
inline constexpr const char* kIncorrect = "w1_r1_predicated_v16_reload";  // the fastest of all, and not exact
inline constexpr const char* kUntimed = "w4_r2_predicated_v8_reload";     // exact, never timed

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The first variant whose name is `prefix` or starts with "<prefix>_".
inline Variant find_variant(const std::string& prefix) {
  for (Candidate& c : enumerate_space(layer_norm_modulate_family(), 4096)) {
    if (c.variant.name == prefix || c.variant.name.rfind(prefix + "_", 0) == 0) return std::move(c.variant);
  }
  FAIL("no variant " << prefix);
  return {};
}

inline std::string full(const std::string& prefix) { return find_variant(prefix).name; }

inline VariantResult timed(const std::string& prefix, double median_us, double spread = 0.005) {
  return recorded::timed(find_variant(prefix), median_us, spread);
}
inline VariantResult incorrect(const std::string& prefix) { return recorded::incorrect(find_variant(prefix)); }
inline VariantResult untimed(const std::string& prefix) { return recorded::untimed(find_variant(prefix)); }

inline ShapeResult shape(const std::string& name, int batch, int tokens, int hidden,
                         std::vector<VariantResult> variants) {
  return recorded::shape_result(modulate_shape(name, batch, tokens, hidden, 1e-6, 1), std::move(variants));
}

// Hidden 2240: three buckets (37, 2048, 8192 rows) and a shape with nothing
// timed; aten's launch shape is within noise of the best at 37 and 2048 rows
// and 6.7% behind at 8192. Hidden 3072: two buckets that the wide variant wins.
inline SweepResults recorded_sweep() {
  SweepResults r = recorded::recorded_header(layer_norm_modulate_family());
  r.shapes.push_back(shape(
      "edge-37", 1, 37, 2240,
      {timed(kWide, 5.00), timed(kAten, 5.05), timed(kRegisters, 5.5), incorrect(kIncorrect), untimed(kUntimed)}));
  r.shapes.push_back(shape("sana", 2, 1024, 2240,
                           {timed(kAten, 10.0), timed(kWide, 10.1), timed(kRegisters, 11.0), incorrect(kIncorrect)}));
  r.shapes.push_back(shape("untimed-4000", 1, 4000, 2240, {untimed(kAten), untimed(kWide)}));
  r.shapes.push_back(shape("big", 1, 8192, 2240,
                           {timed(kRegisters, 30.0), timed(kAten, 32.0), timed(kWide, 33.5), incorrect(kIncorrect)}));
  r.shapes.push_back(shape("flux-image", 1, 4096, 3072, {timed(kWide, 20.0), timed(kRegisters, 21.0)}));
  r.shapes.push_back(shape("flux-joint", 1, 4608, 3072, {timed(kWide, 22.0), timed(kRegisters, 23.0)}));
  return r;
}

using host_probe::read_text;
using host_probe::write_text;

using TempDir = ScratchDirectory;  // the name these tests know it by

}  // namespace heuristics_fixture
