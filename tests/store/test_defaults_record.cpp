// The record of verified defaults (store/defaults_record.hpp): the sizes a
// configuration was verified at compact into ranges with a step, which read
// back as written.
#include <string>
#include <vector>

#include "catch.hpp"
#include "store/defaults_record.hpp"
#include "support/recorded_sweep.hpp"

using namespace exactune;
using namespace recorded;

TEST_CASE("sizes compact into ranges with a step, and read back", "[defaults_record]") {
  CHECK(compact_sizes({}).empty());
  CHECK(compact_sizes({8, 4, 12, 16}) == std::vector<SizeRange>{{4, 16, 4}});
  CHECK(compact_sizes({4, 8, 20, 2244}) == std::vector<SizeRange>{{4, 4, 1}, {8, 8, 1}, {20, 20, 1}, {2244, 2244, 1}});
  CHECK(compact_sizes({4, 8, 12, 20, 28, 36}) == std::vector<SizeRange>{{4, 12, 4}, {20, 36, 8}});
  for (const SizeRange& r : {SizeRange{4, 8192, 4}, SizeRange{2244, 2244, 1}}) {
    CHECK(parse_size_range(to_string(r), "t") == r);
  }
  CHECK(to_string({8, 8192, 8}) == "8..8192 step 8");
  CHECK(expand_sizes({{4, 12, 4}, {2244, 2244, 1}}) == std::vector<int>{4, 8, 12, 2244});
  CHECK(contains_size({{8, 8192, 8}}, 8184));
  CHECK_FALSE(contains_size({{8, 8192, 8}}, 8188));
  CHECK(contains(error_of([] { parse_size_range("4..10 step 4", "verified #1"); }), "verified #1: '4..10 step 4'"));
}
