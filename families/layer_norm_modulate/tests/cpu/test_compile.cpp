// NVRTC compilation with no GPU: the whole default space for sm_90, and for sm_80
// and sm_100 every one-row-per-CTA variant at hidden 3072 (what differs between
// architectures is the instruction set, which those cover; the whole space three
// times would take most of CI's time); zero errors, zero spills, and a second
// pass served from the cache.
#include <fmt/format.h>

#include "catch.hpp"
#include "compile/compile_plan.hpp"
#include "compile/compiler.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "compile/ptxas_report.hpp"
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

using namespace exactune;

TEST_CASE("every valid variant of the default shapes compiles for sm_90, and the one-row variants at hidden 3072 for "
          "sm_80 and sm_100, without spills, then comes from the cache") {
  const CompileCache cache(CompileCache::default_directory());
  const KernelFamily& family = layer_norm_modulate_family();
  const CompilePlan sm90 = plan_compiles(family, default_shapes(family).sizes(), {"sm_90"});
  const CompilePlan others = plan_compiles(family, {3072}, {"sm_80", "sm_100"}, "w*_r1_*");
  std::vector<CompileRequest> requests = sm90.support;
  for (const CompilePlan* plan : {&sm90, &others}) {
    requests.insert(requests.end(), plan->variants.begin(), plan->variants.end());
  }
  REQUIRE(sm90.variants.size() > 1000);
  REQUIRE(others.variants.size() > 100);

  const std::vector<CompileOutcome> first = compile_all(requests, cache);
  for (const CompileOutcome& o : first) {
    INFO(o.request.name << " for " << o.request.target << ":\n" << o.log);
    REQUIRE(o.ok);
    CHECK_FALSE(o.kernel.resources.spills());
    CHECK(o.kernel.resources.registers > 0);  // the report was found for this very kernel
    CHECK(o.kernel.resources.stack_frame_bytes == 0);
    CHECK(o.kernel.binary.size() > 0);
    CHECK_FALSE(o.kernel.entry.empty());
  }

  const std::vector<CompileOutcome> second = compile_all(requests, cache);
  const CompileSummary s = summarize(second);
  CHECK(s.failures == 0);
  CHECK(s.cache_hits == requests.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(second[i].kernel.binary == first[i].kernel.binary);
    CHECK(second[i].kernel.resources.registers == first[i].kernel.resources.registers);
  }
}

TEST_CASE("a failed compile is an outcome with its log, not an exception, and the others still compile") {
  const CompileCache cache(CompileCache::default_directory());
  CompileRequest good{"copy", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes", "sm_90", {}};
  CompileRequest bad{"broken", "kernel_templates/copy.cuh", "&exactune_kernels::no_such_kernel", "sm_90", {}};
  const auto outcomes = compile_all({bad, good}, cache);
  REQUIRE(outcomes.size() == 2);
  CHECK_FALSE(outcomes[0].ok);
  CHECK(outcomes[0].log.find("no_such_kernel") != std::string::npos);
  CHECK(outcomes[1].ok);
}

TEST_CASE("the cache key covers defines: a planted fault is a different kernel") {
  const CompileCache cache(CompileCache::default_directory());
  const Variant v = valid_variants(layer_norm_modulate_family(), 3072).front();
  CompileRequest clean = layer_norm_modulate_family().variant_request(v, 3072, "sm_90");
  CompileRequest faulty = clean;
  faulty.defines.push_back("EXACTUNE_PLANTED_FAULT=1");
  const auto outcomes = compile_all({clean, faulty}, cache);
  REQUIRE(outcomes[0].ok);
  REQUIRE(outcomes[1].ok);
  CHECK(outcomes[0].kernel.binary != outcomes[1].kernel.binary);
}

TEST_CASE("the ptxas report is read for the kernel's own entry") {
  const std::string log =
      "ptxas info    : Compiling entry function 'first' for 'sm_90'\n"
      "ptxas info    : Function properties for first\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 20 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 70 registers, used 1 barriers, 48 bytes smem\n";
  const auto r = parse_ptxas_report(log, "k");
  REQUIRE(r);
  CHECK(r->registers == 70);
  CHECK(r->stack_frame_bytes == 16);
  CHECK(r->spill_store_bytes == 8);
  CHECK(r->spill_load_bytes == 4);
  CHECK(r->shared_bytes == 48);
  CHECK(r->spills());
  const auto first = parse_ptxas_report(log, "first");
  REQUIRE(first);
  CHECK(first->registers == 20);
  CHECK_FALSE(first->spills());
  CHECK_FALSE(parse_ptxas_report(log, "absent"));
  CHECK_FALSE(parse_ptxas_report("nothing here", "k"));
}

TEST_CASE("included_templates follows #include from the main file") {
  // The family's template includes the shared packets by their embedded path and
  // its elementwise chain by a path relative to itself; both include the shared
  // arithmetic, which is listed once. Breadth first, each file once.
  const auto files = included_templates("families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh");
  REQUIRE(files.size() == 5);
  CHECK(files[0] == "families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh");
  CHECK(files[1] == "kernel_templates/packet.cuh");
  CHECK(files[2] == "kernel_templates/planted_crash.cuh");
  CHECK(files[3] == "families/layer_norm_modulate/kernels/modulate_chain.cuh");
  CHECK(files[4] == "kernel_templates/arith.cuh");
}
