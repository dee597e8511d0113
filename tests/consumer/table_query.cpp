// A consumer's table query on the CPU: which variant the runtime's tables give
// each (family, GPU, size, rows), against what the generated header's select()
// answers for the same inputs. Prints one line per query and exits 1 on any
// disagreement or error, naming it.
#include <exactune/runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <exactune/exactune_tables.hpp>

#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace {

struct Query {
  const char* family;
  const char* device;
  int cc_major, cc_minor, sm_count;
  int size;
  long long rows;
};

// The runtime's first candidate: the variant it launches where the data is 16-byte aligned.
std::string runtime_choice(const Query& q) {
  char text[1 << 14];
  const int status = exactune_runtime_candidates(q.family, q.device, q.cc_major, q.cc_minor, q.sm_count, q.size, q.rows,
                                                 text, sizeof text);
  if (status != EXACTUNE_OK)
    return std::string("error: ") + exactune_status_name(status) + ": " + exactune_runtime_last_error();
  const char* line = std::strchr(text, '\n');
  if (line == nullptr) return "error: no candidate";
  const char* tab = std::strchr(line + 1, '\t');
  return std::string(line + 1, tab ? tab : line + 1 + std::strlen(line + 1));
}

template <class Select>
std::string header_choice(const Query& q, Select select) {
  const auto c = select(q.device, q.cc_major, q.cc_minor, q.sm_count, q.size, q.rows, 16);
  return c.variant == nullptr ? std::string("eager") : std::string(c.variant);
}

}  // namespace

int main() {
  const Query modulate[] = {{"layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 2048},
                            {"layer_norm_modulate", "NVIDIA H100 80GB HBM3", 9, 0, 132, 3072, 4096}};
  const Query qk[] = {{"qk_head_layer_norm", "NVIDIA H200", 9, 0, 132, 128, 131072}};
  int failures = 0;
  const auto check = [&](const Query& q, const std::string& header) {
    const std::string runtime = runtime_choice(q);
    std::printf("%s %s %d %lld: runtime %s, select() %s\n", q.family, q.device, q.size, q.rows, runtime.c_str(),
                header.c_str());
    if (runtime != header) ++failures;
  };
  for (const Query& q : modulate) {
    check(q, header_choice(q, exactune_heuristics::layer_norm_modulate::select));
  }
  for (const Query& q : qk) check(q, header_choice(q, exactune_heuristics::qk_head_layer_norm::select));
  return failures == 0 ? 0 : 1;
}
