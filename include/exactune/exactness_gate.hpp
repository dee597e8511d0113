// The exactness gate serving frameworks put in front of a bit-exact fused
// kernel, as one reusable class. The first call of each input signature runs
// both the fused path and the framework's own chain and compares their bits;
// a signature that matches joins the verified set and later calls run fused
// only. A mismatch of the bits disables the fused path for good: every later
// call runs the framework's chain, and the reason is kept. A failure of the
// fused path (an exception: out of memory, a launch error) is no verdict on
// its bits: that call runs the framework's chain, and the failure is counted
// and its text kept. A signature the fused path does not serve is remembered
// (at most `remember_at_most` of them), so that its later calls go straight to
// the framework's chain. During CUDA-graph capture a signature not yet
// verified runs the framework's chain (verification synchronises, which
// capture forbids).
//
// Framework-agnostic: the torch ops of the Python package instantiate it with
// their signature, torch's chain and a bitwise comparison; the CPU tests with
// fakes. Thread-safe. Each thread remembers the last few signatures it saw
// verified (thread_recall.hpp), so that a repeat call is routed fused with no
// lock and no hash; a reset voids what every thread remembers.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include <exactune/thread_recall.hpp>

namespace exactune {

template <class Signature, class Hash = std::hash<Signature>>
class ExactnessGate {
 public:
  enum class Route { fused, verify, framework };

  explicit ExactnessGate(std::size_t remember_at_most = 4096) : remember_at_most_(remember_at_most) {}

  // is_capturing() is asked only for a signature not yet verified: the
  // verified path costs no query of the stream.
  template <class IsCapturing>
  Route route(const Signature& signature, IsCapturing&& is_capturing) const {
    if (disabled_.load(std::memory_order_acquire)) return Route::framework;
    const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
    if (recalls(epoch, signature)) return Route::fused;
    {
      std::shared_lock lock(mutex_);
      if (verified_.count(signature)) {
        remember_verified(epoch, signature);
        return Route::fused;
      }
      if (unserved_.count(signature)) return Route::framework;
    }
    return is_capturing() ? Route::framework : Route::verify;
  }

  // One call through the gate.
  //   is_capturing():        whether a CUDA graph is being captured now
  //   fused():               std::optional<Out>; nullopt when the fused path does not
  //                          serve these inputs (no verdict: the framework runs)
  //   framework():           Out, the reference chain
  //   first_mismatch(a, b):  "" when a and b are the same bits, else where they differ
  //   warn(text):            told once, when the gate closes
  template <class IsCapturing, class Fused, class Framework, class Compare, class Warn>
  auto call(const Signature& signature, IsCapturing&& is_capturing, Fused&& fused, Framework&& framework,
            Compare&& first_mismatch, Warn&& warn) -> decltype(framework()) {
    const Route way = route(signature, is_capturing);
    if (way == Route::framework) return framework();
    decltype(fused()) out;
    try {
      out = fused();
    } catch (const std::exception& e) {
      count_failure(e.what());
      return framework();
    }
    if (!out) {
      remember_unserved(signature);
      return framework();
    }
    if (way == Route::fused) return std::move(*out);
    auto reference = framework();
    if (const std::string mismatch = first_mismatch(*out, reference); !mismatch.empty()) {
      close(mismatch, warn);
      return reference;
    }
    std::uint64_t epoch;
    {
      std::unique_lock lock(mutex_);
      verified_.insert(signature);
      epoch = epoch_.load(std::memory_order_relaxed);
    }
    remember_verified(epoch, signature);
    return std::move(*out);
  }

  bool enabled() const { return !disabled_.load(std::memory_order_acquire); }
  std::string disabled_because() const {
    std::shared_lock lock(mutex_);
    return reason_;
  }
  std::size_t verified_count() const {
    std::shared_lock lock(mutex_);
    return verified_.size();
  }
  // Signatures remembered as not served.
  std::size_t unserved_count() const {
    std::shared_lock lock(mutex_);
    return unserved_.size();
  }
  // Calls whose fused path failed (each ran the framework's chain), and the last failure's text.
  std::size_t failure_count() const { return failures_.load(std::memory_order_relaxed); }
  std::string last_failure() const {
    std::shared_lock lock(mutex_);
    return last_failure_;
  }
  // Opens the gate again with nothing verified or remembered: for tests, never for serving.
  void reset() {
    std::unique_lock lock(mutex_);
    verified_.clear();
    unserved_.clear();
    reason_.clear();
    last_failure_.clear();
    failures_.store(0, std::memory_order_relaxed);
    epoch_.store(new_recall_epoch(), std::memory_order_release);  // every thread's memory of this gate is void
    disabled_.store(false, std::memory_order_release);
  }

 private:
  // What each thread remembers of the signatures it saw verified (thread_recall.hpp).
  using Recall = ThreadRecall<Signature, bool>;
  static bool recalls(std::uint64_t epoch, const Signature& signature) {
    return Recall::recall(epoch, signature) != nullptr;
  }
  static void remember_verified(std::uint64_t epoch, const Signature& signature) {
    Recall::remember(epoch, signature, true);
  }

  void count_failure(const char* what) {
    failures_.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lock(mutex_);
    last_failure_ = std::string("the fused path failed: ") + what;
  }
  // Past the bound the set stops growing: such a signature asks the fused path again each call.
  void remember_unserved(const Signature& signature) {
    std::unique_lock lock(mutex_);
    if (unserved_.size() < remember_at_most_) unserved_.insert(signature);
  }

  template <class Warn>
  void close(const std::string& why, Warn& warn) {
    {
      std::unique_lock lock(mutex_);
      if (disabled_.load(std::memory_order_relaxed)) return;
      reason_ = why;
      disabled_.store(true, std::memory_order_release);
    }
    warn(why);
  }

  const std::size_t remember_at_most_;
  mutable std::shared_mutex mutex_;
  std::unordered_set<Signature, Hash> verified_;
  std::unordered_set<Signature, Hash> unserved_;
  std::atomic<bool> disabled_{false};
  std::atomic<std::uint64_t> epoch_{new_recall_epoch()};
  std::atomic<std::size_t> failures_{0};
  std::string reason_;
  std::string last_failure_;
};

}  // namespace exactune
