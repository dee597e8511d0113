// What the compiler produces for one kernel: the binary, how to find the entry
// point in it, and what the compiler reported about its resources.
//
// A binary holds a whole batch (an NVRTC batch's cubin has up to 32 kernels, a
// host library dozens), so the kernels of a batch share one Binary instead of
// each holding a copy: a process holds each binary once, a cache lookup reads
// and checks each once, and a backend loads each once, keyed by its id.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace exactune {

struct KernelResources {
  int registers = 0;  // -1: the compiler's report did not say (the other figures are then 0)
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int shared_bytes = 0;  // static shared memory

  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

// One compiled binary, immutable once made, shared by the kernels it holds.
struct Binary {
  // Tells binaries apart, computed once when the binary is made: the content
  // hash of `bytes` (util/content_hash.hpp); for a host library, which is not
  // held in memory, the cache name of the library, itself a hash of all that
  // went into it. Two binaries with one id are the same binary.
  std::string id;
  // The cubin (or PTX) image; empty for a host library, loaded by its path.
  // A std::string, so that data() ends in a NUL, as a PTX image must.
  std::string bytes;
  std::string path;  // where the binary lies in the cache, when it does
};

struct CompiledKernel {
  std::string name;    // what it is, e.g. "w4_r1_peeled_v16_registers@D3072"
  std::string target;  // "sm_90", ... or "host"
  std::string entry;   // lowered (mangled) name, or the host launcher's symbol
  // The binary the entry lies in, shared with the other kernels of its batch;
  // null when the kernel did not compile.
  std::shared_ptr<const Binary> binary;
  KernelResources resources;

  // The binary's bytes, empty when there is none.
  std::string_view binary_bytes() const { return binary ? std::string_view(binary->bytes) : std::string_view(); }
  // Where the binary lies in the cache, empty when nowhere.
  std::string_view binary_path() const { return binary ? std::string_view(binary->path) : std::string_view(); }
};

}  // namespace exactune
