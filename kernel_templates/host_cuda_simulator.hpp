// The simulator behind kernel_templates/host_cuda.hpp: what runs host-compiled
// kernel templates on the CPU as a CUDA launch would run them. Kernel code never
// names it. host_cuda.hpp's built-in variables, barriers and shuffles call into
// it, and the translation unit the host compiler writes exports one launcher
// per kernel through exactune_host::launch and EXACTUNE_HOST_EXPORT. It is a
// header of its own so that the surface a kernel may use reads in one short
// file, apart from the fibers, the scheduler and the inline assembly.
//
// How a launch runs. Every block is executed by one OS thread; its CUDA
// threads are cooperative fibers (small stacks, switched by hand on x86-64,
// by ucontext elsewhere) scheduled by a per-block scheduler. A fiber runs
// until it reaches a warp shuffle, __syncwarp or __syncthreads that not all of
// its warp (or block) has reached, then switches straight to the next fiber
// that can go on: by default the next in round-robin order. A GPU promises no
// order, and a race between two threads' segments shows only under some
// orders: EXACTUNE_HOST_SCHEDULE picks another. reverse: round robin backwards.
// ahead: always the lowest-numbered fiber that can go on, so the first warps
// run as far ahead of the others as barriers let them; behind: the
// highest-numbered, so the last warps do. random:<seed>: a pseudo-random one
// (reproducible per seed and block). A barrier that can never complete (threads
// that diverged or finished) ends the launch with a "deadlock: ..." message
// instead of hanging.
// Blocks of a grid are spread over a few OS threads; each has its own fibers
// and its own __shared__ memory (`static thread_local`: the blocks of one OS
// thread run one at a time).
//
// The table of a GPU's rsqrtf values (EXACTUNE_HOST_RSQRTF_TABLE) is loaded
// here too; host_cuda.hpp's rsqrtf says what it holds and when it is used.
#pragma once

// The runtime is built on the CUDA types host_cuda.hpp declares (dim3, uint3)
// and serves its intrinsics, so it is only ever reached through that header.
#if !defined(EXACTUNE_HOST_CUDA_SURFACE)
#error "host_cuda_simulator.hpp is included by kernel_templates/host_cuda.hpp, after the CUDA types it uses"
#endif

#include <fenv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if !(defined(__x86_64__) && defined(__ELF__)) || defined(EXACTUNE_HOST_UCONTEXT)
#include <ucontext.h>
#define EXACTUNE_HOST_USES_UCONTEXT 1
#else
#define EXACTUNE_HOST_USES_UCONTEXT 0
#endif

