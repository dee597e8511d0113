// A kernel's resources read from its cubin (compile/cubin_resources.hpp), the
// stand-in for a ptxas report that NVRTC left out: the same figures as the
// report wherever both exist, for kernels with and without static shared
// memory, on each architecture; and a damaged cubin read no further than its end.
#include <string_view>

#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compiler.hpp"
#include "compile/cubin_resources.hpp"
#include "compile/ptxas_report.hpp"

using namespace exactune;

namespace {

// Two core kernels in one NVRTC program each time (one cubin holds both):
// copy_bytes has no shared memory, compare_bits some.
std::vector<CompileOutcome> core_kernels(const std::string& target) {
  const CompileCache cache(CompileCache::default_directory());
  return compile_all({{"copy", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes", target, {}},
                      {"compare", "kernel_templates/compare_bits.cuh", "&exactune_kernels::compare_bits", target, {}}},
                     cache);
}

std::string_view bytes_of(const CompiledKernel& k) { return k.binary_bytes(); }

}  // namespace

TEST_CASE("the cubin gives the ptxas report's registers, frame and static shared memory", "[cubin_resources]") {
  for (const char* target : {"sm_80", "sm_90", "sm_100"}) {
    bool some_shared = false;
    for (const CompileOutcome& o : core_kernels(target)) {
      INFO(o.request.name << " for " << target << ":\n" << o.log);
      REQUIRE(o.ok);
      const std::optional<KernelResources> reported = parse_ptxas_report(o.log, o.kernel.entry);
      REQUIRE(reported);  // this machine's NVRTC prints its reports
      const std::optional<CubinFigures> figures = read_cubin_figures(bytes_of(o.kernel), o.kernel.entry);
      REQUIRE(figures);
      CHECK(figures->registers == reported->registers);
      CHECK(figures->frame_bytes == reported->stack_frame_bytes);
      CHECK(figures->shared_bytes == reported->shared_bytes);
      some_shared |= reported->shared_bytes > 0;
      const std::optional<KernelResources> stand_in = resources_from_cubin(bytes_of(o.kernel), o.kernel.entry);
      REQUIRE(stand_in);
      CHECK(stand_in->registers == reported->registers);
      CHECK(stand_in->spill_store_bytes == 0);
      CHECK(stand_in->spill_load_bytes == 0);
      CHECK(stand_in->shared_bytes == reported->shared_bytes);
    }
    CHECK(some_shared);
  }
}

TEST_CASE("a cubin that lacks the kernel, or is cut short or is no ELF, gives nothing and reads nothing past its end",
          "[cubin_resources]") {
  const std::vector<CompileOutcome> outcomes = core_kernels("sm_90");
  REQUIRE(outcomes.front().ok);
  const CompiledKernel& copy = outcomes.front().kernel;
  const std::string_view whole = bytes_of(copy);
  CHECK_FALSE(read_cubin_figures(whole, "no_such_kernel"));
  CHECK_FALSE(read_cubin_figures("", copy.entry));
  CHECK_FALSE(
      read_cubin_figures("not an ELF file at all, but long enough to hold a header of sixty-four bytes", copy.entry));
  // Prefixes of the file (a copy of their own each, so that no byte past the
  // cut is there to read): figures from a cut file are the whole file's, or none.
  const std::optional<CubinFigures> complete = read_cubin_figures(whole, copy.entry);
  REQUIRE(complete);
  for (std::size_t n = 0; n < whole.size(); n += 7) {
    const std::string cut(whole.substr(0, n));
    if (const std::optional<CubinFigures> figures = read_cubin_figures(cut, copy.entry)) {
      INFO("cut at " << n << " of " << whole.size());
      CHECK(figures->registers == complete->registers);
      CHECK(figures->frame_bytes == complete->frame_bytes);
    }
  }
  // A cubin whose bytes are all changed after the header is still read within bounds.
  std::string scrambled(whole);
  for (std::size_t i = 64; i < scrambled.size(); ++i) scrambled[i] = static_cast<char>(scrambled[i] * 31 + 7);
  (void)read_cubin_figures(scrambled, copy.entry);
}
