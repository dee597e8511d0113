// A thread's memory of the last few lookups it made in a shared, locked table
// (the exactness gate's verified signatures, the runtime's plans), so that a
// repeat lookup on the same thread takes no lock and no hash: one comparison
// per remembered key. A model calls the same few shapes step after step, so
// most calls are repeats.
//
// A table remembers under its epoch, a number unique in the process
// (new_recall_epoch()). A table that changes what a key maps to (a gate's
// reset) takes a new epoch, so that no thread reads what it remembers of the
// old; a table made where another was has its own epoch too.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace exactune {

// A number never given before in this process, never 0.
inline std::uint64_t new_recall_epoch() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Per thread, `Slots` (epoch, key, value) entries shared by every table of
// one (Key, Value) type, replaced in turn.
template <class Key, class Value, std::size_t Slots = 4>
class ThreadRecall {
 public:
  // The value this thread remembered for `key` under `epoch`, or nullptr.
  static const Value* recall(std::uint64_t epoch, const Key& key) {
    for (const Entry& e : memory().entries) {
      if (e.epoch == epoch && *e.key == key) return &e.value;
    }
    return nullptr;
  }

  static void remember(std::uint64_t epoch, const Key& key, Value value) {
    Memory& m = memory();
    Entry& e = m.entries[m.next];
    m.next = (m.next + 1) % Slots;
    e.epoch = epoch;
    e.key = key;
    e.value = std::move(value);
  }

 private:
  struct Entry {
    std::uint64_t epoch = 0;  // 0: empty
    std::optional<Key> key;
    Value value{};
  };
  struct Memory {
    std::array<Entry, Slots> entries;
    std::size_t next = 0;
  };
  static Memory& memory() {
    thread_local Memory m;
    return m;
  }
};

}  // namespace exactune