// ---------------------------------------------------------------------------
// Runtime: fibers, the per-block scheduler, the grid and the launcher
// ---------------------------------------------------------------------------
namespace exactune_host {
namespace detail {

#ifndef EXACTUNE_HOST_FIBER_STACK_BYTES
#define EXACTUNE_HOST_FIBER_STACK_BYTES (64 * 1024)
#endif
constexpr std::size_t fiber_stack_bytes = EXACTUNE_HOST_FIBER_STACK_BYTES;
constexpr unsigned max_block_threads = 1024;
constexpr unsigned full_warp = 32;

// ---- Context switch --------------------------------------------------------
#if !EXACTUNE_HOST_USES_UCONTEXT
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save_sp, loads load_sp and restores what was saved there. Written
// as a separate assembly function (a COMDAT section, so that several
// translation units may include this header) rather than a naked function:
// the compiler then assumes an ordinary call that clobbers every caller-saved
// register, which is what a switch to another fiber does. MXCSR and the x87
// control word are not switched: all fibers of an OS thread share its FP state.
asm(R"(
  .pushsection .text.exactune_host_switch_stack,"axG",@progbits,exactune_host_switch_stack,comdat
  .globl exactune_host_switch_stack
  .hidden exactune_host_switch_stack
  .type exactune_host_switch_stack,@function
  .p2align 4
exactune_host_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size exactune_host_switch_stack, .-exactune_host_switch_stack
  .popsection
)");
extern "C" void exactune_host_switch_stack(void** save_sp, void* load_sp);

struct execution_context {
  void* sp = nullptr;
};

// Lays out a first frame that exactune_host_switch_stack "returns" into entry
// with the stack aligned as after a call (rsp % 16 == 8).
inline void start_context(execution_context& context, char* stack_low, std::size_t bytes, void (*entry)()) {
  const auto top = reinterpret_cast<std::uintptr_t>(stack_low + bytes) & ~std::uintptr_t{15};
  void** frame = reinterpret_cast<void**>(top) - 8;
  for (int i = 0; i < 6; ++i) frame[i] = nullptr;  // r15, r14, r13, r12, rbx, rbp
  frame[6] = reinterpret_cast<void*>(entry);
  frame[7] = nullptr;  // entry's return address: none, which also ends unwinding
  context.sp = frame;
}

inline void switch_context(execution_context& from, const execution_context& to) {
  exactune_host_switch_stack(&from.sp, to.sp);
}
#else
struct execution_context {
  ucontext_t context;
};

inline void start_context(execution_context& context, char* stack_low, std::size_t bytes, void (*entry)()) {
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = stack_low;
  context.context.uc_stack.ss_size = bytes;
  context.context.uc_link = nullptr;
  makecontext(&context.context, entry, 0);
}

inline void switch_context(execution_context& from, const execution_context& to) {
  swapcontext(&from.context, &to.context);
}
#endif

// ---- Fiber stacks ------------------------------------------------------------
// One mapping for all stacks of a worker, with one guard page below the
// lowest; pages are only committed when touched, and a stack set is reused
// across the blocks of a launch. A guard page under every stack would split
// the mapping at each one: protecting them was most of a CPU verify's time
// (2.2 million mprotect calls, docs/harness-speed.md). Instead the lowest
// bytes of each stack hold a canary band, which a thread running past its
// stack overwrites before it reaches the stack below; a block checks the
// bands when it ends and fails, naming the thread, if one changed.
constexpr std::size_t canary_words = 8;
constexpr std::uint64_t canary_word = 0xe8a5c7d3f1b29604ull;

class stack_set {
 public:
  explicit stack_set(unsigned count) : count_(count) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    bytes_ = page_ + std::size_t{count_} * fiber_stack_bytes;
    void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = memory == MAP_FAILED ? nullptr : static_cast<char*>(memory);
    if (base_ && mprotect(base_, page_, PROT_NONE) != 0) {
      munmap(base_, bytes_);
      base_ = nullptr;
    }
  }
  stack_set(const stack_set&) = delete;
  stack_set& operator=(const stack_set&) = delete;
  ~stack_set() {
    if (base_) munmap(base_, bytes_);
  }
  bool ok() const { return base_ != nullptr; }
  unsigned count() const { return count_; }
  char* stack(unsigned i) const { return base_ + page_ + std::size_t{i} * fiber_stack_bytes; }
  // Lays stack i's canary band; and whether it is still whole.
  void arm(unsigned i) const {
    auto* band = reinterpret_cast<std::uint64_t*>(stack(i));
    for (std::size_t w = 0; w < canary_words; ++w) band[w] = canary_word;
  }
  bool intact(unsigned i) const {
    const auto* band = reinterpret_cast<const std::uint64_t*>(stack(i));
    for (std::size_t w = 0; w < canary_words; ++w) {
      if (band[w] != canary_word) return false;
    }
    return true;
  }

