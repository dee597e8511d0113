#include "torch_golden.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include <exactune/error.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"

namespace exactune_test {

namespace {

constexpr std::uint16_t kNaN = 0x7fc0;  // bf16 quiet NaN: what an embedding row nobody should read holds

// Takes consecutive little-endian arrays out of one case's bytes.
class CaseReader {
 public:
  CaseReader(const std::vector<char>& data, std::size_t offset, std::size_t bytes, std::string where)
      : data_(data), at_(offset), end_(offset + bytes), where_(std::move(where)) {
    if (end_ > data_.size()) {
      throw exactune::error(
          fmt::format("{}: bytes {}..{} lie past the data's end ({} bytes)", where_, offset, end_, data_.size()));
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

template <class T>
T required(const YAML::Node& node, const char* key, const std::string& where) {
  if (!node[key]) throw exactune::error(fmt::format("{}: no '{}'", where, key));
  return node[key].as<T>();
}

}  // namespace

exactune::Shape TorchGolden::shape(const TorchGoldenCase& c) const {
  exactune::Shape s = exactune::modulate_shape("torch-" + c.name, batch, tokens, c.hidden, c.eps, modulation_rows);
  s.model = "torch golden data";
  return s;
}

exactune::ModulateInputs TorchGolden::inputs(const TorchGoldenCase& c) const {
  exactune::ModulateInputs in;
  in.x = c.x;
  const std::size_t stride = static_cast<std::size_t>(modulation_rows) * c.hidden;
  in.embedding.assign(static_cast<std::size_t>(batch) * stride, kNaN);
  for (int b = 0; b < batch; ++b) {
    for (int d = 0; d < c.hidden; ++d) {
      in.embedding[b * stride + shift_row * c.hidden + d] = c.shift[b * c.hidden + d];
      in.embedding[b * stride + scale_row * c.hidden + d] = c.scale[b * c.hidden + d];
    }
  }
  in.shift_offset = static_cast<std::int64_t>(shift_row) * c.hidden;
  in.scale_offset = static_cast<std::int64_t>(scale_row) * c.hidden;
  in.eps = static_cast<float>(c.eps);
  return in;
}

const TorchGoldenCase& TorchGolden::find(const std::string& name) const {
  for (const TorchGoldenCase& c : cases) {
    if (c.name == name || "torch-" + c.name == name) return c;
  }
  throw exactune::error("no torch golden case " + name);
}

TorchGolden read_torch_golden(const std::string& dir) {
  const std::string manifest_path = dir + "/layer_norm_modulate.yaml";
  const YAML::Node manifest = YAML::LoadFile(manifest_path);
  TorchGolden golden;
  const YAML::Node source = manifest["source"];
  golden.source = fmt::format("torch {} (CUDA {}) on {}", required<std::string>(source, "torch", manifest_path),
                              required<std::string>(source, "cuda_build", manifest_path),
                              required<std::string>(source, "gpu", manifest_path));
  golden.batch = required<int>(manifest, "batch", manifest_path);
  golden.tokens = required<int>(manifest, "tokens", manifest_path);
  golden.modulation_rows = required<int>(manifest, "modulation_rows", manifest_path);
  golden.shift_row = required<int>(manifest, "shift_row", manifest_path);
  golden.scale_row = required<int>(manifest, "scale_row", manifest_path);
  const int window = required<int>(manifest, "rsqrt_window", manifest_path);
  const std::string data_path = dir + "/" + required<std::string>(manifest, "data", manifest_path);
  std::ifstream file(data_path, std::ios::binary);
  if (!file) throw exactune::error("cannot read " + data_path);
  const std::vector<char> data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t rows = static_cast<std::size_t>(golden.rows());
  for (const YAML::Node& node : manifest["cases"]) {
    TorchGoldenCase c;
    c.name = required<std::string>(node, "name", manifest_path);
    const std::string where = fmt::format("{}, case {}", manifest_path, c.name);
    c.hidden = required<int>(node, "hidden", where);
    c.eps = required<double>(node, "eps", where);
    CaseReader read(data, required<std::size_t>(node, "offset_bytes", where),
                    required<std::size_t>(node, "bytes", where), where);
    const std::size_t d = static_cast<std::size_t>(c.hidden), b = static_cast<std::size_t>(golden.batch);
    c.x = read.take<std::uint16_t>(rows * d);
    c.shift = read.take<std::uint16_t>(b * d);
    c.scale = read.take<std::uint16_t>(b * d);
    c.mean = read.take<std::uint32_t>(rows);
    c.rstd = read.take<std::uint32_t>(rows);
    c.layer_norm = read.take<std::uint16_t>(rows * d);
    c.out = read.take<std::uint16_t>(rows * d);
    c.rsqrt_window = read.take<std::uint32_t>(rows * window * 2);
    read.require_end();
    golden.cases.push_back(std::move(c));
  }
  if (golden.cases.empty()) throw exactune::error(manifest_path + ": no cases");
  return golden;
}

void write_rsqrtf_table(const TorchGolden& golden, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw exactune::error("cannot write " + path);
  for (const TorchGoldenCase& c : golden.cases) {
    std::fwrite(c.rsqrt_window.data(), sizeof(std::uint32_t), c.rsqrt_window.size(), f);
  }
  if (std::fclose(f) != 0) throw exactune::error("cannot write " + path);
}

}  // namespace exactune_test
