// NVRTC compilation with no GPU, on the core's kernels, the toy family's
// (tests/toy_family) and small test templates: a failed compile is an outcome
// with its log; the cache key covers defines; the ptxas report is read for the
// kernel's own entry; a kernel's template includes are followed as the
// compiler resolves them; kernels of one template compile as a batch, one
// program and one cubin, each with its own cache entry, entry point,
// resources and log, and a broken one fails alone; the kernels of a batch share
// one binary, which a cache lookup reads once. That a family's every
// variant compiles is the family's test (families/<name>/tests/cpu).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <exactune/kernel_sources.hpp>

#include "catch.hpp"
#include "compile/compile_summary.hpp"
#include "compile/compiler.hpp"
#include "compile/cubin_resources.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/ptxas_report.hpp"
#include "compile/template_includes.hpp"
#include "support/scratch_directory.hpp"
#include "support/toy_batch.hpp"
#include "util/content_hash.hpp"

using namespace exactune;

namespace {

// A kernel whose code a define decides.
constexpr const char* kDefinedPath = "tests/compile/defined_value.cuh";
const bool kDefinedAdded = add_kernel_source(kDefinedPath, R"(// out = EXACTUNE_TEST_VALUE, a define.
#pragma once

namespace exactune_kernels {

__global__ void write_defined_value(int* out) { out[threadIdx.x] = EXACTUNE_TEST_VALUE; }

}  // namespace exactune_kernels
)");

// A template that includes as a family's does: the shared packets and crash
// hooks by their embedded paths, a file of its own folder by a path relative
// to itself; both reach the shared arithmetic.
const bool kIncludesAdded = add_kernel_source("tests/compile/includes/main.cuh", R"(#pragma once
#include "kernel_templates/packet.cuh"
#include "kernel_templates/planted_crash.cuh"
#include "chain.cuh"
)") && add_kernel_source("tests/compile/includes/chain.cuh", R"(#pragma once
#include "kernel_templates/arith.cuh"
)");

}  // namespace

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

namespace {

// The kernel that writes `value`, compiled for sm_90 under `name`, with `more` defines.
CompileRequest defined_value(const std::string& name, int value, std::vector<std::string> more = {}) {
  REQUIRE(kDefinedAdded);
  more.insert(more.begin(), "EXACTUNE_TEST_VALUE=" + std::to_string(value));
  return {name, kDefinedPath, "&exactune_kernels::write_defined_value", "sm_90", more};
}

}  // namespace

TEST_CASE("the cache key covers defines: a define that changes the code is a different kernel") {
  const CompileCache cache(CompileCache::default_directory());
  const CompileRequest one = defined_value("one", 1), two = defined_value("two", 2);
  const auto outcomes = compile_all({one, two}, cache);
  REQUIRE(outcomes[0].ok);
  REQUIRE(outcomes[1].ok);
  CHECK(outcomes[0].kernel.binary_bytes() != outcomes[1].kernel.binary_bytes());
}

TEST_CASE("the compile summary counts distinct machine code: a define the code ignores leaves the instructions alone") {
  const CompileCache cache(CompileCache::default_directory());
  const CompileRequest one = defined_value("one", 1), two = defined_value("two", 2),
                       one_again = defined_value("one again", 1, {"EXACTUNE_NOTHING_READS_THIS=1"});
  const auto outcomes = compile_all({one, two, one_again}, cache);
  for (const CompileOutcome& o : outcomes) REQUIRE(o.ok);
  const auto code = kernel_code(outcomes[0].kernel.binary_bytes(), outcomes[0].kernel.entry);
  REQUIRE(code);
  CHECK(code == kernel_code(outcomes[2].kernel.binary_bytes(), outcomes[2].kernel.entry));
  CHECK(code != kernel_code(outcomes[1].kernel.binary_bytes(), outcomes[1].kernel.entry));
  CHECK_FALSE(kernel_code(outcomes[0].kernel.binary_bytes(), "no_such_kernel"));
  CHECK_FALSE(kernel_code("not an ELF file at all, not even close to one, long enough to look", "x"));
  const CompileSummary summary = summarize(outcomes);
  CHECK(summary.kernels == 3);
  CHECK(summary.gpu_kernels == 3);
  CHECK(summary.distinct_code == 2);
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
  // By embedded path and beside the including file; the shared arithmetic,
  // reached twice, is listed once. Breadth first, each file once.
  REQUIRE(kIncludesAdded);
  const auto files = included_templates("tests/compile/includes/main.cuh");
  REQUIRE(files.size() == 5);
  CHECK(files[0] == "tests/compile/includes/main.cuh");
  CHECK(files[1] == "kernel_templates/packet.cuh");
  CHECK(files[2] == "kernel_templates/planted_crash.cuh");
  CHECK(files[3] == "tests/compile/includes/chain.cuh");
  CHECK(files[4] == "kernel_templates/arith.cuh");
}