 private:
  unsigned count_;
  std::size_t page_ = 0, bytes_ = 0;
  char* base_ = nullptr;
};

class stack_pool {
 public:
  ~stack_pool() {
    for (stack_set* set : free_) delete set;
  }
  // A set of at least `count` stacks, or nullptr when memory is exhausted.
  stack_set* take(unsigned count) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::size_t i = 0; i < free_.size(); ++i) {
        if (free_[i]->count() >= count) {
          stack_set* set = free_[i];
          free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
          return set;
        }
      }
    }
    auto* set = new stack_set(count);
    if (set->ok()) return set;
    delete set;
    return nullptr;
  }
  // Keeps one idle set, the largest, for the library's next launch: the pages
  // its stacks touched stay committed, so a launch after it faults in none
  // again. Each loaded kernel library has its own pool and a verify run loads
  // hundreds of them: more idle sets would hold their memory all at once.
  void give_back(stack_set* set) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(set);
    if (free_.size() > 1) {
      const auto smallest = std::min_element(
          free_.begin(), free_.end(), [](const stack_set* a, const stack_set* b) { return a->count() < b->count(); });
      delete *smallest;
      free_.erase(smallest);
    }
  }

 private:
  std::mutex mutex_;
  std::vector<stack_set*> free_;
};

inline stack_pool& stacks() {
  static stack_pool pool;
  return pool;
}

// ---- The per-block scheduler --------------------------------------------------
enum class fiber_state : unsigned char { runnable, at_warp_sync, at_block_sync, finished };

struct fiber {
  execution_context context;
  uint3 thread_index;
  unsigned warp = 0, lane = 0;
  unsigned long long warp_syncs = 0;   // warp exchanges this thread entered
  unsigned long long block_syncs = 0;  // __syncthreads this thread entered
  unsigned long long waits_for = 0;    // the exchange/barrier count that releases it
  fiber_state state = fiber_state::runnable;
};

// A warp's shuffle exchange. Each lane writes its value into the slot of its
// current exchange and waits until all lanes have written; two slot sets
// alternate, so one barrier per shuffle suffices: a lane can only write the
// next-but-one exchange after every lane has arrived at the next one, that is,
// after every lane has read this one.
struct warp_exchange {
  unsigned slots[2][full_warp];
  unsigned lanes = 0;      // threads of the block in this warp (the last may be partial)
  unsigned lane_mask = 0;  // their bits
  unsigned arrived = 0;
  unsigned long long completed = 0;
};

// The kernel with its arguments bound, as the fibers call it.
struct kernel_body {
  void (*call)(const void*);
  const void* object;
};

class block_runner {
 public:
  uint3 block_idx{0, 0, 0};
  dim3 block_dim, grid_dim;
  fiber* current = nullptr;

  block_runner(stack_set* stacks, kernel_body body) : stacks_(stacks), body_(body) {}

  // The order fibers take turns in (EXACTUNE_HOST_SCHEDULE).
  enum class schedule { round_robin, reverse, ahead, behind, random };

  // Runs every thread of one block to its end. Returns false with message()
  // filled when the block failed (deadlock, an unsupported operation).
  bool run(uint3 block_idx_value);

  const char* message() const { return message_; }

  // Called by the fibers.
  void warp_sync_wait(fiber& f, unsigned long long exchange) { wait(f, fiber_state::at_warp_sync, exchange); }
  void block_sync();
  warp_exchange& warp_of(const fiber& f) { return warps_[f.warp]; }
  [[noreturn]] void fail(const char* what);
  static void fiber_main();

