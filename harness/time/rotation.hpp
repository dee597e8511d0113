// The rotated hot regime's plan: how many copies of a shape's inputs a CUDA
// graph cycles through so that its working set exceeds twice the L2, and how
// many launches the graph holds. Replaying one set of buffers keeps any shape
// smaller than the L2 resident there, which serving (new activations every
// step) never sees; twice the L2, because its replacement is not strict LRU.
// Pure arithmetic, so that the choice is tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

struct RotationLimits {
  int max_copies = 4096;  // each copy is a workload of its own: allocations, inputs, a graph node per launch
  std::int64_t max_total_bytes = std::int64_t{16} << 30;  // device memory the copies may take together
};

struct RotationPlan {
  Rotation rotation;
  // Whether copies x bytes moved reaches twice the L2; false only where a
  // limit stopped it (a tiny shape), and then the rotated figure is partly
  // L2-resident, which the reports say.
  bool covers_twice_l2 = false;
};

// The smallest count of copies whose bytes together reach twice `l2_bytes`,
// at least 1 and within `limits`. Throws exactune::error when bytes_moved or
// l2_bytes is not positive.
RotationPlan plan_rotation(std::int64_t bytes_moved, std::int64_t l2_bytes, const RotationLimits& limits = {});

// The launches one replay of a hot figure holds, before the rotated regime
// rounds them to its copies: `launches_per_graph`, or fewer for a shape so
// large that fewer launches already keep a replay busy for `min_replay_us` at
// the GPU's peak memory bandwidth (`bytes_per_second`), down to 1. A replay
// pays a fixed cost once, the gap between its start event and its first
// launch, a few microseconds: over at least min_replay_us it stays under 1%
// of the per-launch figure, and a shape moving hundreds of MB a launch is not
// launched 20 times a sample for nothing. 0 for min_replay_us, or a bandwidth
// the driver did not report, keeps launches_per_graph.
int replay_launches(std::int64_t bytes_moved, double bytes_per_second, int launches_per_graph, double min_replay_us);

// The launches one rotated graph holds: the smallest multiple of `copies` that
// is at least `launches_per_graph`, so that every copy is launched equally often.
int rotated_launches(int copies, int launches_per_graph);

// The rotated regime's graphs, each as the copies its launches use, in order.
// Up to `launches_per_graph` copies: one graph of rotated_launches() launches,
// launch i on copy i % copies. More: the copies split in order into the fewest
// graphs of at most `launches_per_graph` launches each (sizes differing by at
// most one), replayed in turn, so that the copies are still cycled through in
// order and each replay (one sample) costs about what an L2-resident one does.
std::vector<std::vector<int>> rotated_graphs(int copies, int launches_per_graph);

}  // namespace exactune
