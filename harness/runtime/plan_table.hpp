// The runtime's table of what a problem's first sight resolved (its plan, or
// why it is not served), for FamilyServer (family_server.cpp). One concern:
//   - a hit takes a reader lock and one hash, never the exclusive lock; a
//     thread's repeat of a key it found takes neither (thread_recall.hpp);
//   - a new key is resolved outside the table's lock, once: other keys keep
//     being found and resolved meanwhile (a first sight compiles with NVRTC
//     for seconds), and callers of the same key wait for the one resolving it;
//   - a resolution that throws is not kept, so the next call tries again (an
//     out-of-memory error passes; a wrong kernel is the exactness gate's
//     business, above the runtime);
//   - at most `capacity` keys: past it a new key is not resolved and the
//     caller runs the framework's chain, so no stream of new problems grows
//     the table without bound.
// A value, once resolved, stays where it is for the table's life: callers keep
// pointers to it.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <exactune/thread_recall.hpp>

namespace exactune {

template <class Key, class Value, class Hash>
class PlanTable {
 public:
  explicit PlanTable(std::size_t capacity) : capacity_(capacity) {}
  PlanTable(const PlanTable&) = delete;
  PlanTable& operator=(const PlanTable&) = delete;

  // The value of `key` if it was resolved; nullptr if not (yet).
  const Value* find(const Key& key) const {
    if (const Value* const* recalled = Recall::recall(epoch_, key)) return *recalled;
    std::shared_lock lock(mutex_);
    const auto it = slots_.find(key);
    if (it == slots_.end() || !it->second->ready.load(std::memory_order_acquire)) return nullptr;
    Recall::remember(epoch_, key, &it->second->value);
    return &it->second->value;
  }

  // The value of `key`, resolved by `resolve()` at first sight; nullptr when
  // the table holds `capacity` keys and `key` is not one of them. Whatever
  // `resolve` throws reaches the caller, and the key stays unresolved.
  template <class Resolve>
  const Value* get(const Key& key, Resolve&& resolve) {
    if (const Value* value = find(key)) return value;
    std::shared_ptr<Slot> slot;
    {
      std::unique_lock lock(mutex_);
      auto it = slots_.find(key);
      if (it == slots_.end()) {
        if (slots_.size() >= capacity_) return nullptr;
        it = slots_.emplace(key, std::make_shared<Slot>()).first;
      }
      slot = it->second;
    }
    std::lock_guard resolving(slot->mutex);  // this key's callers only
    if (!slot->ready.load(std::memory_order_acquire)) {
      slot->value = resolve();
      slot->ready.store(true, std::memory_order_release);
    }
    return &slot->value;
  }

  // Keys held, resolved or not.
  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return slots_.size();
  }
  std::size_t capacity() const { return capacity_; }

 private:
  // A value never moves nor changes once resolved, so a thread may keep its address.
  using Recall = ThreadRecall<Key, const Value*>;
  struct Slot {
    std::mutex mutex;
    std::atomic<bool> ready{false};
    Value value{};
  };
  mutable std::shared_mutex mutex_;
  std::unordered_map<Key, std::shared_ptr<Slot>, Hash> slots_;
  const std::size_t capacity_;
  const std::uint64_t epoch_ = new_recall_epoch();
};

}  // namespace exactune
