#include "backends/gpu/gpu_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string_view>

#include <exactune/error.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "compile/compile_cache.hpp"

namespace exactune {
namespace {

std::string text(const Dim3& d) { return fmt::format("{}x{}x{}", d.x, d.y, d.z); }

// One function of a module. Kernels compiled in one batch share their module
// (GpuBackend::module_of); it is unloaded with the last of them.
class GpuLoadedKernel final : public LoadedKernel {
 public:
  GpuLoadedKernel(const CompiledKernel& kernel, std::shared_ptr<CUmod_st> module, CUcontext context)
      : name_(kernel.name), entry_(kernel.entry), module_(std::move(module)), context_(context) {
    const CudaDriver& driver = cuda_driver();
    if (const CUresult r = driver.cuModuleGetFunction(&function_, module_.get(), entry_.c_str()); r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("finding entry point '{}' of kernel '{}'", entry_, name_));
    }
    int limit = 0;
    if (const CUresult r =
            driver.cuFuncGetAttribute(&limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function_);
        r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("querying the dynamic shared memory limit of kernel '{}'", name_));
    }
    dynamic_shared_limit_ = static_cast<unsigned>(limit);
  }

  const std::string& name() const override { return name_; }
  const std::string& entry() const { return entry_; }
  CUfunction function() const { return function_; }
  CUcontext context() const { return context_; }

  // The default limit is 48 KiB less the static shared memory; more must be
  // asked for per function, once.
  void allow_dynamic_shared(unsigned bytes) const {
    if (bytes <= dynamic_shared_limit_) return;
    const CUresult r = cuda_driver().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                        static_cast<int>(bytes));
    if (r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("allowing kernel '{}' {} bytes of dynamic shared memory", name_, bytes));
    }
    dynamic_shared_limit_ = bytes;
  }

  // The occupancy calculator's answer, asked once per block size: a persistent
  // variant's every launch needs it, timed launches included.
  int ctas_per_multiprocessor(unsigned block_threads) const {
    std::lock_guard<std::mutex> lock(occupancy_mutex_);
    if (const auto known = occupancy_.find(block_threads); known != occupancy_.end()) return known->second;
    int per_multiprocessor = 0;
    if (const CUresult r = cuda_driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_multiprocessor, function_, static_cast<int>(block_threads), 0);
        r != CUDA_SUCCESS) {
      throw_cuda_error(r, fmt::format("asking how many CTAs of kernel '{}' ({} threads) fit on a multiprocessor", name_,
                                      block_threads));
    }
    return occupancy_[block_threads] = per_multiprocessor;
  }

 private:
  std::string name_;
  std::string entry_;
  std::shared_ptr<CUmod_st> module_;
  CUcontext context_;
  CUfunction function_ = nullptr;
  mutable unsigned dynamic_shared_limit_ = 0;
  mutable std::mutex occupancy_mutex_;
  mutable std::map<unsigned, int> occupancy_;  // CTAs per multiprocessor, by block size
};

const GpuLoadedKernel& loaded_here(const LoadedKernel& kernel, CUcontext context) {
  const auto* loaded = dynamic_cast<const GpuLoadedKernel*>(&kernel);
  if (!loaded || loaded->context() != context) {
    throw error(fmt::format("kernel '{}' was not loaded by this GPU backend", kernel.name()));
  }
  return *loaded;
}

}  // namespace