 private:
  void wait(fiber& f, fiber_state state, unsigned long long releasing_count) {
    f.state = state;
    f.waits_for = releasing_count;
    switch_away(f);
  }
  // Hands the OS thread from f (waiting or finished) to the next fiber, in
  // round-robin order, that can go on; to the scheduler when none can (the
  // block is done, or deadlocked). A fiber-to-fiber switch halves the
  // switches of going through the scheduler.
  void switch_away(fiber& f) {
    fiber* next = next_resumable_after(f);
    if (next == nullptr) {
      switch_context(f.context, scheduler_);
      return;
    }
    next->state = fiber_state::runnable;
    if (next == &f) return;  // f can go on itself
    current = next;
    switch_context(f.context, next->context);
  }
  // Every fiber is looked at once: after f, f itself last (round robin,
  // reverse); from the first or the last (ahead, behind); or from a random one.
  fiber* next_resumable_after(const fiber& f) {
    const std::size_t n = fibers_.size(), self = static_cast<std::size_t>(&f - fibers_.data());
    for (std::size_t step = 0; step < n; ++step) {
      std::size_t index = 0;
      switch (schedule_) {
        case schedule::round_robin: index = (self + 1 + step) % n; break;
        case schedule::reverse: index = (self + n - 1 - step % n) % n; break;
        case schedule::ahead: index = step; break;
        case schedule::behind: index = n - 1 - step; break;
        case schedule::random: index = next_random() % n; break;
      }
      if (can_resume(fibers_[index])) return &fibers_[index];
    }
    // A random pick may miss the one fiber that can go on: then look at all.
    for (std::size_t index = 0; index < n; ++index) {
      if (can_resume(fibers_[index])) return &fibers_[index];
    }
    return nullptr;
  }
  std::uint64_t next_random() {  // xorshift64*
    random_state_ ^= random_state_ >> 12;
    random_state_ ^= random_state_ << 25;
    random_state_ ^= random_state_ >> 27;
    return random_state_ * 0x2545f4914f6cdd1dull;
  }
  // Reads EXACTUNE_HOST_SCHEDULE; false, with message() filled, when it names no order.
  bool choose_schedule();
  bool can_resume(const fiber& f) const {
    switch (f.state) {
      case fiber_state::runnable: return true;
      case fiber_state::at_warp_sync: return warps_[f.warp].completed >= f.waits_for;
      case fiber_state::at_block_sync: return block_syncs_completed_ >= f.waits_for;
      case fiber_state::finished: return false;
    }
    return false;
  }
  void prepare(uint3 block_idx_value);
  void describe_deadlock();

  stack_set* stacks_;
  kernel_body body_;
  execution_context scheduler_;
  std::vector<fiber> fibers_;
  std::vector<warp_exchange> warps_;
  unsigned block_sync_arrived_ = 0;
  unsigned long long block_syncs_completed_ = 0;
  std::size_t finished_ = 0;
  bool failed_ = false;
  char message_[512] = {0};
  schedule schedule_ = schedule::round_robin;
  std::uint64_t random_state_ = 1;
};

// The runner of the block this OS thread is executing (null outside a launch).
inline thread_local block_runner* active_runner = nullptr;

inline void block_runner::fiber_main() {
  block_runner& runner = *active_runner;
  // An exception is turned into a failure after its handler has ended: a fiber
  // abandoned inside a handler would leave it open on this OS thread.
  char thrown[256] = "";
  try {
    runner.body_.call(runner.body_.object);
  } catch (const std::exception& e) {
    std::snprintf(thrown, sizeof thrown, "the kernel threw: %s", e.what());
  } catch (...) {
    std::snprintf(thrown, sizeof thrown, "the kernel threw an exception");
  }
  if (thrown[0] != '\0') runner.fail(thrown);
  fiber& self = *runner.current;
  self.state = fiber_state::finished;
  ++runner.finished_;
  runner.switch_away(self);
  std::abort();  // a finished fiber is never resumed
}

inline void block_runner::fail(const char* what) {
  std::snprintf(message_, sizeof message_, "%s (block (%u,%u,%u), thread (%u,%u,%u))", what, block_idx.x, block_idx.y,
                block_idx.z, current->thread_index.x, current->thread_index.y, current->thread_index.z);
  failed_ = true;
  switch_context(current->context, scheduler_);
  std::abort();  // a failed block is abandoned, never resumed
}

inline void block_runner::block_sync() {
  fiber& f = *current;
  const unsigned long long barrier = f.block_syncs++;
  if (++block_sync_arrived_ == fibers_.size()) {
    block_sync_arrived_ = 0;
    block_syncs_completed_ = barrier + 1;
  } else {
    wait(f, fiber_state::at_block_sync, barrier + 1);
  }
}

