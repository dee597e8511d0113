// The GPU session behind the families' C ABIs, and the C ABI's statuses:
// capi_guarded turns what an entry throws into exactune_status values.
#include <exactune/runtime.h>
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include <exactune/error.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "backends/gpu/device_info.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "capi/capi_arguments.hpp"
#include "compile/compiler.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {
namespace {

thread_local std::string last_error;
std::mutex session_mutex;

}  // namespace

struct GpuSession::State {
  std::unique_ptr<Backend> backend = open_gpu_backend(0);
  CompileCache cache{CompileCache::default_directory()};
  std::map<std::string, SupportKernels> support;                  // by family
  std::map<std::string, std::unique_ptr<LoadedKernel>> variants;  // by "family/variant@size"
};

GpuSession::GpuSession() : state_(new State) {}
GpuSession::~GpuSession() { delete state_; }

GpuSession& GpuSession::instance() {
  static GpuSession session;
  return session;
}

Backend& GpuSession::backend() { return *state_->backend; }

std::string GpuSession::describe_gpu() { return exactune::describe_gpu(0).summary(); }

const SupportKernels& GpuSession::support(const KernelFamily& family) {
  auto it = state_->support.find(family.name());
  if (it == state_->support.end()) {
    it = state_->support.emplace(family.name(), load_support_kernels(family, *state_->backend, state_->cache)).first;
  }
  return it->second;
}

const LoadedKernel& GpuSession::variant(const KernelFamily& family, const std::string& name, int size, Variant* found) {
  const std::vector<Variant> variants = valid_variants(family, size);
  auto key = [&](const std::string& variant) { return fmt::format("{}/{}@{}", family.name(), variant, size); };
  const auto it = std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; });
  if (it == variants.end()) {
    throw error(fmt::format("no valid {} variant '{}' at {} {}", family.name(), name, family.size_parameter(), size));
  }
  if (!state_->variants.count(key(name))) {
    std::vector<CompileRequest> requests;
    for (const Variant& v : variants) requests.push_back(family.variant_request(v, size, state_->backend->target()));
    const std::vector<CompileOutcome> outcomes = compile_all(requests, state_->cache);
    for (std::size_t i = 0; i < variants.size(); ++i) {
      if (!outcomes[i].ok) throw error(fmt::format("{} failed to compile:\n{}", requests[i].name, outcomes[i].log));
      state_->variants[key(variants[i].name)] = state_->backend->load(outcomes[i].kernel);
    }
  }
  if (found) *found = *it;
  return *state_->variants.at(key(name));
}

int capi_guarded(const std::function<void()>& body) {
  try {
    std::lock_guard lock(session_mutex);
    body();
    return EXACTUNE_OK;
  } catch (const capi_not_served& e) {
    last_error = e.what();
    return EXACTUNE_NOT_SERVED;
  } catch (const input_error& e) {
    last_error = e.what();
    return EXACTUNE_INVALID_ARGUMENT;
  } catch (const std::exception& e) {
    last_error = e.what();
    return EXACTUNE_ERROR;
  }
}

const char* capi_last_error() { return last_error.c_str(); }

void capi_copy_text(const std::string& text, char* buffer, std::size_t capacity, const char* function) {
  if (buffer == nullptr) throw input_error(fmt::format("{}: the text buffer is NULL", function));
  if (text.size() + 1 > capacity) {
    throw input_error(
        fmt::format("{}: the text needs {} bytes, the buffer holds {}", function, text.size() + 1, capacity));
  }
  std::memcpy(buffer, text.c_str(), text.size() + 1);
}

}  // namespace exactune