void GpuBackend::ReleasePrimaryContext::operator()(CUcontext) const noexcept {
  report_cleanup_failure(cuda_driver().cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
}

void GpuBackend::DestroyStream::operator()(CUstream stream) const noexcept {
  report_cleanup_failure(cuda_driver().cuStreamDestroy(stream), "cuStreamDestroy");
}

GpuBackend::GpuBackend(int ordinal) : gpu_(describe_gpu(ordinal)), context_(nullptr, ReleasePrimaryContext{0}) {
  const CudaDriver& driver = cuda_driver();
  CUdevice device = 0;
  check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  CUcontext context = nullptr;
  check(driver.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  context_ = {context, ReleasePrimaryContext{device}};
  make_current();
  // Non-blocking: no implicit ordering with the legacy default stream, which
  // anything else in the process (a profiler, a library) may be using.
  CUstream stream = nullptr;
  check(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  stream_.reset(stream);
}

GpuBackend::~GpuBackend() {
  if (!context_) return;
  const CudaDriver& driver = cuda_driver();
  report_cleanup_failure(driver.cuCtxSetCurrent(context_.get()), "cuCtxSetCurrent");
  // Pending work finishes before the stream and context go; a fault it hits is reported here.
  if (stream_) report_cleanup_failure(driver.cuStreamSynchronize(stream_.get()), "cuStreamSynchronize");
}

std::string GpuBackend::description() const {
  return fmt::format("{} ({}, {} SMs)", gpu_.name, gpu_.arch(), gpu_.sm_count);
}

std::string GpuBackend::target() const { return gpu_.arch(); }

void GpuBackend::make_current() const { check(cuda_driver().cuCtxSetCurrent(context_.get()), "cuCtxSetCurrent"); }

std::string GpuBackend::after_last_launch() const {
  return last_launched_kernel_.empty() ? "" : fmt::format(" (after kernel '{}')", last_launched_kernel_);
}

DeviceAddress GpuBackend::allocate(std::size_t bytes) {
  if (bytes == 0) return 0;  // cuMemAlloc refuses 0 bytes; a kernel never reads an empty buffer
  make_current();
  CUdeviceptr address = 0;
  if (const CUresult r = cuda_driver().cuMemAlloc(&address, bytes); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("allocating {} bytes on {}{}", bytes, gpu_.name, after_last_launch()));
  }
  return address;
}

void GpuBackend::release(DeviceAddress address) noexcept {
  if (address == 0) return;
  const CudaDriver& driver = cuda_driver();
  report_cleanup_failure(driver.cuCtxSetCurrent(context_.get()), "cuCtxSetCurrent");
  // Work queued on the stream may still use the memory.
  report_cleanup_failure(driver.cuStreamSynchronize(stream_.get()), "cuStreamSynchronize before cuMemFree");
  report_cleanup_failure(driver.cuMemFree(address), "cuMemFree");
}

void GpuBackend::upload(DeviceAddress dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  const CudaDriver& driver = cuda_driver();
  // On the stream (not the legacy default stream, which a non-blocking stream
  // does not wait for), then waited for, so that the copy has landed on return.
  if (const CUresult r = driver.cuMemcpyHtoDAsync(dst, src, bytes, stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("uploading {} bytes to device address {:#x}{}", bytes, dst, after_last_launch()));
  }
  if (const CUresult r = driver.cuStreamSynchronize(stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("waiting for an upload of {} bytes{}", bytes, after_last_launch()));
  }
}

void GpuBackend::download(void* dst, DeviceAddress src, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  const CudaDriver& driver = cuda_driver();
  // Ordered after the launches that wrote `src`, which a copy on the legacy
  // default stream would not be.
  if (const CUresult r = driver.cuMemcpyDtoHAsync(dst, src, bytes, stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r,
                     fmt::format("downloading {} bytes from device address {:#x}{}", bytes, src, after_last_launch()));
  }
  if (const CUresult r = driver.cuStreamSynchronize(stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("waiting for a download of {} bytes{}", bytes, after_last_launch()));
  }
}

void GpuBackend::fill(DeviceAddress dst, std::uint8_t byte, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  if (const CUresult r = cuda_driver().cuMemsetD8Async(dst, byte, bytes, stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("filling {} bytes at device address {:#x} with {:#04x}{}", bytes, dst, byte,
                                    after_last_launch()));
  }
}

std::shared_ptr<CUmod_st> GpuBackend::module_of(const CompiledKernel& kernel) {
  if (kernel.binary_bytes().empty()) throw error(fmt::format("kernel '{}' has no binary to load", kernel.name));
  // Keyed by the binary's id, its content hash computed once when it was made
  // (compiled_kernel.hpp), not by path: a binary made in memory (a test's, a
  // planted one) must never be served another's module, and the kernels of
  // one batch's cubin, which share it, share one module.
  const std::string& key = kernel.binary->id;
  std::lock_guard lock(modules_mutex_);
  if (std::shared_ptr<CUmod_st> loaded = modules_[key].lock()) return loaded;
  // The bytes are a std::string, so data() ends in NUL and a PTX image is a C
  // string as the driver expects; a cubin or fatbin is read through its own header.
  CUmodule module = nullptr;
  if (const CUresult r = cuda_driver().cuModuleLoadData(&module, kernel.binary->bytes.c_str()); r != CUDA_SUCCESS) {
    throw_cuda_error(
        r, fmt::format("loading kernel '{}' (compiled for {}) on {}", kernel.name, kernel.target, description()));
  }
  const CUcontext context = context_.get();
  std::shared_ptr<CUmod_st> loaded(module, [context](CUmodule m) noexcept {
    const CudaDriver& driver = cuda_driver();
    report_cleanup_failure(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    report_cleanup_failure(driver.cuModuleUnload(m), "cuModuleUnload");
  });
  modules_[key] = loaded;
  return loaded;
}

std::unique_ptr<LoadedKernel> GpuBackend::load(const CompiledKernel& kernel) {
  make_current();
  return std::make_unique<GpuLoadedKernel>(kernel, module_of(kernel), context_.get());
}

unsigned GpuBackend::resident_ctas(const LoadedKernel& kernel, unsigned block_threads) {
  const GpuLoadedKernel& loaded = loaded_here(kernel, context_.get());
  make_current();
  return static_cast<unsigned>(std::max(1, loaded.ctas_per_multiprocessor(block_threads)) * std::max(1, gpu_.sm_count));
}

void GpuBackend::launch(const LoadedKernel& kernel, const LaunchGeometry& geometry, void** args) {
  const GpuLoadedKernel* loaded = &loaded_here(kernel, context_.get());
  make_current();
  loaded->allow_dynamic_shared(geometry.dynamic_shared_bytes);
  const Dim3& grid = geometry.grid;
  const Dim3& block = geometry.block;
  const CUresult r = cuda_driver().cuLaunchKernel(loaded->function(), grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                                  geometry.dynamic_shared_bytes, stream_.get(), args, nullptr);
  if (r != CUDA_SUCCESS) {
    // A fault of an earlier, different kernel can surface here: name it too.
    const std::string earlier = last_launched_kernel_ == kernel.name() ? "" : after_last_launch();
    throw_cuda_error(r, fmt::format("launching kernel '{}' (entry {}, grid {}, block {}, {} bytes of dynamic shared "
                                    "memory){}",
                                    kernel.name(), loaded->entry(), text(grid), text(block),
                                    geometry.dynamic_shared_bytes, earlier));
  }
  last_launched_kernel_ = kernel.name();
}

void GpuBackend::synchronize() {
  make_current();
  if (const CUresult r = cuda_driver().cuStreamSynchronize(stream_.get()); r != CUDA_SUCCESS) {
    throw_cuda_error(r, fmt::format("synchronizing the stream{}", after_last_launch()));
  }
}

std::string GpuBackend::context_error() const {
  make_current();
  const CUresult r = cuda_driver().cuCtxSynchronize();
  if (r == CUDA_SUCCESS) return "";
  const char* name = nullptr;
  cuda_driver().cuGetErrorName(r, &name);
  return name ? name : fmt::format("CUresult {}", static_cast<int>(r));
}

std::unique_ptr<GpuBackend> open_gpu_backend(int ordinal) {
  if (const std::optional<std::string> reason = why_no_gpu()) {
    throw error(fmt::format("cannot open GPU {}: {}", ordinal, *reason));
  }
  return std::make_unique<GpuBackend>(ordinal);
}

}  // namespace exactune
