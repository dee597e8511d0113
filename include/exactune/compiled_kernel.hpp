// What the compiler produces for one kernel: the binary, how to find the entry
// point in it, and what the compiler reported about its resources.
#pragma once
#include <string>
#include <vector>

namespace exactune {

struct KernelResources {
  int registers = 0;  // -1: the compiler's report did not say (the other figures are then 0)
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int shared_bytes = 0;  // static shared memory

  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

struct CompiledKernel {
  std::string name;          // what it is, e.g. "w4_r1_peeled_v16_registers@D3072"
  std::string target;        // "sm_90", ... or "host"
  std::string entry;         // lowered (mangled) name, or the host launcher's symbol
  std::vector<char> binary;  // cubin, or the host shared object's bytes
  std::string binary_path;   // where the binary lies in the cache, when it does
  KernelResources resources;
};

}  // namespace exactune
