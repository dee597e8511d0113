// Kernels compiled by the host compiler and run by the CPU backend, for the
// tests that launch them by hand: the core's test of the CUDA semantics the
// host simulates, and a family's tests of its kernels on the CPU. Every kernel
// a test file runs is compiled once per process, in one call, so that the host
// compiler batches and parallelises them as a sweep would; a launch passes its
// arguments by value with the kernel's exact parameter types.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <exactune/backend.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/host/host_compiler.hpp"
#include "support/scratch_directory.hpp"

namespace exactune_test {

// The cache ctest gives every test ($EXACTUNE_CACHE_DIR), else a scratch one.
inline const exactune::CompileCache& host_test_cache() {
  static ScratchDirectory scratch("host-kernels-test");
  static const exactune::CompileCache cache(
      std::getenv("EXACTUNE_CACHE_DIR") ? exactune::CompileCache::default_directory() : scratch.path());
  return cache;
}

inline exactune::CompileRequest host_request(std::string name, std::string main_file, std::string name_expression,
                                             std::vector<std::string> defines = {}) {
  return exactune::CompileRequest{std::move(name), std::move(main_file), std::move(name_expression), "host",
                                  std::move(defines)};
}

// The outcomes of one compile_for_host call, by request name.
class HostKernels {
 public:
  HostKernels(const std::vector<exactune::CompileRequest>& requests, const exactune::HostCompileSettings& settings) {
    for (exactune::CompileOutcome& outcome : exactune::compile_for_host(requests, host_test_cache(), settings)) {
      by_name_.emplace(outcome.request.name, std::move(outcome));
    }
  }

  // The kernel compiled for `name`; fails the test when it did not compile.
  const exactune::CompiledKernel& operator()(const std::string& name) const {
    const auto found = by_name_.find(name);
    REQUIRE(found != by_name_.end());
    INFO(found->second.log);
    REQUIRE(found->second.ok);
    return found->second.kernel;
  }

 private:
  std::map<std::string, exactune::CompileOutcome> by_name_;
};

inline exactune::LaunchGeometry geometry(exactune::Dim3 grid, exactune::Dim3 block) {
  exactune::LaunchGeometry g;
  g.grid = grid;
  g.block = block;
  return g;
}

template <class... Args>
void launch(exactune::CpuBackend& backend, const exactune::CompiledKernel& kernel, const exactune::LaunchGeometry& g,
            Args... args) {
  const std::unique_ptr<exactune::LoadedKernel> loaded = backend.load(kernel);
  void* pointers[] = {static_cast<void*>(&args)...};
  backend.launch(*loaded, g, pointers);
}

template <class T>
exactune::DeviceBuffer device_copy(exactune::Backend& backend, const std::vector<T>& values) {
  exactune::DeviceBuffer buffer(backend, values.size() * sizeof(T));
  backend.upload(buffer.address(), values.data(), values.size() * sizeof(T));
  return buffer;
}

template <class T>
std::vector<T> host_copy(exactune::Backend& backend, const exactune::DeviceBuffer& buffer) {
  std::vector<T> values(buffer.bytes() / sizeof(T));
  backend.download(values.data(), buffer.address(), buffer.bytes());
  return values;
}

template <class T>
T* device_pointer(const exactune::DeviceBuffer& buffer) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(buffer.address()));
}

}  // namespace exactune_test