namespace {

// `count` toy kernels of one template, a program of this test's own (`tag`).
std::vector<CompileRequest> batch_of(std::size_t count, const std::string& tag) {
  return exactune_test::toy_batch(count, fmt::format("EXACTUNE_BATCH_TEST={}{}", ::getpid(), tag));
}

bool holds(const CompiledKernel& kernel, const std::string& entry) {
  return kernel.binary_bytes().find(entry) != std::string_view::npos;
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
  const std::vector<CompileRequest> batch = batch_of(3, "a");
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
    CHECK(o.kernel.binary == together.front().kernel.binary);  // the batch's one cubin, shared
    CHECK(o.kernel.binary_path() == together.front().kernel.binary_path());
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
  const std::vector<CompileRequest> others = batch_of(3, "b");
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
  const std::vector<CompileRequest> batch = batch_of(3, "c");
  const std::vector<CompileOutcome> together = compile_nvrtc_batch(batch, cache);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    REQUIRE(together[i].ok);
    const CompileOutcome alone = compile_all({batch[i]}, cache).front();
    REQUIRE(alone.ok);
    CHECK(alone.cache_hit);
    CHECK(alone.kernel.entry == together[i].kernel.entry);
    CHECK(alone.kernel.binary_bytes() == together[i].kernel.binary_bytes());
    CHECK(alone.kernel.resources.registers == together[i].kernel.resources.registers);
    CHECK(alone.log == together[i].log);
  }
}

TEST_CASE("one broken kernel of a batch fails alone with its own log, the others of the batch compile") {
  ScratchDirectory scratch("broken-batch-cache");
  const CompileCache cache(scratch.path());
  std::vector<CompileRequest> batch = batch_of(3, "d");
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
  const std::vector<CompileRequest> requests = batch_of(4, "e");
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
  const std::vector<CompileOutcome> first = compile_nvrtc_batch(batch_of(3, "g"), cache);
  const std::vector<CompileOutcome> second = compile_nvrtc_batch(batch_of(3, "h"), cache);
  REQUIRE(first.front().ok);
  REQUIRE(second.front().ok);
  CHECK(first.front().kernel.binary_bytes() == second.front().kernel.binary_bytes());
  CHECK(files_ending(scratch.path(), ".cubin") == 1);
  CHECK(files_ending(scratch.path(), ".json") == 6);
}

TEST_CASE(
    "the kernels of one batch share one binary, compiled or found in the cache, and a cache lookup reads the "
    "batch's cubin once") {
  ScratchDirectory scratch("shared-binary-cache");
  const std::vector<CompileRequest> batch = batch_of(4, "s");
  const std::vector<CompileOutcome> compiled = compile_nvrtc_batch(batch, CompileCache(scratch.path()));
  for (const CompileOutcome& o : compiled) {
    REQUIRE(o.ok);
    // One object, not equal copies: a batch's cubin is held once however many kernels it holds.
    CHECK(o.kernel.binary.get() == compiled.front().kernel.binary.get());
  }
  const Binary& binary = *compiled.front().kernel.binary;
  CHECK(binary.id == content_hash({binary.bytes}));
  CHECK(files_ending(scratch.path(), ".cubin") == 1);

  // A lookup on a cache object of its own, so that its reads are counted alone.
  const CompileCache cache(scratch.path());
  CompileOptions options;
  options.jobs = 2;
  const std::vector<CompileOutcome> found = compile_all(batch, cache, options);
  for (const CompileOutcome& o : found) {
    REQUIRE(o.ok);
    CHECK(o.cache_hit);
    CHECK(o.kernel.binary.get() == found.front().kernel.binary.get());
  }
  CHECK(found.front().kernel.binary->id == binary.id);
  CHECK(found.front().kernel.binary->bytes == binary.bytes);
  CHECK(found.front().kernel.binary->path == binary.path);
  // Each kernel's own entry, and the cubin they share once.
  CHECK(cache.entries_read() == batch.size() + 1);
}