inline void block_runner::prepare(uint3 block_idx_value) {
  block_idx = block_idx_value;
  const unsigned threads = block_dim.x * block_dim.y * block_dim.z;
  fibers_.assign(threads, fiber{});
  for (unsigned t = 0; t < threads; ++t) {
    fiber& f = fibers_[t];
    f.thread_index = uint3{t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y)};
    f.warp = t / full_warp;
    f.lane = t % full_warp;
    start_context(f.context, stacks_->stack(t), fiber_stack_bytes, &block_runner::fiber_main);
    stacks_->arm(t);
  }
  warps_.assign((threads + full_warp - 1) / full_warp, warp_exchange{});
  for (unsigned w = 0; w < warps_.size(); ++w) {
    const unsigned lanes = threads - w * full_warp < full_warp ? threads - w * full_warp : full_warp;
    warps_[w].lanes = lanes;
    warps_[w].lane_mask = lanes == full_warp ? 0xffffffffu : (1u << lanes) - 1u;
  }
  block_sync_arrived_ = 0;
  block_syncs_completed_ = 0;
  finished_ = 0;
  failed_ = false;
}

inline void block_runner::describe_deadlock() {
  unsigned at_block = 0, at_warp = 0, finished = 0;
  for (const fiber& f : fibers_) {
    at_block += f.state == fiber_state::at_block_sync;
    at_warp += f.state == fiber_state::at_warp_sync;
    finished += f.state == fiber_state::finished;
  }
  char warp_part[96] = "";
  if (at_warp > 0) std::snprintf(warp_part, sizeof warp_part, ", %u at a warp shuffle/__syncwarp,", at_warp);
  std::snprintf(message_, sizeof message_,
                "deadlock: %u threads wait at __syncthreads%s while %u finished (block (%u,%u,%u) of %u threads); "
                "threads diverged around a barrier",
                at_block, warp_part, finished, block_idx.x, block_idx.y, block_idx.z,
                static_cast<unsigned>(fibers_.size()));
}

// Starts the first fiber; the fibers pass the OS thread among themselves and
// come back here when all have finished, when one failed, or when none of
// those left can go on: a deadlock.
inline bool block_runner::choose_schedule() {
  const char* setting = std::getenv("EXACTUNE_HOST_SCHEDULE");
  schedule_ = schedule::round_robin;
  if (setting == nullptr || std::strcmp(setting, "") == 0 || std::strcmp(setting, "round_robin") == 0) return true;
  for (const auto& [name, order] : {std::pair{"reverse", schedule::reverse}, std::pair{"ahead", schedule::ahead},
                                    std::pair{"behind", schedule::behind}}) {
    if (std::strcmp(setting, name) == 0) {
      schedule_ = order;
      return true;
    }
  }
  char* end = nullptr;
  if (std::strncmp(setting, "random:", 7) == 0) {
    const unsigned long long seed = std::strtoull(setting + 7, &end, 10);
    if (end != setting + 7 && *end == '\0') {
      schedule_ = schedule::random;
      // One sequence per (seed, block): reproducible whatever OS thread runs the block.
      random_state_ = (seed + 1) * 0x9e3779b97f4a7c15ull ^ ((block_idx.x + 1ull) * 0xbf58476d1ce4e5b9ull +
                                                            block_idx.y * 0x94d049bb133111ebull + block_idx.z);
      if (random_state_ == 0) random_state_ = 1;
      return true;
    }
  }
  std::snprintf(message_, sizeof message_,
                "EXACTUNE_HOST_SCHEDULE=%s: expected round_robin, reverse, ahead, behind or random:<seed>", setting);
  return false;
}

