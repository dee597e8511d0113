#include "layer_norm_modulate_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "layer_norm_modulate_workload.hpp"

namespace exactune {
namespace {

constexpr int kAtenLanesPerRow = 128;   // aten's block of (32, 4) threads per row
constexpr int kRowRegisterBudget = 64;  // 32-bit registers a thread may spend holding its part of a row
constexpr int kMaxHidden = 8192;        // the largest hidden size the tuning space covers
constexpr const char* kEagerTemplate = "families/layer_norm_modulate/kernels/eager_chain.cuh";

LayerNormModulateConfig decode(const std::vector<Param>& params) {
  return LayerNormModulateConfig::table().decode(params);
}

class LayerNormModulateFamily final : public KernelFamily {
 public:
  std::string name() const override { return "layer_norm_modulate"; }

  std::string description() const override {
    return "LayerNorm (no affine) + adaLN modulate, bf16: out = LN(x) * (1 + scale) + shift, "
           "bit-exact with torch 2.11's eager chain";
  }

  // cu130: torch's CUDA build, whose own machine code confirmed the pattern
  // (docs/aten-layernorm-bf16.md, "Confirmed from torch's binary").
  std::string reference_recipe() const override { return "aten-2.11-cu130-vectorized-layer-norm-v4x128"; }

  std::vector<ParameterSpec> shape_parameters() const override {
    return {
        {"batch", "batch size, > 0", true, {}},
        {"tokens", "tokens per batch element, > 0", true, {}},
        {"hidden",
         "hidden size: a multiple of 4 in 4..8192 (aten's vectorized LayerNorm needs hidden % 4 == 0)",
         true,
         {}},
        {"eps", "the LayerNorm epsilon, > 0", false, {}},
        {"modulation_rows",
         "scale and shift are rows of a (batch, modulation_rows, hidden) embedding; 1 means "
         "contiguous (batch, 1, hidden) tensors, 6 chunks of adaLN-Zero's (batch, 6, hidden)",
         true, 1.0},
    };
  }

  std::string size_parameter() const override { return "hidden"; }

  std::string parameter_problem(const std::string& name, double value) const override {
    if (name == "hidden") {
      if (value <= 0 || value > kMaxHidden)
        return fmt::format("hidden {} is out of range (must be 1..{})", value, kMaxHidden);
      if (static_cast<std::int64_t>(value) % 4 != 0) {
        return fmt::format("hidden {} is not a multiple of 4 (aten's vectorized LayerNorm needs hidden % 4 == 0)",
                           value);
      }
      return {};
    }
    if (name == "eps") return value > 0 ? "" : fmt::format("eps {} must be a finite number > 0", value);
    return value > 0 ? "" : fmt::format("{} {} must be > 0", name, value);
  }

  void complete(Shape& shape) const override {
    const ModulateProblem p = ModulateProblem::of(shape);
    shape.size = p.hidden;
    shape.row_count = static_cast<std::int64_t>(p.batch) * p.tokens;
  }

  std::string default_shapes_path() const override { return "shapes/layer_norm_modulate.yaml"; }

  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    const ModulateProblem p = ModulateProblem::of(shape);
    if (rows >= shape.rows()) return shape;
    // Exactly `rows` rows: as many batch elements as divide them (each reads
    // its own scale and shift row), each with an equal share of tokens, which
    // may pass the shape's own count where the batch cannot divide the rows.
    const RowSplit split = split_rows(rows, p.batch);
    const std::int64_t batch = split.outer;
    const std::int64_t tokens = split.inner;
    Shape cut = shape;
    for (ShapeParameter& parameter : cut.parameters) {
      if (parameter.name == "batch") parameter.value = static_cast<double>(batch);
      if (parameter.name == "tokens") parameter.value = static_cast<double>(tokens);
    }
    complete(cut);
    return cut;
  }

  std::vector<Axis> axes() const override { return LayerNormModulateConfig::table().axes(); }

  std::string variant_name(const std::vector<Param>& params) const override {
    return LayerNormModulateConfig::table().variant_name(params);
  }

  std::string exclusion(const std::vector<Param>& params, int hidden) const override {
    return decode(params).exclusion(hidden);
  }

  CompileRequest variant_request(const Variant& variant, int hidden, const std::string& target) const override {
    return LayerNormModulateConfig::table().request(variant, fmt::format("{}@D{}", variant.name, hidden), hidden,
                                                    target);
  }

  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    auto request = [&](const char* name, const char* file, const char* expression) {
      return CompileRequest{name, file, expression, target, {}};
    };
    return {
        request("aten_layer_norm", "kernel_templates/reference_layer_norm.cuh", "&exactune_kernels::aten_layer_norm"),
        request("eager_one_plus", kEagerTemplate, "&exactune_kernels::eager_one_plus"),
        request("eager_scale", kEagerTemplate, "&exactune_kernels::eager_scale"),
        request("eager_shift", kEagerTemplate, "&exactune_kernels::eager_shift"),
        request("copy_regions", "kernel_templates/copy.cuh", "&exactune_kernels::copy_regions"),
    };
  }

