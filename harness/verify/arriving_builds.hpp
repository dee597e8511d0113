// The builds of a verify stage as their compile outcomes arrive: compile_all
// runs on a thread of its own and hands each outcome over as it is made (a
// cache hit, or an NVRTC program's kernels together), and verification waits
// for each build's own outcome only. Kernels then go to the device as they
// come out of the compiler, instead of after the whole space: the compile and
// the verification overlap.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <vector>

#include "compile/compiler.hpp"
#include "verify/verifier.hpp"

namespace exactune {

class ArrivingBuilds {
 public:
  // `builds` (their variants and sizes set, their outcomes to come) outlives this.
  explicit ArrivingBuilds(std::vector<VariantBuild>& builds);

  // Build `index`'s outcome is made: it is stored, and whoever waits for it goes on. From any thread.
  void arrive(std::size_t index, const CompileOutcome& outcome);
  // The compile stopped on an error of its own: every wait from now on throws it.
  void fail(std::exception_ptr why);
  // Returns once build `index`'s outcome is in; throws what the compile failed with, if it did first.
  void await(std::size_t index);

 private:
  std::vector<VariantBuild>& builds_;
  std::vector<bool> arrived_;
  std::exception_ptr failed_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace exactune
