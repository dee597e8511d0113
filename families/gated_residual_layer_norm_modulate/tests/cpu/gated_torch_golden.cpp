#include "gated_torch_golden.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <exactune/error.hpp>

#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "support/torch_golden_data.hpp"

namespace exactune_test {

const GatedTorchGolden::Residual& GatedTorchGolden::residual_of(const TorchGoldenCase& c) const {
  return residual.at(static_cast<std::size_t>(&c - modulate.cases.data()));
}

exactune::Shape GatedTorchGolden::shape(const TorchGoldenCase& c) const {
  exactune::Shape s = exactune::gated_residual_shape("torch-" + c.name, modulate.batch, modulate.tokens, c.hidden,
                                                     c.eps, modulate.modulation_rows);
  s.model = "torch golden data";
  return s;
}

exactune::GatedResidualInputs GatedTorchGolden::inputs(const TorchGoldenCase& c) const {
  exactune::GatedResidualInputs in;
  in.modulate = modulate.inputs(c);
  const Residual& res = residual_of(c);
  in.h = res.h;
  in.gate_offset = static_cast<std::int64_t>(gate_row) * c.hidden;
  const std::size_t stride = static_cast<std::size_t>(modulate.modulation_rows) * c.hidden;
  for (int b = 0; b < modulate.batch; ++b) {
    for (int d = 0; d < c.hidden; ++d) {
      in.modulate.embedding[b * stride + in.gate_offset + d] = res.gate[b * c.hidden + d];
    }
  }
  return in;
}

GatedTorchGolden read_gated_torch_golden(const std::string& dir) {
  const GoldenFile file = read_golden_file(dir, "gated_residual_layer_norm_modulate");
  const std::string& manifest_path = file.manifest_path;
  const YAML::Node& manifest = file.manifest;
  GatedTorchGolden golden;
  TorchGolden& m = golden.modulate;
  m.source = file.source;
  m.batch = golden_required<int>(manifest, "batch", manifest_path);
  m.tokens = golden_required<int>(manifest, "tokens", manifest_path);
  m.modulation_rows = golden_required<int>(manifest, "modulation_rows", manifest_path);
  m.shift_row = golden_required<int>(manifest, "shift_row", manifest_path);
  m.scale_row = golden_required<int>(manifest, "scale_row", manifest_path);
  golden.gate_row = golden_required<int>(manifest, "gate_row", manifest_path);
  const std::size_t rows = static_cast<std::size_t>(m.rows());
  const std::size_t window = static_cast<std::size_t>(file.rsqrt_window);
  for (const YAML::Node& node : manifest["cases"]) {
    TorchGoldenCase c;
    GatedTorchGolden::Residual res;
    c.name = golden_required<std::string>(node, "name", manifest_path);
    const std::string where = fmt::format("{}, case {}", manifest_path, c.name);
    c.hidden = golden_required<int>(node, "hidden", where);
    c.eps = golden_required<double>(node, "eps", where);
    GoldenCaseReader read(file, node, where);
    const std::size_t d = static_cast<std::size_t>(c.hidden), b = static_cast<std::size_t>(m.batch);
    c.x = read.take<std::uint16_t>(rows * d);
    res.h = read.take<std::uint16_t>(rows * d);
    c.shift = read.take<std::uint16_t>(b * d);
    c.scale = read.take<std::uint16_t>(b * d);
    res.gate = read.take<std::uint16_t>(b * d);
    c.mean = read.take<std::uint32_t>(rows);
    c.rstd = read.take<std::uint32_t>(rows);
    res.r = read.take<std::uint16_t>(rows * d);
    c.out = read.take<std::uint16_t>(rows * d);
    c.rsqrt_window = read.take<std::uint32_t>(rows * window * 2);
    read.require_end();
    m.cases.push_back(std::move(c));
    golden.residual.push_back(std::move(res));
  }
  return golden;
}

}  // namespace exactune_test