inline bool block_runner::run(uint3 block_idx_value) {
  prepare(block_idx_value);
  if (!choose_schedule()) return false;
  current = schedule_ == schedule::random                                     ? &fibers_[next_random() % fibers_.size()]
            : schedule_ == schedule::reverse || schedule_ == schedule::behind ? &fibers_.back()
                                                                              : &fibers_.front();
  switch_context(scheduler_, current->context);
  if (failed_) return false;
  if (finished_ < fibers_.size()) {
    describe_deadlock();
    return false;
  }
  for (unsigned t = 0; t < fibers_.size(); ++t) {
    if (!stacks_->intact(t)) {
      const uint3 thread = fibers_[t].thread_index;
      std::snprintf(message_, sizeof message_,
                    "thread (%u,%u,%u) of block (%u,%u,%u) ran past its %zu-byte stack "
                    "(EXACTUNE_HOST_FIBER_STACK_BYTES)",
                    thread.x, thread.y, thread.z, block_idx.x, block_idx.y, block_idx.z, fiber_stack_bytes);
      return false;
    }
  }
  return true;
}

// ---- Warp exchanges (shuffles, __syncwarp) --------------------------------
enum class shuffle_mode { idx, up, down, bfly };

// The source lane of shfl.sync as PTX defines it (CUDA passes c = ((32 - width)
// << 8) | clamp, clamp 0 for up and 31 otherwise): a lane whose source falls
// outside its width-segment reads its own value. Only b's low five bits count,
// as in hardware: a shuffle down by 32 returns the caller's own value.
inline unsigned shuffle_source_lane(shuffle_mode mode, unsigned lane, unsigned b, unsigned width) {
  const unsigned segment_mask = (full_warp - width) & 31u;
  const unsigned clamp = mode == shuffle_mode::up ? 0u : 31u;
  const int max_lane = static_cast<int>((lane & segment_mask) | (clamp & ~segment_mask & 31u));
  const int min_lane = static_cast<int>(lane & segment_mask);
  const int bval = static_cast<int>(b & 31u);
  const int me = static_cast<int>(lane);
  int source = me;
  bool valid = false;
  switch (mode) {
    case shuffle_mode::up:
      source = me - bval;
      valid = source >= max_lane;
      break;
    case shuffle_mode::down:
      source = me + bval;
      valid = source <= max_lane;
      break;
    case shuffle_mode::bfly:
      source = me ^ bval;
      valid = source <= max_lane;
      break;
    case shuffle_mode::idx:
      source = min_lane | (bval & ~static_cast<int>(segment_mask));
      valid = source <= max_lane;
      break;
  }
  return static_cast<unsigned>(valid ? source : me);
}

// One 32-bit exchange: every lane of the warp contributes `value`; returns the
// value of `source_lane` (the caller's own when that lane does not exist).
inline unsigned exchange_word(unsigned value, unsigned source_lane) {
  block_runner& runner = *active_runner;
  fiber& f = *runner.current;
  warp_exchange& w = runner.warp_of(f);
  const unsigned long long exchange = f.warp_syncs++;
  unsigned* slots = w.slots[exchange & 1];
  slots[f.lane] = value;
  if (++w.arrived == w.lanes) {
    w.arrived = 0;
    w.completed = exchange + 1;
  } else {
    runner.warp_sync_wait(f, exchange + 1);
  }
  return source_lane < w.lanes ? slots[source_lane] : value;
}

inline void check_warp_mask(unsigned mask, const char* intrinsic) {
  block_runner& runner = *active_runner;
  const unsigned needed = runner.warp_of(*runner.current).lane_mask;
  if ((mask & needed) != needed) {
    char what[160];
    std::snprintf(what, sizeof what, "%s with mask 0x%08x: only masks naming every lane of the warp are simulated",
                  intrinsic, mask);
    runner.fail(what);
  }
}

