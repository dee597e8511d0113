#include "store/heuristics.hpp"

namespace exactune {

const Choice* DeviceHeuristics::choice_for(int size, std::int64_t rows) const {
  for (const Choice& c : choices) {
    if (c.covers(size, rows)) return &c;
  }
  return nullptr;
}

}  // namespace exactune