  std::vector<InputCase> input_cases(const Shape& shape) const override {
    return modulate_input_cases(ModulateProblem::of(shape).eps, describe_case);
  }

  // The shape's own eps.
  InputCase timing_case(const Shape& shape) const override {
    return modulate_timing_case(ModulateProblem::of(shape).eps, describe_case);
  }

  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase& input_case, std::uint64_t seed) const override {
    return make_layer_norm_modulate_workload(backend, support, shape, input_case, seed);
  }

  // Read x and write out, and read scale and shift: a row of each per batch
  // element, noise beside x for a DiT's thousands of tokens, as many rows as
  // x's with per-token modulation (a batch element per token).
  std::int64_t bytes_moved(const Shape& shape) const override {
    const ModulateProblem p = ModulateProblem::of(shape);
    return 2 * (2 * shape.rows() + 2 * std::int64_t{p.batch}) * p.hidden;
  }

  // aten's own launch shape for its vectorized LayerNorm: 4 warps, one row per
  // CTA, every chunk guarded, 8-byte loads, x read twice; an axis aten has no
  // counterpart of takes its first value, the baseline.
  Configuration global_default() const override {
    static const std::map<std::string, std::string, std::less<>> aten = {
        {"num_warps", "4"}, {"rows_per_cta", "1"}, {"tail", "predicated"}, {"vector_bytes", "8"}, {"pass2", "reload"}};
    Configuration c;
    for (const Axis& axis : axes()) {
      const auto it = aten.find(axis.name);
      c.params.push_back({axis.name, it != aten.end() ? it->second : axis.values.front()});
    }
    c.variant = variant_name(c.params);
    return c;
  }

  std::string global_default_reason() const override {
    return "aten's own launch shape (4 warps, one row per CTA, 8-byte loads), valid for every hidden % 4 == 0";
  }

  std::vector<SizeFallback> size_fallbacks() const override {
    return {{"vector_bytes", "16", "8", 8, "16-byte loads need 16-byte aligned rows", 16}};
  }

  HeatmapAxes heatmap_axes() const override { return {"num_warps", "rows_per_cta", "tail"}; }

  // SGLang's Triton LayerNorm + modulate (its Sana path) launches
  // `num_warps = 4 if hidden >= 2048 else 2` with ROWS = 2 rows a program.
  // The axes the rule leaves open are set to what that kernel does: it loads
  // aten's 4-element vectors (8 bytes), masks only the partial 512-element
  // chunk, resolved at compile time (peeled; where the row leaves no tail,
  // peeled is the predicated kernel and exactune names it so), reads x again in
  // its second pass, carries Welford counts with the data (rcp), loads scale
  // and shift in the second pass, rounds each fp32 step of the chain to bf16
  // and runs one program per ROWS rows.
  std::optional<FrameworkRule> framework_rule(const Shape& shape) const override {
    const int hidden = ModulateProblem::of(shape).hidden;
    LayerNormModulateConfig c;
    c.num_warps = hidden >= 2048 ? 4 : 2;
    c.rows_per_cta = 2;
    c.vector_bytes = 8;
    c.peeled_tail = true;
    if (!exclusion(c.variant().params, hidden).empty()) {
      LayerNormModulateConfig predicated = c;
      predicated.peeled_tail = false;
      if (exclusion(predicated.variant().params, hidden).empty()) c = predicated;
    }
    const Variant v = c.variant();
    return FrameworkRule{
        "SGLang",
        "num_warps = 4 if hidden >= 2048 else 2, ROWS = 2 rows per program",
        {v.name, v.params},
        "the rule fixes num_warps and rows_per_cta; the rest is what SGLang's Triton kernel does: 8-byte loads of "
        "aten's vectors, only the partial 512-element chunk masked (peeled; predicated, the same kernel, where the "
        "row has no partial chunk), x read again in pass 2, counts carried with the data (rcp), scale and shift "
        "loaded in pass 2, each fp32 step rounded to bf16, one program per 2 rows"};
  }

 private:
  static InputCase describe_case(const ModulateCase& c) {
    if (c.signed_zeros) {
      return {c.name, fmt::format("rows of signed zeros (variance 0) and sparse N(0,1) among signed zeros, shift "
                                  "with signed zeros, eps {:g}",
                                  c.eps)};
    }
    const std::string offset = c.offset != 0 ? fmt::format("{:g} + ", c.offset) : "";
    return {c.name,
            fmt::format("x ~ {}{:g} * N(mu_row, 1), scale holding -1, 0, 1, eps {:g}", offset, c.amplitude, c.eps)};
  }
};

}  // namespace

