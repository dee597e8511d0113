#include "torch_golden.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <exactune/error.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "support/torch_golden_data.hpp"

namespace exactune_test {

namespace {

constexpr std::uint16_t kNaN = 0x7fc0;  // bf16 quiet NaN: what an embedding row nobody should read holds

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
  const GoldenFile file = read_golden_file(dir, "layer_norm_modulate");
  const std::string& manifest_path = file.manifest_path;
  const YAML::Node& manifest = file.manifest;
  TorchGolden golden;
  golden.source = file.source;
  golden.batch = golden_required<int>(manifest, "batch", manifest_path);
  golden.tokens = golden_required<int>(manifest, "tokens", manifest_path);
  golden.modulation_rows = golden_required<int>(manifest, "modulation_rows", manifest_path);
  golden.shift_row = golden_required<int>(manifest, "shift_row", manifest_path);
  golden.scale_row = golden_required<int>(manifest, "scale_row", manifest_path);
  const std::size_t rows = static_cast<std::size_t>(golden.rows());
  const std::size_t window = static_cast<std::size_t>(file.rsqrt_window);
  for (const YAML::Node& node : manifest["cases"]) {
    TorchGoldenCase c;
    c.name = golden_required<std::string>(node, "name", manifest_path);
    const std::string where = fmt::format("{}, case {}", manifest_path, c.name);
    c.hidden = golden_required<int>(node, "hidden", where);
    c.eps = golden_required<double>(node, "eps", where);
    GoldenCaseReader read(file, node, where);
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
  return golden;
}

std::vector<std::uint32_t> rsqrtf_pairs(const TorchGolden& golden) {
  std::vector<std::uint32_t> pairs;
  for (const TorchGoldenCase& c : golden.cases) pairs.insert(pairs.end(), c.rsqrt_window.begin(), c.rsqrt_window.end());
  return pairs;
}

}  // namespace exactune_test
