// NVRTC compilation with no GPU: the whole space for sm_90 at hidden 4096 (the
// most chunks: the most registers held, so any spill shows there first), and a
// pairwise cover of the space (space/pairwise_cover.hpp) at 2240 for sm_90
// (its partial last chunk: the tail paths) and at 3072 for sm_80 and sm_100
// (what differs between architectures is the instruction set, which a cover
// reaches; every GPU sweep compiles the whole space for its own); zero errors,
// zero spills, resources the cubin agrees with, and a second pass served from
// the cache; kernels of one template compiled as a batch, each with its own
// cache entry, and a broken one failing alone.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "compile/compile_summary.hpp"
#include "compile/compiler.hpp"
#include "compile/cubin_resources.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/ptxas_report.hpp"
#include "compile/template_includes.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "shapes/shape_file.hpp"
#include "space/compile_plan.hpp"
#include "space/pairwise_cover.hpp"
#include "support/scratch_directory.hpp"

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
    const auto figures = read_cubin_figures({o.kernel.binary.data(), o.kernel.binary.size()}, o.kernel.entry);
    REQUIRE(figures);
    CHECK(figures->registers == o.kernel.resources.registers);
    CHECK(figures->frame_bytes == 0);
    CHECK(figures->shared_bytes == o.kernel.resources.shared_bytes);
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

namespace {

// The family's three eager kernels, one template: a small batch. The define,
// unused by the template, makes the program one no other test compiled (the
// H200 machine's NVRTC reports ptxas figures for a process's first compile of
// a program only); `tag` tells this test's programs apart.
std::vector<CompileRequest> eager_batch(const std::string& tag) {
  std::vector<CompileRequest> batch;
  for (const CompileRequest& r : layer_norm_modulate_family().support_requests("sm_90")) {
    if (r.name.rfind("eager_", 0) != 0) continue;
    batch.push_back(r);
    batch.back().defines.push_back(fmt::format("EXACTUNE_BATCH_TEST={}{}", ::getpid(), tag));
  }
  REQUIRE(batch.size() == 3);
  return batch;
}

// The first `count` valid variants at hidden 3072: template instantiations, so
// a program's cubin holds the kernels it was asked for and no others.
std::vector<CompileRequest> fused_requests(std::size_t count, const std::string& tag) {
  const std::vector<Variant> variants = valid_variants(layer_norm_modulate_family(), 3072);
  REQUIRE(variants.size() >= count);
  std::vector<CompileRequest> requests;
  for (std::size_t i = 0; i < count; ++i) {
    requests.push_back(layer_norm_modulate_family().variant_request(variants[i], 3072, "sm_90"));
    requests.back().defines.push_back(fmt::format("EXACTUNE_BATCH_TEST={}{}", ::getpid(), tag));
  }
  return requests;
}

bool holds(const CompiledKernel& kernel, const std::string& entry) {
  return std::string(kernel.binary.begin(), kernel.binary.end()).find(entry) != std::string::npos;
}

std::size_t files_ending(const std::filesystem::path& directory, const std::string& suffix) {
  std::size_t count = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(directory)) {
    const std::string name = f.path().filename().string();
    count += name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return count;
}

}  // namespace

TEST_CASE(
    "a batch of kernels compiles as one program, and each kernel gets its own cache entry, entry point, "
    "resources and log, the same resources as compiled alone") {
  ScratchDirectory scratch("batch-cache");
  const CompileCache cache(scratch.path());
  const std::vector<CompileRequest> batch = fused_requests(3, "a");
  const std::vector<CompileOutcome> together = compile_nvrtc_batch(batch, cache);
  REQUIRE(together.size() == batch.size());
  std::set<std::string> entries;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const CompileOutcome& o = together[i];
    INFO(o.request.name << ":\n" << o.log);
    REQUIRE(o.ok);
    CHECK(o.request.name == batch[i].name);
    CHECK(o.kernel.resources.registers > 0);
    for (const CompileOutcome& mate : together) CHECK(holds(o.kernel, mate.kernel.entry));
    CHECK(o.kernel.binary == together.front().kernel.binary);  // the batch's one cubin
    CHECK(o.kernel.binary_path == together.front().kernel.binary_path);
    CHECK(o.log.find("'" + o.kernel.entry + "'") != std::string::npos);
    for (const CompileOutcome& other : together) {
      if (other.kernel.entry != o.kernel.entry) CHECK(o.log.find("'" + other.kernel.entry + "'") == std::string::npos);
    }
    entries.insert(o.kernel.entry);
  }
  CHECK(entries.size() == batch.size());
  CHECK(files_ending(scratch.path(), ".json") == batch.size());
  CHECK(files_ending(scratch.path(), ".cubin") == 1);

  ScratchDirectory alone_scratch("alone-cache");
  const CompileCache alone_cache(alone_scratch.path());
  const std::vector<CompileRequest> others = fused_requests(3, "b");
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const CompileOutcome alone = compile_nvrtc_batch({others[i]}, alone_cache).front();
    REQUIRE(alone.ok);
    CHECK(alone.kernel.entry == together[i].kernel.entry);
    CHECK_FALSE(holds(alone.kernel, together[(i + 1) % batch.size()].kernel.entry));
    CHECK(alone.kernel.resources.registers == together[i].kernel.resources.registers);
    CHECK(alone.kernel.resources.spill_store_bytes == together[i].kernel.resources.spill_store_bytes);
    CHECK(alone.kernel.resources.stack_frame_bytes == together[i].kernel.resources.stack_frame_bytes);
    CHECK(alone.kernel.resources.shared_bytes == together[i].kernel.resources.shared_bytes);
  }
}