std::string LayerNormModulateConfig::exclusion(int hidden) const {
  const LayerNormModulateConfig& c = *this;
  const int threads_in_cta = 32 * c.num_warps;
  if (threads_in_cta % c.rows_per_cta != 0 || c.threads_per_row() < 32) {
    return fmt::format(
        "{} rows over {} threads leave less than a warp per row; a row needs whole warps "
        "because aten's in-warp shuffle tree runs inside one",
        c.rows_per_cta, threads_in_cta);
  }
  const int threads = c.threads_per_row();
  if (threads > kAtenLanesPerRow) {
    return fmt::format("{} threads per row: more than aten's {} lanes per row, whose order must be kept", threads,
                       kAtenLanesPerRow);
  }
  const int lanes_per_load = c.aten_vectors_per_load();
  if (threads * lanes_per_load > kAtenLanesPerRow) {
    return fmt::format("a {}-byte load spans {} aten lanes, so {} threads per row would need {} lanes (aten has {})",
                       c.vector_bytes, lanes_per_load, threads, threads * lanes_per_load, kAtenLanesPerRow);
  }
  if (c.vector_bytes == 16 && hidden % 8 != 0) {
    return fmt::format(
        "16-byte loads need hidden % 8 == 0 so that every row starts 16-byte aligned "
        "(hidden {} leaves rows 8-byte aligned only)",
        hidden);
  }
  const int row_vectors = hidden / 4;
  const int chunk_vectors = threads * lanes_per_load;
  if (c.peeled_tail && row_vectors % chunk_vectors == 0) {
    return fmt::format(
        "no tail to peel: the row's {} aten vectors fill chunks of {} exactly, "
        "so peeled compiles to the same kernel as predicated",
        row_vectors, chunk_vectors);
  }
  if (c.persistent && !c.row_in_registers) {
    return "a persistent CTA holds the current row in registers while the next one loads: it needs pass2 "
           "registers";
  }
  const int chunks = (row_vectors + chunk_vectors - 1) / chunk_vectors;
  // Registers a thread spends holding data across the reduction: its part of
  // the row (pass2 registers; two rows in a persistent CTA, the current one
  // and the next) and of scale and shift (early modulation).
  const int per_copy = chunks * lanes_per_load * 2;
  const int rows_held = c.row_in_registers ? (c.persistent ? 2 : 1) : 0;
  const int held_registers = per_copy * (rows_held + (c.early_modulation ? 2 : 0));
  if (held_registers > kRowRegisterBudget) {
    const std::string rows = c.persistent ? "two rows" : "the row";
    return fmt::format(
        "holding {} across the reduction takes {} registers per thread ({} chunks of {} bytes "
        "each), over the budget of {}",
        c.row_in_registers && c.early_modulation ? rows + ", scale and shift"
        : c.row_in_registers                     ? rows
                                                 : std::string("scale and shift"),
        held_registers, chunks, c.vector_bytes, kRowRegisterBudget);
  }
  return {};
}

LaunchGeometry LayerNormModulateConfig::geometry(std::int64_t rows,
                                                 const std::function<unsigned(unsigned)>& resident_ctas) const {
  const unsigned block_threads = 32u * num_warps;
  const unsigned groups = static_cast<unsigned>((rows + rows_per_cta - 1) / rows_per_cta);
  const unsigned ctas = persistent ? std::min(groups, resident_ctas(block_threads)) : groups;
  return LaunchGeometry{Dim3{ctas, 1, 1}, Dim3{block_threads, 1, 1}, 0};
}

ModulateProblem ModulateProblem::of(const Shape& shape) {
  ModulateProblem p;
  p.batch = static_cast<int>(shape.integer("batch"));
  p.tokens = static_cast<int>(shape.integer("tokens"));
  p.hidden = static_cast<int>(shape.integer("hidden"));
  p.eps = shape.number("eps");
  p.modulation_stride = shape.integer("modulation_rows") * p.hidden;
  return p;
}

std::vector<std::int64_t> modulate_copy_elements(const Shape& shape) {
  const ModulateProblem p = ModulateProblem::of(shape);
  return {shape.rows() * p.hidden, std::int64_t{p.batch} * p.hidden};
}

Shape modulate_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows) {
  Shape shape;
  shape.name = std::move(name);
  shape.model = shape.name;
  shape.parameters = {{"batch", static_cast<double>(batch), true},
                      {"tokens", static_cast<double>(tokens), true},
                      {"hidden", static_cast<double>(hidden), true},
                      {"eps", eps, false},
                      {"modulation_rows", static_cast<double>(modulation_rows), true}};
  layer_norm_modulate_family().complete(shape);
  return shape;
}

const KernelFamily& layer_norm_modulate_family() {
  static const LayerNormModulateFamily family;
  return family;
}

EXACTUNE_REGISTER_FAMILY(layer_norm_modulate_family(), 10)

}  // namespace exactune
