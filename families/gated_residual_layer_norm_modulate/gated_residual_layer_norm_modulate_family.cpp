// The gated residual family's KernelFamily: its problems and shapes, space,
// compile requests, cases and launch rules, mostly layer_norm_modulate's (the
// same parameters, axes and names), with its own kernel, the residual's
// reference kernels, two outputs and the bytes they move; and its registration.
#include "gated_residual_layer_norm_modulate_family.hpp"

#include <fmt/format.h>

#include <exactune/family_registry.hpp>
#include <exactune/workload.hpp>

#include "gated_residual_layer_norm_modulate_workload.hpp"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

namespace exactune {
namespace {

constexpr const char* kEagerTemplate = "families/gated_residual_layer_norm_modulate/kernels/eager_gated_residual.cuh";

// The family this one builds on: its problems, LayerNorm and modulate chain,
// reference and launch rules are this family's after the residual.
const KernelFamily& chain() { return layer_norm_modulate_family(); }

LayerNormModulateConfig decode(const std::vector<Param>& params) { return gated_residual_axis_table().decode(params); }

class GatedResidualLayerNormModulateFamily final : public KernelFamily {
 public:
  std::string name() const override { return "gated_residual_layer_norm_modulate"; }

  std::string description() const override {
    return "gated residual + LayerNorm (no affine) + adaLN modulate, bf16: r = x + gate * h, "
           "out = LN(r) * (1 + scale) + shift, both bit-exact with torch 2.11's eager ops";
  }

  // at::mul and at::add (alpha 1), each rounding to bf16, before the chain.
  std::string reference_recipe() const override { return "aten-2.11-eager-mul-add+" + chain().reference_recipe(); }

  std::vector<ParameterSpec> shape_parameters() const override {
    std::vector<ParameterSpec> parameters = chain().shape_parameters();
    for (ParameterSpec& p : parameters) {
      if (p.name != "modulation_rows") continue;
      p.description =
          "shift, scale and gate are rows 0, 1 and 2 of a (batch, modulation_rows, hidden) embedding, >= 3; 3 means "
          "a contiguous (batch, 3, hidden) tensor, 6 chunks of adaLN-Zero's (batch, 6, hidden)";
      p.default_value = 3.0;
    }
    return parameters;
  }

  std::string size_parameter() const override { return chain().size_parameter(); }

  std::string parameter_problem(const std::string& name, double value) const override {
    if (name == "modulation_rows" && value < kGateEmbeddingRow + 1) {
      return fmt::format("modulation_rows {} leaves no row for gate (shift, scale and gate need 3)", value);
    }
    return chain().parameter_problem(name, value);
  }

  void complete(Shape& shape) const override { chain().complete(shape); }

  std::string default_shapes_path() const override { return "shapes/gated_residual_layer_norm_modulate.yaml"; }

  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    return chain().with_rows_at_most(shape, rows);
  }

  std::vector<Axis> axes() const override { return gated_residual_axis_table().axes(); }

  std::string variant_name(const std::vector<Param>& params) const override {
    return gated_residual_axis_table().variant_name(params);
  }

  // The row source holds nothing across the reduction that x did not: r takes
  // x's registers, and gate is used as the row loads.
  std::string exclusion(const std::vector<Param>& params, int hidden) const override {
    return decode(params).exclusion(hidden);
  }

  CompileRequest variant_request(const Variant& variant, int hidden, const std::string& target) const override {
    return gated_residual_axis_table().request(variant, fmt::format("gated_{}@D{}", variant.name, hidden), hidden,
                                               target);
  }

  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    std::vector<CompileRequest> requests = chain().support_requests(target);
    requests.push_back({"eager_gate_product", kEagerTemplate, "&exactune_kernels::eager_gate_product", target, {}});
    requests.push_back({"eager_residual_add", kEagerTemplate, "&exactune_kernels::eager_residual_add", target, {}});
    return requests;
  }

  std::vector<InputCase> input_cases(const Shape& shape) const override {
    return modulate_input_cases(ModulateProblem::of(shape).eps, describe_case);
  }

  InputCase timing_case(const Shape& shape) const override {
    return modulate_timing_case(ModulateProblem::of(shape).eps, describe_case);
  }

  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase& input_case, std::uint64_t seed) const override {
    return make_gated_residual_workload(backend, support, shape, input_case, seed);
  }

  // Read x and h, write r and out, and read gate, scale and shift: a row of
  // each per batch element, as many rows as x's with per-token modulation.
  std::int64_t bytes_moved(const Shape& shape) const override {
    const ModulateProblem p = ModulateProblem::of(shape);
    return 2 * (4 * shape.rows() + 3 * std::int64_t{p.batch}) * p.hidden;
  }

  // The variants are named as layer_norm_modulate's, so its aten launch shape
  // names a variant of this family too.
  Configuration global_default() const override { return chain().global_default(); }
  std::string global_default_reason() const override { return chain().global_default_reason(); }
  std::vector<SizeFallback> size_fallbacks() const override { return chain().size_fallbacks(); }
  HeatmapAxes heatmap_axes() const override { return chain().heatmap_axes(); }
  // No framework_rule: layer_norm_modulate's is SGLang's rule for the chain
  // without the residual, and none is known for this fused op.

 private:
  static InputCase describe_case(const ModulateCase& c) {
    if (c.signed_zeros) {
      return {c.name, fmt::format("x and h: rows of signed zeros and sparse N(0,1) among signed zeros; gate holding "
                                  "-1, -0, 0, 1; shift with signed zeros, eps {:g}",
                                  c.eps)};
    }
    const std::string offset = c.offset != 0 ? fmt::format("{:g} + ", c.offset) : "";
    return {c.name, fmt::format("x ~ {}{:g} * N(mu_row, 1), h ~ {:g} * N(0, 1), gate holding -1, -0, 0, 1, scale "
                                "holding -1, 0, 1, eps {:g}",
                                offset, c.amplitude, c.amplitude, c.eps)};
  }
};

}  // namespace

std::vector<std::int64_t> gated_residual_copy_elements(const Shape& shape) {
  const ModulateProblem p = ModulateProblem::of(shape);
  const std::int64_t x = shape.rows() * p.hidden;
  // hidden is a multiple of 4 wherever the family serves it, so half of 3 rows is whole.
  return {x, x, 3 * std::int64_t{p.batch} * p.hidden / 2};
}

Shape gated_residual_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows) {
  return modulate_shape(std::move(name), batch, tokens, hidden, eps, modulation_rows);
}

const KernelFamily& gated_residual_layer_norm_modulate_family() {
  static const GatedResidualLayerNormModulateFamily family;
  return family;
}

EXACTUNE_REGISTER_FAMILY(gated_residual_layer_norm_modulate_family(), 40)

}  // namespace exactune