TEST_CASE("a kernel compiled in a batch is a cache hit when asked for alone later") {
  ScratchDirectory scratch("batch-hit-cache");
  const CompileCache cache(scratch.path());
  const std::vector<CompileRequest> batch = eager_batch("c");
  const std::vector<CompileOutcome> together = compile_nvrtc_batch(batch, cache);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    REQUIRE(together[i].ok);
    const CompileOutcome alone = compile_all({batch[i]}, cache).front();
    REQUIRE(alone.ok);
    CHECK(alone.cache_hit);
    CHECK(alone.kernel.entry == together[i].kernel.entry);
    CHECK(alone.kernel.binary == together[i].kernel.binary);
    CHECK(alone.kernel.resources.registers == together[i].kernel.resources.registers);
    CHECK(alone.log == together[i].log);
  }
}

TEST_CASE("one broken kernel of a batch fails alone with its own log; the others of the batch compile") {
  ScratchDirectory scratch("broken-batch-cache");
  const CompileCache cache(scratch.path());
  std::vector<CompileRequest> batch = eager_batch("d");
  CompileRequest broken = batch.front();
  broken.name = "broken";
  broken.name_expression = "&exactune_kernels::no_such_kernel";
  batch.insert(batch.begin() + 1, broken);
  const std::vector<CompileOutcome> outcomes = compile_nvrtc_batch(batch, cache);
  REQUIRE(outcomes.size() == 4);
  CHECK_FALSE(outcomes[1].ok);
  CHECK(outcomes[1].log.find("no_such_kernel") != std::string::npos);
  for (std::size_t i : {0, 2, 3}) {
    INFO(outcomes[i].request.name << ":\n" << outcomes[i].log);
    CHECK(outcomes[i].ok);
    CHECK(outcomes[i].kernel.resources.registers > 0);
    CHECK(outcomes[i].log.find("no_such_kernel") == std::string::npos);
  }
}

TEST_CASE(
    "compile_all compiles the misses of one program in batches that keep every worker busy, and reports "
    "progress once per kernel") {
  ScratchDirectory scratch("progress-cache");
  const CompileCache cache(scratch.path());
  const std::vector<CompileRequest> requests = fused_requests(4, "e");
  std::vector<std::size_t> reported;
  CompileOptions options;
  options.jobs = 1;
  options.on_progress = [&](const CompileProgress& p) {
    CHECK(p.total == requests.size());
    reported.push_back(p.done);
  };
  const std::vector<CompileOutcome> outcomes = compile_all(requests, cache, options);
  CHECK(reported == std::vector<std::size_t>{1, 2, 3, 4});
  for (const CompileOutcome& o : outcomes) REQUIRE(o.ok);
  // Four misses on one worker make two batches of two, in request order.
  CHECK(holds(outcomes[0].kernel, outcomes[1].kernel.entry));
  CHECK_FALSE(holds(outcomes[0].kernel, outcomes[2].kernel.entry));
  CHECK(holds(outcomes[3].kernel, outcomes[2].kernel.entry));
  CHECK_FALSE(holds(outcomes[3].kernel, outcomes[1].kernel.entry));
  CHECK(files_ending(scratch.path(), ".cubin") == 2);
  CHECK(files_ending(scratch.path(), ".json") == 4);
}

TEST_CASE("a cubin that two programs make alike is stored once, under its content hash") {
  ScratchDirectory scratch("shared-cubin-cache");
  const CompileCache cache(scratch.path());
  // The two batches differ by an unused define only: the same cubin.
  const std::vector<CompileOutcome> first = compile_nvrtc_batch(eager_batch("g"), cache);
  const std::vector<CompileOutcome> second = compile_nvrtc_batch(eager_batch("h"), cache);
  REQUIRE(first.front().ok);
  REQUIRE(second.front().ok);
  CHECK(first.front().kernel.binary == second.front().kernel.binary);
  CHECK(files_ending(scratch.path(), ".cubin") == 1);
  CHECK(files_ending(scratch.path(), ".json") == 6);
}
