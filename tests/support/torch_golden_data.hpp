// Torch golden data as the families' tests/torch/make_torch_golden.py write it,
// for their CPU golden tests: a YAML manifest (source, the data file and its
// sha256, rsqrt_window, per case its offset_bytes and bytes) and a binary of
// consecutive little-endian arrays per case. Reading checks the manifest
// against the data (sha256, sizes, offsets) and throws exactune::error naming
// the file on any mismatch. Also the pieces each golden test shares: the
// GPU's rsqrtf windows handed to the host emulation, the comparison of bits,
// and a workload whose expected outputs are torch's.
#pragma once
#include <fmt/format.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/error.hpp>
#include <exactune/workload.hpp>

namespace exactune_test {

// SHA-256 (FIPS 180-4) of the bytes, as 64 lowercase hex digits.
inline std::string sha256_hex(const std::vector<char>& bytes) {
  static constexpr std::array<std::uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::vector<unsigned char> m(bytes.begin(), bytes.end());
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  m.push_back(0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<unsigned char>(bits >> (8 * i)));
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t block = 0; block < m.size(); block += 64) {
    std::array<std::uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i) {
      const unsigned char* p = &m[block + 4 * i];
      w[i] = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      const std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      v = {t1 + s0 + maj, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (int i = 0; i < 8; ++i) h[i] += v[i];
  }
  std::string hex;
  for (std::uint32_t word : h) hex += fmt::format("{:08x}", word);
  return hex;
}

template <class T>
T golden_required(const YAML::Node& node, const char* key, const std::string& where) {
  if (!node[key]) throw exactune::error(fmt::format("{}: no '{}'", where, key));
  return node[key].as<T>();
}

// A manifest <dir>/<stem>.yaml and the data file it names, its sha256 checked.
struct GoldenFile {
  std::string manifest_path;
  YAML::Node manifest;
  std::string source;    // "torch 2.11.0+cu130 (CUDA 13.0) on NVIDIA H200"
  int rsqrt_window = 0;  // floats per row around the rsqrtf input
  std::vector<char> data;
};

inline GoldenFile read_golden_file(const std::string& dir, const std::string& stem) {
  GoldenFile g;
  g.manifest_path = dir + "/" + stem + ".yaml";
  g.manifest = YAML::LoadFile(g.manifest_path);
  const YAML::Node source = g.manifest["source"];
  g.source = fmt::format("torch {} (CUDA {}) on {}", golden_required<std::string>(source, "torch", g.manifest_path),
                         golden_required<std::string>(source, "cuda_build", g.manifest_path),
                         golden_required<std::string>(source, "gpu", g.manifest_path));
  g.rsqrt_window = golden_required<int>(g.manifest, "rsqrt_window", g.manifest_path);
  const std::string data_path = dir + "/" + golden_required<std::string>(g.manifest, "data", g.manifest_path);
  std::ifstream file(data_path, std::ios::binary);
  if (!file) throw exactune::error("cannot read " + data_path);
  g.data.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  const std::string expected = golden_required<std::string>(g.manifest, "sha256", g.manifest_path);
  const std::string actual = sha256_hex(g.data);
  if (actual != expected) {
    throw exactune::error(fmt::format("{}: sha256 {}, but {} gives {}", g.manifest_path, expected, data_path, actual));
  }
  if (!g.manifest["cases"] || g.manifest["cases"].size() == 0) throw exactune::error(g.manifest_path + ": no cases");
  return g;
}

// Takes consecutive little-endian arrays out of one case's bytes.
class GoldenCaseReader {
 public:
  GoldenCaseReader(const GoldenFile& file, const YAML::Node& node, std::string where)
      : data_(file.data),
        at_(golden_required<std::size_t>(node, "offset_bytes", where)),
        end_(at_ + golden_required<std::size_t>(node, "bytes", where)),
        where_(std::move(where)) {
    if (end_ > data_.size()) {
      throw exactune::error(
          fmt::format("{}: bytes {}..{} lie past the data's end ({} bytes)", where_, at_, end_, data_.size()));
    }
  }
  template <class T>
  std::vector<T> take(std::size_t count) {
    if (at_ + count * sizeof(T) > end_) throw exactune::error(where_ + ": its arrays overrun the case's bytes");
    std::vector<T> values(count);
    std::memcpy(values.data(), data_.data() + at_, count * sizeof(T));  // the data is little-endian, as x86-64
    at_ += count * sizeof(T);
    return values;
  }
  void require_end() const {
    if (at_ != end_) throw exactune::error(fmt::format("{}: {} bytes left over", where_, end_ - at_));
  }

