// How a family's runtime entry point (families/<name>/runtime/) turns C++ into
// the C ABI of exactune/runtime.h: exceptions become statuses, reasons go to
// the thread's last error, and nothing throws across the boundary.
#pragma once
#include <exactune/runtime.h>

#include <cstdint>
#include <exception>
#include <string>

#include <exactune/error.hpp>
#include <exactune/family_server.hpp>

namespace exactune {

// Sets the thread's last error and returns `status`.
exactune_status runtime_status(exactune_status status, const std::string& why);

// Runs `body` (which returns a status): exactune::input_error becomes
// EXACTUNE_INVALID_ARGUMENT, any other exception EXACTUNE_ERROR, each with its
// message as the last error. A template, so that the served path costs no
// std::function.
template <class Body>
exactune_status runtime_entry(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const input_error& e) {
    return runtime_status(EXACTUNE_INVALID_ARGUMENT, std::string(function) + ": " + e.what());
  } catch (const std::exception& e) {
    return runtime_status(EXACTUNE_ERROR, std::string(function) + ": " + e.what());
  } catch (...) {
    return runtime_status(EXACTUNE_ERROR, std::string(function) + ": unknown exception");
  }
}

// Launches `plan` with this call's `geometry` (ServeOutcome::launch, or the
// caller's grid in it) and `params` on `stream`: EXACTUNE_OK, or
// EXACTUNE_ERROR naming the variant and the driver's error.
exactune_status launch_status(const LaunchPlan& plan, const LaunchGeometry& geometry, CUstream stream, void** params);

// "<variant> (<step>)" of the plan, in a buffer of the calling thread; "" for none.
const char* plan_text(const LaunchPlan* plan);

// Whether `strides` (elements) lay out `sizes` densely in row-major order, as
// torch's is_contiguous() says: a dimension of size 1 may have any stride.
inline bool is_contiguous(const std::int64_t* sizes, const std::int64_t* strides, int dims) {
  std::int64_t expected = 1;
  for (int d = dims - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// The largest power of two, at most 16, that divides every value (addresses
// and byte strides): the widest load every row of the data takes.
template <class... T>
unsigned common_alignment(T... values) {
  unsigned alignment = 16;
  for (unsigned long long v : {static_cast<unsigned long long>(values)...}) {
    while (alignment > 1 && v % alignment != 0) alignment /= 2;
  }
  return alignment;
}

}  // namespace exactune
