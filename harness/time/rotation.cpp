#include "time/rotation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <exactune/error.hpp>

namespace exactune {

RotationPlan plan_rotation(std::int64_t bytes_moved, std::int64_t l2_bytes, const RotationLimits& limits) {
  if (bytes_moved <= 0 || l2_bytes <= 0) {
    throw error(
        fmt::format("plan_rotation: bytes moved ({}) and L2 bytes ({}) must be positive", bytes_moved, l2_bytes));
  }
  const std::int64_t target = 2 * l2_bytes;
  const std::int64_t wanted = (target + bytes_moved - 1) / bytes_moved;
  const std::int64_t by_memory = std::max<std::int64_t>(1, limits.max_total_bytes / bytes_moved);
  const std::int64_t copies = std::max<std::int64_t>(1, std::min({wanted, by_memory, std::int64_t{limits.max_copies}}));
  RotationPlan plan;
  plan.rotation.copies = static_cast<int>(copies);
  plan.rotation.working_set_bytes = copies * bytes_moved;
  plan.covers_twice_l2 = plan.rotation.working_set_bytes >= target;
  return plan;
}

int replay_launches(std::int64_t bytes_moved, double bytes_per_second, int launches_per_graph, double min_replay_us) {
  const int most = std::max(1, launches_per_graph);
  if (!(min_replay_us > 0) || !(bytes_per_second > 0) || bytes_moved <= 0) return most;
  const double bytes_wanted = min_replay_us * 1e-6 * bytes_per_second;
  const double launches = std::ceil(bytes_wanted / static_cast<double>(bytes_moved));
  return launches >= most ? most : std::max(1, static_cast<int>(launches));
}

int rotated_launches(int copies, int launches_per_graph) {
  const int k = std::max(1, copies);
  const int cycles = (std::max(1, launches_per_graph) + k - 1) / k;
  return cycles * k;
}

std::vector<std::vector<int>> rotated_graphs(int copies, int launches_per_graph) {
  const int k = std::max(1, copies);
  const int per_graph = std::max(1, launches_per_graph);
  std::vector<std::vector<int>> graphs;
  if (k <= per_graph) {
    graphs.emplace_back();
    for (int i = 0; i < rotated_launches(k, per_graph); ++i) graphs.back().push_back(i % k);
    return graphs;
  }
  const int count = (k + per_graph - 1) / per_graph;
  for (int g = 0; g < count; ++g) {
    graphs.emplace_back();
    const int first = static_cast<int>(static_cast<std::int64_t>(g) * k / count);
    const int end = static_cast<int>(static_cast<std::int64_t>(g + 1) * k / count);
    for (int copy = first; copy < end; ++copy) graphs.back().push_back(copy);
  }
  return graphs;
}

}  // namespace exactune
