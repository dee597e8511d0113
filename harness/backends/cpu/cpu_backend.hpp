// The CPU backend: runs host-compiled kernel templates (host_compiler.hpp) on
// this machine's cores with CUDA's semantics, so the verifier can check
// bit-exactness without a GPU. Memory is ordinary host memory; a launch runs
// to its end before it returns. rsqrtf is host-approximated
// (kernel_templates/host_cuda.hpp), so rstd may differ from a GPU's in the last
// bit: references and variants share it, and reports must say so.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <exactune/backend.hpp>

#include "compile/host/host_launcher.hpp"

namespace exactune {

class CpuBackend : public Backend {
 public:
  // threads: OS threads a launch may use; 0 for one per hardware thread.
  explicit CpuBackend(unsigned threads = 0);

  std::string description() const override;  // "CPU (N threads), rstd host-approximated"
  std::string target() const override { return kHostTarget; }
  unsigned threads() const { return threads_; }

  // 256-byte aligned host memory; the address is the pointer value.
  DeviceAddress allocate(std::size_t bytes) override;
  void release(DeviceAddress address) noexcept override;
  void upload(DeviceAddress dst, const void* src, std::size_t bytes) override;
  void download(void* dst, DeviceAddress src, std::size_t bytes) override;
  void fill(DeviceAddress dst, std::uint8_t byte, std::size_t bytes) override;

  // Opens the kernel's shared object (once per binary id: the kernels of one
  // library share it) and finds its launcher.
  std::unique_ptr<LoadedKernel> load(const CompiledKernel& kernel) override;
  // Throws exactune::error naming the kernel when the launch fails
  // (invalid geometry, a deadlocked barrier, an unsupported operation).
  void launch(const LoadedKernel& kernel, const LaunchGeometry& geometry, void** args) override;
  // One CTA per thread runs at a time.
  unsigned resident_ctas(const LoadedKernel&, unsigned) override { return threads_; }
  void synchronize() override {}

 private:
  std::shared_ptr<void> open_library(const Binary& library);

  unsigned threads_;
  std::mutex libraries_mutex_;
  std::map<std::string, std::shared_ptr<void>> libraries_;  // dlopen handles, by binary id
};

}  // namespace exactune
