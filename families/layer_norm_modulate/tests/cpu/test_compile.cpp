// The family's whole space compiles with NVRTC, with no GPU: every valid
// variant for sm_90 at hidden 4096 (the most chunks: the most registers held,
// so any spill shows there first), and a pairwise cover of the space
// (space/pairwise_cover.hpp) at 2240 for sm_90 (its partial last chunk: the
// tail paths) and at 3072 for sm_80 and sm_100 (what differs between
// architectures is the instruction set, which a cover reaches; every GPU sweep
// compiles the whole space for its own); zero errors, zero spills, resources
// the cubin agrees with, and a second pass served from the cache. How the core
// compiles (batches, the cache, the ptxas report) is tests/compile/.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "compile/compile_summary.hpp"
#include "compile/compiler.hpp"
#include "compile/cubin_resources.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "shapes/shape_file.hpp"
#include "space/compile_plan.hpp"
#include "space/pairwise_cover.hpp"

using namespace exactune;

TEST_CASE(
    "every valid variant at hidden 4096 and a pairwise cover at 2240 compile for sm_90, and a cover at 3072 for "
    "sm_80 and sm_100, without spills, then come from the cache") {
  const CompileCache cache(CompileCache::default_directory());
  const KernelFamily& family = layer_norm_modulate_family();
  // Of the default sizes, 4096 and 2240; 3072 lies between and is compiled
  // whole for sm_90 by every GPU sweep. The whole space at three sizes took
  // over a third of CI's test time.
  const std::vector<int> sizes = default_shapes(family).sizes();
  for (int size : {2240, 3072, 4096}) REQUIRE(std::find(sizes.begin(), sizes.end(), size) != sizes.end());
  const CompilePlan sm90 = plan_compiles(family, {4096}, {"sm_90"});
  std::vector<CompileRequest> requests = sm90.support;
  requests.insert(requests.end(), sm90.variants.begin(), sm90.variants.end());
  REQUIRE(sm90.variants.size() > 200);
  for (const auto& [size, target] :
       std::vector<std::pair<int, std::string>>{{2240, "sm_90"}, {3072, "sm_80"}, {3072, "sm_100"}}) {
    const std::vector<Variant> cover = pairwise_cover(valid_variants(family, size));
    REQUIRE(cover.size() > 10);
    for (const Variant& v : cover) requests.push_back(family.variant_request(v, size, target));
  }

  const std::vector<CompileOutcome> first = compile_all(requests, cache);
  for (const CompileOutcome& o : first) {
    INFO(o.request.name << " for " << o.request.target << ":\n" << o.log);
    REQUIRE(o.ok);
    CHECK_FALSE(o.kernel.resources.spills());
    CHECK(o.kernel.resources.registers > 0);  // the report was found for this very kernel
    CHECK(o.kernel.resources.stack_frame_bytes == 0);
    // What the cubin says, the stand-in for a missing report, is the report's.
    const auto figures = read_cubin_figures(o.kernel.binary_bytes(), o.kernel.entry);
    REQUIRE(figures);
    CHECK(figures->registers == o.kernel.resources.registers);
    CHECK(figures->frame_bytes == 0);
    CHECK(figures->shared_bytes == o.kernel.resources.shared_bytes);
    CHECK(o.kernel.binary_bytes().size() > 0);
    CHECK_FALSE(o.kernel.entry.empty());
  }

  const std::vector<CompileOutcome> second = compile_all(requests, cache);
  const CompileSummary s = summarize(second);
  CHECK(s.failures == 0);
  CHECK(s.cache_hits == requests.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(second[i].kernel.binary_bytes() == first[i].kernel.binary_bytes());
    CHECK(second[i].kernel.resources.registers == first[i].kernel.resources.registers);
  }
}
