// The C ABI as ctypes meets it, for each family's test of its part of it
// (families/<name>/tests/cpu): libexactune_capi.so, built beside the CLI, is
// loaded with dlopen (the CPU suites do not link it; a suite that loads it
// depends on its target) and its entries found by name; a caller's buffer can
// end where an unreadable page begins, so that an argument check that reads
// past it crashes the test; and a refusal is checked for its status and for a
// reason that names the argument.
#pragma once
#include <dlfcn.h>
#include <exactune/runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"

namespace exactune_test {

// The library, loaded once per process.
inline void* capi_library() {
  static void* const handle = [] {
    const std::string path = (std::filesystem::path(EXACTUNE_CLI).parent_path() / "libexactune_capi.so").string();
    void* loaded = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(path << ": " << (loaded ? "" : dlerror()));
    REQUIRE(loaded != nullptr);
    return loaded;
  }();
  return handle;
}

// The library's entry `name`, as a pointer to a function of type F.
template <class F>
F capi_entry(const char* name) {
  const F entry = reinterpret_cast<F>(dlsym(capi_library(), name));
  INFO(name);
  REQUIRE(entry != nullptr);
  return entry;
}

// `elements` uint16 values that end where an unreadable page begins.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t elements) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    pages_ = (elements * 2 + page - 1) / page * page + page;
    base_ = ::mmap(nullptr, pages_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(base_ != MAP_FAILED);
    REQUIRE(::mprotect(static_cast<char*>(base_) + pages_ - page, page, PROT_NONE) == 0);
    data_ = reinterpret_cast<uint16_t*>(static_cast<char*>(base_) + pages_ - page) - elements;
    std::memset(data_, 0, elements * 2);
  }
  ~GuardedBuffer() { ::munmap(base_, pages_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  uint16_t* data() const { return data_; }

 private:
  void* base_ = nullptr;
  std::size_t pages_ = 0;
  uint16_t* data_ = nullptr;
};

// The library's last error: every family's calls leave their reason there.
inline const char* capi_last_error() {
  static const auto entry = capi_entry<const char* (*)()>("exactune_last_error");
  return entry();
}

// The call's status and, from `error_text` (the library's last error by
// default, or the runtime's), its reason.
inline void check_refused(int status, int expected, const std::string& reason,
                          const char* (*error_text)() = capi_last_error) {
  INFO("expected " << exactune_status_name(expected) << " with '" << reason << "'; got " << exactune_status_name(status)
                   << ": " << error_text());
  CHECK(status == expected);
  CHECK(std::string(error_text()).find(reason) != std::string::npos);
}

// A list of variant names (`list`, the entry `entry`) refuses each size with
// its status, naming the entry, the size parameter and the size, and writes
// nothing into the caller's buffer.
inline void check_list_refusals(int (*list)(int32_t, char*, size_t), const std::string& entry,
                                const std::string& size_parameter, const std::vector<std::pair<int32_t, int>>& sizes) {
  char names[64];
  for (const auto& [size, status] : sizes) {
    std::memset(names, '#', sizeof names);
    check_refused(list(size, names, sizeof names), status, entry + ": " + size_parameter + " " + std::to_string(size));
    CHECK(names[0] == '#');
  }
}

}  // namespace exactune_test
