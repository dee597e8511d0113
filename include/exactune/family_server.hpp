// The runtime's half of serving a family: for one problem on one GPU, the
// proven, tuned variant, loaded and ready to launch on the caller's stream. A
// family's C ABI (families/<name>/runtime/) checks its arguments, states the
// problem as a ServedRequest, and launches the plan this returns.
//
// The first sight of a problem resolves it through the tables (runtime
// tables: the device, then the fallback chain), compiles the variant with NVRTC
// through the same on-disk cache as the harness, and loads it in the device's
// primary context. Plans are kept per (device, size, alignment, tuned bucket
// of the row count): every row count of a bucket gets the same variant, so a
// new sequence length resolves nothing, and the grid is computed per call.
// A first sight compiles outside the server's lock: other problems keep being
// served meanwhile (runtime/plan_table.hpp). Every later call is two lookups
// under shared locks: no allocation, no synchronisation, nothing a CUDA graph
// cannot capture.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <exactune/backend.hpp>
#include <exactune/family.hpp>

namespace exactune {

// A call's problem: its device, size and alignment and the tuned bucket its
// rows fall in key the plans a server keeps; its rows make the grid.
struct ServedRequest {
  int device = 0;          // CUDA device ordinal
  int size = 0;            // the value of the family's size parameter
  std::int64_t rows = 0;   // rows of `size` elements
  unsigned alignment = 0;  // bytes (a power of two, at most 16) every pointer and row stride is a multiple of

  bool operator==(const ServedRequest&) const = default;
};

// How a family launches one variant for one request: its geometry, and what
// else its launcher needs to know of the variant, decoded once (e.g. that a
// split grid launches once per tensor).
struct PlannedLaunch {
  LaunchGeometry geometry;
  unsigned family_flags = 0;
};

// A variant's launch over `rows` rows, its parameters decoded once: called on
// every served call, from any thread.
using RowsLaunch = std::function<PlannedLaunch(std::int64_t rows)>;

struct LaunchPlan {
  CUfunction function = nullptr;
  CUcontext context = nullptr;  // the device's primary context, where the function was loaded
  std::string variant;
  std::string step;  // which step of the fallback chain chose it, e.g. "tuned bucket"
  RowsLaunch launch_for_rows;
};

struct ServeOutcome {
  const LaunchPlan* plan = nullptr;      // nullptr: not served
  const std::string* why_not = nullptr;  // set when not served; lives as long as the server
  PlannedLaunch launch{};                // this call's launch (grid for its rows), when served
};

// How many (device, size, alignment, bucket) problems a server keeps plans
// for; past it a new problem runs the framework's chain, logged once.
inline constexpr std::size_t kServedProblemsBound = 4096;

// A candidate of the tables is launched when it is valid at the request's size,
// was verified bit-exact there (the tables' verified sizes), and no size
// fallback of the family (KernelFamily::size_fallbacks) rules it out for the
// request's alignment: e.g. 16-byte loads on 8-byte aligned data. A request
// no candidate passes is not served (run the framework's chain), logged once.
class FamilyServer {
 public:
  // The variant's launch at `size` over any number of rows, decoded once;
  // resident_ctas(block_threads), which it may keep and call per call, is how
  // many CTAs of it the GPU holds at once (for persistent grids).
  using ResidentCtas = std::function<unsigned(unsigned block_threads)>;
  using Geometry = std::function<RowsLaunch(const Variant&, int size, const ResidentCtas&)>;

  FamilyServer(const KernelFamily& family, Geometry geometry, std::size_t bound = kServedProblemsBound);
  ~FamilyServer();
  FamilyServer(const FamilyServer&) = delete;
  FamilyServer& operator=(const FamilyServer&) = delete;

  // Thread-safe. Not served when no candidate of the tables may take the
  // request, when the server already holds `bound` problems, or when its first
  // sight comes while `stream` is being captured into a CUDA graph (compiling
  // and loading cannot be captured: call once outside capture first). Throws
  // exactune::error when the GPU, the tables or the compiler fail; the next
  // call of that problem tries again.
  ServeOutcome serve(const ServedRequest& request, CUstream stream);

  // Queues the plan on `stream` with this call's geometry (args as
  // cuLaunchKernel takes them), with the plan's context current on this
  // thread. No allocation, no synchronisation.
  static CUresult launch(const LaunchPlan& plan, const LaunchGeometry& geometry, CUstream stream, void** args);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The runtime's log (stderr, "exactune: ..."), each distinct line once per
// process; EXACTUNE_LOG=0 silences it.
void runtime_log_once(const std::string& line);

}  // namespace exactune