 private:
  const std::vector<char>& data_;
  std::size_t at_, end_;
  std::string where_;
};

// EXACTUNE_HOST_RSQRTF_TABLE for the scope: a file of (input bits, rsqrtf bits)
// pairs, from which the CPU backend's emulation reads rsqrtf. Each table has a
// path of its own: the emulation loads a path's table once (host_cuda.hpp), so
// a second table at a path already seen would go unread.
class ScopedRsqrtfTable {
 public:
  explicit ScopedRsqrtfTable(const std::vector<std::uint32_t>& pairs) {
    static std::atomic<int> tables{0};
    path_ = (std::filesystem::temp_directory_path() /
             fmt::format("exactune-rsqrtf-{}-{}.bin", ::getpid(), tables.fetch_add(1)))
                .string();
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) throw exactune::error("cannot write " + path_);
    std::fwrite(pairs.data(), sizeof(std::uint32_t), pairs.size(), f);
    if (std::fclose(f) != 0) throw exactune::error("cannot write " + path_);
    setenv("EXACTUNE_HOST_RSQRTF_TABLE", path_.c_str(), 1);
  }
  ~ScopedRsqrtfTable() {
    unsetenv("EXACTUNE_HOST_RSQRTF_TABLE");
    std::filesystem::remove(path_);
  }
  ScopedRsqrtfTable(const ScopedRsqrtfTable&) = delete;
  ScopedRsqrtfTable& operator=(const ScopedRsqrtfTable&) = delete;

 private:
  std::string path_;
};

// "" when equal; else the count and the first differing element.
template <class T>
std::string golden_difference(const std::vector<T>& torch, const std::vector<T>& ours, std::int64_t row_length) {
  std::size_t count = 0, first = 0;
  for (std::size_t i = 0; i < torch.size(); ++i) {
    if (i < ours.size() && torch[i] == ours[i]) continue;
    if (count++ == 0) first = i;
  }
  if (torch.size() != ours.size()) return fmt::format("{} values, torch has {}", ours.size(), torch.size());
  if (count == 0) return "";
  return fmt::format("{} of {} differ; first at row {}, column {}: torch 0x{:x}, exactune 0x{:x}", count, torch.size(),
                     first / row_length, first % row_length, torch[first], ours[first]);
}

template <class T>
std::vector<std::uint32_t> bits32(const std::vector<T>& values) {
  std::vector<std::uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(T));
  return bits;
}

// A workload on torch's inputs whose expected outputs are torch's own: `torch`
// holds each of the inner workload's output regions in turn, and stands in for
// its reference.
class TorchExpectedWorkload : public exactune::Workload {
 public:
  TorchExpectedWorkload(exactune::Backend& backend, std::unique_ptr<exactune::Workload> inner,
                        std::vector<std::uint16_t> torch)
      : inner_(std::move(inner)),
        torch_(std::move(torch)),
        torch_on_device_(backend, exactune::padded_bytes(static_cast<std::int64_t>(torch_.size()), 2)) {
    backend.upload(torch_on_device_.address(), torch_.data(), torch_.size() * 2);
    std::int64_t at = 0;
    for (exactune::OutputRegion region : inner_->output_regions()) {
      region.reference = torch_on_device_.address() + static_cast<exactune::DeviceAddress>(at) * 2;
      at += region.elements;
      regions_.push_back(region);
    }
    if (at != static_cast<std::int64_t>(torch_.size())) {
      throw exactune::error(fmt::format("torch's outputs hold {} elements, the workload's {}", torch_.size(), at));
    }
  }
  void launch_reference() override {}  // the expected outputs are torch's
  void poison_output() override { inner_->poison_output(); }
  void launch_variant(const exactune::LoadedKernel& k, const exactune::Variant& v) override {
    inner_->launch_variant(k, v);
  }
  void launch_copy() override { inner_->launch_copy(); }
  std::vector<exactune::OutputRegion> output_regions() const override { return regions_; }
  std::vector<std::uint16_t> download_reference_output() override { return torch_; }
  std::vector<std::uint16_t> download_output() override { return inner_->download_output(); }
  std::int64_t row_length() const override { return inner_->row_length(); }
  std::int64_t bytes_moved() const override { return inner_->bytes_moved(); }

 private:
  std::unique_ptr<exactune::Workload> inner_;
  std::vector<std::uint16_t> torch_;
  exactune::DeviceBuffer torch_on_device_;
  std::vector<exactune::OutputRegion> regions_;
};

}  // namespace exactune_test
