// The families' C ABI (libexactune_capi.so, loaded here with dlopen as ctypes
// loads it: the CPU suite does not link it) refuses bad arguments before it
// needs a GPU, compiles, loads or copies anything: each call returns
// EXACTUNE_NOT_SERVED for a size the family does not serve and
// EXACTUNE_INVALID_ARGUMENT for arguments that describe no problem, with a
// reason that names the argument. Caller buffers that a late check would read
// past end at a page that cannot be read, so such a read crashes the test.
// The runtime's table query (linked into this suite) refuses unserved sizes too.
#include <dlfcn.h>
#include <exactune/runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/capi/exactune_capi.h"
#include "qk_head_layer_norm/capi/exactune_qk_capi.h"

namespace {

// The entries of the built library, found by name.
struct CapiLibrary {
  void* handle = nullptr;
  const char* (*last_error)() = nullptr;
  int (*describe_gpu)(char*, size_t) = nullptr;
  int (*list_variants)(int32_t, char*, size_t) = nullptr;
  int (*reference)(const exactune_problem*, uint16_t*, uint16_t*, float*, float*) = nullptr;
  int (*run_variant)(const exactune_problem*, const char*, uint16_t*) = nullptr;
  int (*qk_list_variants)(int32_t, char*, size_t) = nullptr;
  int (*qk_reference)(const exactune_qk_problem*, uint16_t*, uint16_t*, float*, float*, float*, float*) = nullptr;
  int (*qk_run_variant)(const exactune_qk_problem*, const char*, uint16_t*, uint16_t*) = nullptr;
  int (*token_major_list_variants)(int32_t, char*, size_t) = nullptr;
  int (*token_major_list_covering_variants)(int32_t, char*, size_t) = nullptr;

  template <class F>
  void find(F& entry, const char* name) {
    entry = reinterpret_cast<F>(dlsym(handle, name));
    INFO(name);
    REQUIRE(entry != nullptr);
  }
};

// Beside the CLI, where the build puts it.
const CapiLibrary& capi() {
  static CapiLibrary library = [] {
    const std::string path = (std::filesystem::path(EXACTUNE_CLI).parent_path() / "libexactune_capi.so").string();
    CapiLibrary l;
    l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO(path << ": " << (l.handle ? "" : dlerror()));
    REQUIRE(l.handle != nullptr);
    l.find(l.last_error, "exactune_last_error");
    l.find(l.describe_gpu, "exactune_describe_gpu");
    l.find(l.list_variants, "exactune_list_variants");
    l.find(l.reference, "exactune_reference");
    l.find(l.run_variant, "exactune_run_variant");
    l.find(l.qk_list_variants, "exactune_qk_list_variants");
    l.find(l.qk_reference, "exactune_qk_reference");
    l.find(l.qk_run_variant, "exactune_qk_run_variant");
    l.find(l.token_major_list_variants, "exactune_token_major_list_variants");
    l.find(l.token_major_list_covering_variants, "exactune_token_major_list_covering_variants");
    return l;
  }();
  return library;
}

std::string last_error() { return capi().last_error(); }

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

constexpr const char* kVariant = "w1_r1_predicated_v8_reload_rcp_late_f32_full";

// The first valid qk variant at head_dim 64.
std::string qk_variant() {
  std::vector<char> names(1 << 16);
  REQUIRE(capi().qk_list_variants(64, names.data(), names.size()) == EXACTUNE_OK);
  const std::string all = names.data();
  return all.substr(0, all.find('\n'));
}

// A consistent problem: x of batch * tokens * hidden, an embedding of six rows per batch element.
struct ModulateBuffers {
  ModulateBuffers(int32_t batch, int32_t tokens, int32_t hidden)
      : x(std::size_t(batch) * tokens * (hidden > 0 ? hidden : 1)),
        embedding(std::size_t(batch) * 6 * (hidden > 0 ? hidden : 1)),
        out(x.size()) {
    problem = exactune_problem{x.data(),
                               embedding.data(),
                               static_cast<int64_t>(embedding.size()),
                               hidden,
                               0,
                               6 * int64_t{hidden},
                               batch,
                               tokens,
                               hidden,
                               1e-6};
  }
  std::vector<uint16_t> x, embedding, out;
  exactune_problem problem;
};

std::string runtime_last_error() { return exactune_runtime_last_error(); }

// The call's status and, from `error_text` (the C ABI's by default), its reason.
void check_refused(int status, int expected, const std::string& reason, std::string (*error_text)() = last_error) {
  INFO("expected " << exactune_status_name(expected) << " with '" << reason << "'; got " << exactune_status_name(status)
                   << ": " << error_text());
  CHECK(status == expected);
  CHECK(error_text().find(reason) != std::string::npos);
}

}  // namespace