template <class T>
T shuffle(unsigned mask, T value, shuffle_mode mode, unsigned b, int width, const char* intrinsic) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % 4 == 0 && sizeof(T) > 0,
                "shuffles move 32-bit words: use a 4- or 8-byte type");
  check_warp_mask(mask, intrinsic);
  if (width < 1 || width > 32 || (width & (width - 1)) != 0) {
    char what[96];
    std::snprintf(what, sizeof what, "%s with width %d: width must be a power of two up to 32", intrinsic, width);
    active_runner->fail(what);
  }
  const unsigned source = shuffle_source_lane(mode, active_runner->current->lane, b, static_cast<unsigned>(width));
  unsigned words[sizeof(T) / 4];
  std::memcpy(words, &value, sizeof(T));
  for (unsigned& word : words) word = exchange_word(word, source);  // 64-bit types: two shuffles, as CUDA
  T result;
  std::memcpy(&result, words, sizeof(T));
  return result;
}

// ---- The grid -------------------------------------------------------------------
struct grid_job {
  dim3 grid, block;
  kernel_body body;
  unsigned long long blocks = 0;
  std::atomic<unsigned long long> next{0};
  std::atomic<bool> failed{false};
  std::mutex message_mutex;
  char message[512] = {0};
};

// One OS thread's share of the grid: blocks taken one at a time from a
// shared counter, run on this thread's fibers in the default FP environment
// (round to nearest, no flush-to-zero, whatever the caller had set).
inline void run_blocks(grid_job& job) {
  fenv_t caller_environment;
  fegetenv(&caller_environment);
  fesetenv(FE_DFL_ENV);
  block_runner* const outer = active_runner;
  stack_set* const fiber_stacks = stacks().take(job.block.x * job.block.y * job.block.z);
  if (fiber_stacks == nullptr) {
    std::lock_guard<std::mutex> lock(job.message_mutex);
    if (!job.failed.exchange(true)) std::snprintf(job.message, sizeof job.message, "out of memory for fiber stacks");
  } else {
    block_runner runner(fiber_stacks, job.body);
    runner.block_dim = job.block;
    runner.grid_dim = job.grid;
    active_runner = &runner;
    for (;;) {
      const unsigned long long linear = job.next.fetch_add(1);
      if (linear >= job.blocks || job.failed.load(std::memory_order_relaxed)) break;
      const auto gx = static_cast<unsigned long long>(job.grid.x), gy = static_cast<unsigned long long>(job.grid.y);
      const uint3 block_idx{static_cast<unsigned>(linear % gx), static_cast<unsigned>((linear / gx) % gy),
                            static_cast<unsigned>(linear / (gx * gy))};
      if (!runner.run(block_idx)) {
        std::lock_guard<std::mutex> lock(job.message_mutex);
        if (!job.failed.exchange(true)) std::snprintf(job.message, sizeof job.message, "%s", runner.message());
        break;
      }
    }
    stacks().give_back(fiber_stacks);
  }
  active_runner = outer;
  fesetenv(&caller_environment);
}

// What a launch may not ask for, as CUDA would refuse it; null when valid.
inline const char* invalid_geometry(const dim3& grid, const dim3& block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return "the grid has a zero dimension";
  if (block.x == 0 || block.y == 0 || block.z == 0) return "the block has a zero dimension";
  if (grid.x > 0x7fffffffu || grid.y > 65535u || grid.z > 65535u) return "the grid exceeds CUDA's limits";
  if (block.x > 1024u || block.y > 1024u || block.z > 64u) return "the block exceeds CUDA's per-dimension limits";
  if (static_cast<unsigned long long>(block.x) * block.y * block.z > max_block_threads)
    return "the block has more than 1024 threads";
  return nullptr;
}

// The launch message, valid until the next launch on this OS thread.
inline thread_local char launch_message[512];