TEST_CASE("list_variants refuses unserved hidden sizes and head_dims, naming them, and writes no names",
          "[capi_validation]") {
  char names[64];
  for (const auto& [hidden, status] : {std::pair{62, EXACTUNE_NOT_SERVED},
                                       {8196, EXACTUNE_NOT_SERVED},
                                       {1 << 20, EXACTUNE_NOT_SERVED},
                                       {0, EXACTUNE_INVALID_ARGUMENT},
                                       {-4, EXACTUNE_INVALID_ARGUMENT}}) {
    std::memset(names, '#', sizeof names);
    check_refused(capi().list_variants(hidden, names, sizeof names), status,
                  "exactune_list_variants: hidden " + std::to_string(hidden));
    CHECK(names[0] == '#');
  }
  for (const auto& [head_dim, status] : {std::pair{62, EXACTUNE_NOT_SERVED},
                                         {132, EXACTUNE_NOT_SERVED},
                                         {0, EXACTUNE_INVALID_ARGUMENT},
                                         {-4, EXACTUNE_INVALID_ARGUMENT}}) {
    std::memset(names, '#', sizeof names);
    check_refused(capi().qk_list_variants(head_dim, names, sizeof names), status,
                  "exactune_qk_list_variants: head_dim " + std::to_string(head_dim));
    CHECK(names[0] == '#');
  }
}

TEST_CASE("list_variants lists a served size, and refuses a NULL or too small buffer as an invalid argument",
          "[capi_validation]") {
  std::vector<char> names(1 << 16);
  REQUIRE(capi().list_variants(64, names.data(), names.size()) == EXACTUNE_OK);
  CHECK(std::string(names.data()).find(std::string(kVariant) + "\n") != std::string::npos);
  CHECK_FALSE(qk_variant().empty());
  check_refused(capi().list_variants(64, nullptr, 100), EXACTUNE_INVALID_ARGUMENT, "names is NULL");
  check_refused(capi().list_variants(64, names.data(), 8), EXACTUNE_INVALID_ARGUMENT, "needs");
  check_refused(capi().describe_gpu(nullptr, 100), EXACTUNE_INVALID_ARGUMENT, "text is NULL");
}

TEST_CASE("the token-major covering list is a few of the valid variants, with every read, refused as the full one",
          "[capi_validation]") {
  auto lines = [](int (*list)(int32_t, char*, size_t), int32_t hidden) {
    std::vector<char> names(1 << 17);
    REQUIRE(list(hidden, names.data(), names.size()) == EXACTUNE_OK);
    std::istringstream text(names.data());
    std::vector<std::string> result;
    for (std::string line; std::getline(text, line);) result.push_back(line);
    return result;
  };
  const std::vector<std::string> all = lines(capi().token_major_list_variants, 1000);
  const std::vector<std::string> cover = lines(capi().token_major_list_covering_variants, 1000);
  INFO(cover.size() << " covering of " << all.size());
  CHECK(cover.size() * 4 < all.size());
  for (const std::string& name : cover) CHECK(std::find(all.begin(), all.end(), name) != all.end());
  for (const char* read : {"copy_", "tile", "lanes"}) {
    INFO(read);
    CHECK(std::any_of(cover.begin(), cover.end(), [&](const std::string& n) { return n.rfind(read, 0) == 0; }));
  }
  char names[64];
  check_refused(capi().token_major_list_covering_variants(62, names, sizeof names), EXACTUNE_NOT_SERVED,
                "exactune_token_major_list_covering_variants: hidden 62");
  check_refused(capi().token_major_list_covering_variants(1000, names, sizeof names), EXACTUNE_INVALID_ARGUMENT,
                "needs");
}

TEST_CASE("run_variant and reference refuse an unserved hidden size before reading x, even a buffer too short for it",
          "[capi_validation]") {
  // The size of a problem at hidden 64, with the hidden size changed: what the
  // torch cross-check once passed.
  GuardedBuffer x(64), embedding(6 * 64);
  std::vector<uint16_t> out(64);
  for (const int32_t hidden : {62, 8196, 1 << 20}) {
    const exactune_problem problem{
        x.data(), embedding.data(), 6 * int64_t{hidden}, hidden, 0, 6 * int64_t{hidden}, 1, 1, hidden, 1e-6};
    const std::string reason = "hidden " + std::to_string(hidden);
    check_refused(capi().run_variant(&problem, kVariant, out.data()), EXACTUNE_NOT_SERVED,
                  "exactune_run_variant: " + reason);
    check_refused(capi().reference(&problem, out.data(), nullptr, nullptr, nullptr), EXACTUNE_NOT_SERVED,
                  "exactune_reference: " + reason);
  }
}

TEST_CASE("run_variant refuses arguments that describe no problem, naming the argument", "[capi_validation]") {
  const auto refused = [](ModulateBuffers b, const char* variant, const std::string& reason, int status) {
    check_refused(capi().run_variant(&b.problem, variant, b.out.data()), status, "exactune_run_variant: " + reason);
  };
  check_refused(capi().run_variant(nullptr, kVariant, nullptr), EXACTUNE_INVALID_ARGUMENT, "problem is NULL");
  ModulateBuffers b(2, 3, 64);
  b.problem.tokens = 0;
  refused(b, kVariant, "tokens 0 must be >= 1", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.batch = -1;
  refused(b, kVariant, "batch -1 must be >= 1", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.hidden = -4;
  refused(b, kVariant, "hidden -4", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.eps = 0;
  refused(b, kVariant, "eps 0", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.x = nullptr;
  refused(b, kVariant, "x is NULL", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.embedding = nullptr;
  refused(b, kVariant, "embedding is NULL", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.embedding_elements = 64;
  refused(b, kVariant, "embedding_elements 64", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.modulation_stride = 100;
  refused(b, kVariant, "modulation_stride 100", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  b.problem.scale_offset = 6 * 64;
  refused(b, kVariant, "scale_offset 384", EXACTUNE_INVALID_ARGUMENT);
  b = ModulateBuffers(2, 3, 64);
  refused(b, nullptr, "variant is NULL", EXACTUNE_INVALID_ARGUMENT);
  refused(b, "w3_no_such_variant", "variant 'w3_no_such_variant' is no valid", EXACTUNE_INVALID_ARGUMENT);
  check_refused(capi().run_variant(&b.problem, kVariant, nullptr), EXACTUNE_INVALID_ARGUMENT, "out is NULL");
  b.problem.scale_offset = 66;  // rows at an odd element offset: no 8-byte loads
  refused(b, kVariant, "scale_offset 66 is not a multiple of 4 elements", EXACTUNE_NOT_SERVED);
}

TEST_CASE("run_variant refuses more rows than a kernel counts as not served, without reading x", "[capi_validation]") {
  GuardedBuffer x(64), embedding(6 * 64);
  std::vector<uint16_t> out(64);
  const exactune_problem problem{x.data(), embedding.data(), INT_MAX * int64_t{6 * 64}, 64, 0, 6 * 64, INT_MAX, 2, 64,
                                 1e-6};
  check_refused(capi().run_variant(&problem, kVariant, out.data()), EXACTUNE_NOT_SERVED,
                "batch * tokens is more than the 2147483647 served");
}

TEST_CASE("the qk ABI refuses unserved head_dims and bad arguments before reading q or k", "[capi_validation]") {
  const std::string variant = qk_variant();
  GuardedBuffer q(64), k(64);
  std::vector<uint16_t> q_out(64), k_out(64);
  const exactune_qk_problem base{q.data(), k.data(), 1, 1, 1, 64, 1e-6};
  for (const int32_t head_dim : {62, 132, 1 << 20}) {
    exactune_qk_problem p = base;
    p.head_dim = head_dim;
    const std::string reason = "head_dim " + std::to_string(head_dim);
    check_refused(capi().qk_run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                  "exactune_qk_run_variant: " + reason);
    check_refused(capi().qk_reference(&p, q_out.data(), k_out.data(), nullptr, nullptr, nullptr, nullptr),
                  EXACTUNE_NOT_SERVED, "exactune_qk_reference: " + reason);
  }
  exactune_qk_problem p = base;
  p.heads = 0;
  check_refused(capi().qk_run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "heads 0 must be >= 1");
  p = base;
  p.k = nullptr;
  check_refused(capi().qk_run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "k is NULL");
  p = base;
  p.tokens = 1 << 18;  // 2^30 rows: past the family's own limit
  p.heads = 1 << 12;
  check_refused(capi().qk_run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                "rows per tensor");
  p.tokens = 1 << 20;  // 2^32 rows: past what an int counts
  check_refused(capi().qk_run_variant(&p, variant.c_str(), q_out.data(), k_out.data()), EXACTUNE_NOT_SERVED,
                "batch * tokens * heads is more than");
  check_refused(capi().qk_run_variant(&base, "no_such_variant", q_out.data(), k_out.data()), EXACTUNE_INVALID_ARGUMENT,
                "variant 'no_such_variant' is no valid");
  check_refused(capi().qk_run_variant(&base, variant.c_str(), q_out.data(), nullptr), EXACTUNE_INVALID_ARGUMENT,
                "k_out is NULL");
}

TEST_CASE("without a GPU a problem that passes every check is an error naming why, not an argument error",
          "[capi_validation]") {
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(exactune::why_no_gpu().has_value());
  ModulateBuffers b(1, 2, 64);
  check_refused(capi().run_variant(&b.problem, kVariant, b.out.data()), EXACTUNE_ERROR, *exactune::why_no_gpu());
}

TEST_CASE("the runtime's table query offers no candidates at a size the family does not serve", "[capi_validation]") {
  char text[4096];
  for (const int64_t hidden : {int64_t{62}, int64_t{8196}, int64_t{1} << 20}) {
    check_refused(
        exactune_runtime_candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, hidden, 64, text, sizeof text),
        EXACTUNE_NOT_SERVED, "hidden " + std::to_string(hidden), runtime_last_error);
  }
  check_refused(exactune_runtime_candidates("qk_head_layer_norm", "NVIDIA H200", 9, 0, 132, 132, 64, text, sizeof text),
                EXACTUNE_NOT_SERVED, "head_dim 132", runtime_last_error);
  CHECK(exactune_runtime_candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 64, 64, text, sizeof text) ==
        EXACTUNE_OK);
}