inline const char* run_grid(const unsigned grid[3], const unsigned block[3], unsigned workers, kernel_body body) {
  grid_job job;
  job.grid = dim3{grid[0], grid[1], grid[2]};
  job.block = dim3{block[0], block[1], block[2]};
  job.body = body;
  if (const char* invalid = invalid_geometry(job.grid, job.block)) {
    std::snprintf(launch_message, sizeof launch_message, "invalid launch: %s (grid (%u,%u,%u), block (%u,%u,%u))",
                  invalid, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    return launch_message;
  }
  job.blocks = static_cast<unsigned long long>(grid[0]) * grid[1] * grid[2];
  if (workers == 0) workers = std::thread::hardware_concurrency();
  if (workers == 0) workers = 1;
  if (workers > job.blocks) workers = static_cast<unsigned>(job.blocks);

  std::vector<std::thread> helpers;
  try {
    for (unsigned i = 1; i < workers; ++i) helpers.emplace_back([&job] { run_blocks(job); });
  } catch (const std::system_error&) {
    // Fewer OS threads than asked for: the ones we have share the grid.
  }
  run_blocks(job);
  for (std::thread& helper : helpers) helper.join();
  if (!job.failed) return nullptr;
  std::snprintf(launch_message, sizeof launch_message, "%s", job.message);
  return launch_message;
}

template <class... Params, std::size_t... I>
const char* launch_with_args(void (*kernel)(Params...), const unsigned grid[3], const unsigned block[3], void** args,
                             unsigned workers, std::index_sequence<I...>) {
  // Every simulated thread calls the kernel with its own copy of the
  // parameters, as CUDA gives every thread the parameter values.
  auto call = [kernel, args]() { kernel(*static_cast<const std::decay_t<Params>*>(args[I])...); };
  using call_type = decltype(call);
  const kernel_body body{[](const void* object) { (*static_cast<const call_type*>(object))(); }, &call};
  return run_grid(grid, block, workers, body);
}

}  // namespace detail

// Runs `kernel` over the grid. args as cuLaunchKernel takes them: one pointer
// to each parameter's value. workers: OS threads (0: one per hardware thread).
// Returns null, or a message (valid until the next launch on this OS thread).
template <class... Params>
const char* launch(void (*kernel)(Params...), const unsigned grid[3], const unsigned block[3], void** args,
                   unsigned workers) noexcept {
  try {
    return detail::launch_with_args(kernel, grid, block, args, workers, std::index_sequence_for<Params...>{});
  } catch (const std::exception& e) {
    std::snprintf(detail::launch_message, sizeof detail::launch_message, "launch failed: %s", e.what());
    return detail::launch_message;
  }
}

}  // namespace exactune_host

// Exports a host launcher from the generated translation unit.
#define EXACTUNE_HOST_EXPORT extern "C" __attribute__((visibility("default")))

// ---------------------------------------------------------------------------
// A GPU's rsqrtf values (EXACTUNE_HOST_RSQRTF_TABLE), for host_cuda.hpp's rsqrtf
// ---------------------------------------------------------------------------
namespace exactune_host {
namespace detail {

struct rsqrtf_table {
  std::string path;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // sorted by input bits
  std::string problem;                                         // why the file cannot be used
};

// Loaded once per path (a test may point at another file between launches).
inline std::shared_ptr<const rsqrtf_table> load_rsqrtf_table(const char* path) {
  static std::mutex mutex;
  static std::shared_ptr<const rsqrtf_table> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded && loaded->path == path) return loaded;
  auto table = std::make_shared<rsqrtf_table>();
  table->path = path;
  if (std::FILE* f = std::fopen(path, "rb")) {
    std::uint32_t pair[2];
    while (std::fread(pair, sizeof pair, 1, f) == 1) table->pairs.emplace_back(pair[0], pair[1]);
    std::fclose(f);
    std::sort(table->pairs.begin(), table->pairs.end());
    if (table->pairs.empty()) table->problem = "holds no (input, rsqrtf) pair";
  } else {
    table->problem = std::string("cannot be read: ") + std::strerror(errno);
  }
  loaded = table;
  return loaded;
}

}  // namespace detail
}  // namespace exactune_host
