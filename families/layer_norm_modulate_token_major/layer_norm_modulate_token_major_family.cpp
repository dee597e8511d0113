#include "layer_norm_modulate_token_major_family.hpp"

#include <fmt/format.h>

#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate_token_major_workload.hpp"

namespace exactune {
namespace {

constexpr const char* kTransposeTemplate = "families/layer_norm_modulate_token_major/kernels/transpose_tokens.cuh";
// The most shared memory one CTA may hold on sm_90 and sm_100 (227 KiB). A
// GPU that allows less refuses the launch, and the run records its error.
constexpr std::int64_t kMaxTileBytes = 227 * 1024;
// A lanes variant holds its x in registers between the passes; past this many
// registers of x a thread would spill, so such a variant is not compiled.
constexpr int kMaxLanesValueRegisters = 96;
constexpr int kAtenLanes = 128;

// The contiguous family's levers that this family does not vary, held at the
// values of that family's best variants at Sana's hidden size on the H200
// (reports/nvidia-h200/layer_norm_modulate/summary.md, "What each axis is
// worth"): peeled and predicated tails time the same, bf16x2 beats f32 and
// rcp counts beat fold there, and a tile's rows are held in registers.
LayerNormModulateConfig fixed_row_plan() {
  LayerNormModulateConfig plan;
  plan.peeled_tail = false;
  plan.row_in_registers = true;
  plan.folded_counts = false;
  plan.packed_bf16x2 = true;
  return plan;
}

const KernelFamily& contiguous() { return layer_norm_modulate_family(); }

// Why a lanes variant is not in the space at `hidden`, or "", once its held
// axes keep their first values (the table's held_off).
std::string lanes_exclusion(const TokenMajorConfig& c, int hidden) {
  const int lane_tokens = c.token_bytes / 2;
  if (c.tile_tokens % lane_tokens != 0 || (c.run_threads() != 1 && c.run_threads() != 2 && c.run_threads() != 4)) {
    return fmt::format("a tile of {} tokens is not 1, 2 or 4 threads' runs of {} tokens", c.tile_tokens, lane_tokens);
  }
  if (c.num_warps != 4 * c.run_threads()) {
    return fmt::format("{} threads to a lane over a tile of {} tokens need num_warps {}", c.run_threads(),
                       c.tile_tokens, 4 * c.run_threads());
  }
  if (hidden % 4 != 0) return fmt::format("hidden {} is not a multiple of 4 (aten's vectors)", hidden);
  const int rounds = (hidden / 4 + kAtenLanes - 1) / kAtenLanes;
  const int value_registers = rounds * 4 * lane_tokens / 2;
  if (value_registers > kMaxLanesValueRegisters) {
    return fmt::format("a thread would hold {} registers of x ({} vectors of {} tokens), over {}", value_registers,
                       rounds, lane_tokens, kMaxLanesValueRegisters);
  }
  // The bound on registers bounds the staged next tile too: a register of x
  // is 4 bytes of each of the CTA's 128 * 4 threads at most, so 2 KiB, and
  // 96 of them are 192 KiB, under kMaxTileBytes.
  static_assert(kMaxLanesValueRegisters * 4 * kAtenLanes * 4 <= kMaxTileBytes);
  return {};
}

class LayerNormModulateTokenMajorFamily final : public KernelFamily {
 public:
  std::string name() const override { return "layer_norm_modulate_token_major"; }

  std::string description() const override {
    return "LayerNorm (no affine) + adaLN modulate of a token-major x ((B, N, C) stored as (B, C, N), Sana's "
           "layout), bf16, bit-exact with torch 2.11's x.contiguous() and eager chain";
  }

  std::string reference_recipe() const override { return contiguous().reference_recipe() + "+transpose-copy"; }

  std::vector<ParameterSpec> shape_parameters() const override { return contiguous().shape_parameters(); }
  std::string size_parameter() const override { return contiguous().size_parameter(); }
  std::string parameter_problem(const std::string& name, double value) const override {
    return contiguous().parameter_problem(name, value);
  }
  void complete(Shape& shape) const override { contiguous().complete(shape); }
  std::string default_shapes_path() const override { return "shapes/layer_norm_modulate_token_major.yaml"; }
  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    return contiguous().with_rows_at_most(shape, rows);
  }

  std::vector<Axis> axes() const override { return TokenMajorConfig::table().axes(); }

  std::string variant_name(const std::vector<Param>& params) const override {
    return TokenMajorConfig::table().variant_name(params);
  }

  // A part's held axes are no lever of its variants (a copy variant reads no tile).
  bool axis_applies(const std::string& axis, const std::vector<Param>& params) const override {
    return TokenMajorConfig::table().applies(axis, params);
  }

  std::string exclusion(const std::vector<Param>& params, int hidden) const override {
    if (std::string why = TokenMajorConfig::table().held_off(params); !why.empty()) return why;
    const TokenMajorConfig c = TokenMajorConfig::decode(params);
    if (c.read == TokenMajorRead::lanes) return lanes_exclusion(c, hidden);
    const bool tile = c.read == TokenMajorRead::tile;
    if (tile && c.token_bytes / 2 > c.tile_tokens) {
      return fmt::format("a load of {} tokens is longer than a tile of {}", c.token_bytes / 2, c.tile_tokens);
    }
    if (tile && c.rows_per_cta > c.tile_tokens) {
      return fmt::format("{} rows at once in a tile of {} tokens", c.rows_per_cta, c.tile_tokens);
    }
    const Variant row_plan = c.contiguous_variant();
    if (std::string why = contiguous().exclusion(row_plan.params, hidden); !why.empty()) return why;
    if (tile && c.tile_bytes(hidden) > kMaxTileBytes) {
      return fmt::format(
          "a tile of {} tokens of {} values takes {} bytes of shared memory, over the {} a CTA may "
          "hold on sm_90",
          c.tile_tokens, hidden, c.tile_bytes(hidden), kMaxTileBytes);
    }
    return {};
  }

  // A copy variant compiles the contiguous family's kernel of its row plan:
  // one cache entry for both families.
  CompileRequest variant_request(const Variant& variant, int hidden, const std::string& target) const override {
    const std::string name = fmt::format("{}@D{}", variant.name, hidden);
    const TokenMajorConfig c = TokenMajorConfig::from(variant);
    if (c.in_place()) return TokenMajorConfig::table().request(variant, name, hidden, target);
    CompileRequest r = contiguous().variant_request(c.contiguous_variant(), hidden, target);
    r.name = name;
    return r;
  }

  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    std::vector<CompileRequest> requests = contiguous().support_requests(target);
    requests.push_back({"transpose_tokens", kTransposeTemplate, "&exactune_kernels::transpose_tokens", target, {}});
    return requests;
  }

  std::vector<InputCase> input_cases(const Shape& shape) const override { return contiguous().input_cases(shape); }
  InputCase timing_case(const Shape& shape) const override { return contiguous().timing_case(shape); }

  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase& input_case, std::uint64_t seed) const override {
    return make_token_major_workload(backend, support, shape, input_case, seed);
  }

  // What a fused kernel must move is the contiguous family's: x once, out once.
  std::int64_t bytes_moved(const Shape& shape) const override { return contiguous().bytes_moved(shape); }

  // What aten does, x.contiguous() and then its own launch shape, is valid at
  // every hidden size.
  Configuration global_default() const override {
    const Configuration row_plan = contiguous().global_default();
    std::vector<Param> params;
    for (const Axis& axis : axes()) {
      const std::string* planned = find_param(row_plan.params, axis.name);
      params.push_back({axis.name, planned ? *planned : axis.values.front()});
    }
    return {variant_name(params), params};
  }

  std::string global_default_reason() const override {
    return "aten's own path: x.contiguous() by a transpose copy, then aten's launch shape (4 warps, one row per "
           "CTA, 8-byte loads), valid for every hidden % 4 == 0";
  }

  std::vector<SizeFallback> size_fallbacks() const override { return contiguous().size_fallbacks(); }

  HeatmapAxes heatmap_axes() const override { return {"tile_tokens", "num_warps", "read"}; }

  // No framework rule: SGLang's fused LayerNorm + modulate takes a contiguous
  // x only, so a token-major x runs the eager chain (a transpose copy, then
  // aten's kernels) and no hand-chosen launch exists to measure the tables
  // against. The reports say "no framework rule".
  std::optional<FrameworkRule> framework_rule(const Shape&) const override { return std::nullopt; }

  // The copy variants are aten's own path with a tuned kernel: the baseline
  // that the in-place reads are measured against, which the runtime cannot
  // launch. A table that chose one would send its rows to the eager chain.
  std::string not_chosen_because(const std::vector<Param>& params) const override {
    if (TokenMajorConfig::decode(params).in_place()) return {};
    return "a copy variant needs a buffer for x's contiguous copy, which the runtime does not hold; it is the "
           "baseline the in-place reads are measured against";
  }
};

}  // namespace

Variant TokenMajorConfig::contiguous_variant() const {
  LayerNormModulateConfig plan = fixed_row_plan();
  plan.num_warps = num_warps;
  plan.rows_per_cta = rows_per_cta;
  plan.vector_bytes = vector_bytes;
  plan.early_modulation = early_modulation;
  plan.persistent = persistent;
  return plan.variant();
}

// As token_tile<>::kRowStride in the kernel computes it (which checks the
// bytes it is given).
std::int64_t TokenMajorConfig::tile_bytes(int hidden) const {
  if (read == TokenMajorRead::lanes) {
    // The staged next tile, when there is one: every thread's runs of every
    // round (its few other shared bytes are static).
    if (tiles_per_cta == 1) return 0;
    const std::int64_t rounds = (hidden / 4 + kAtenLanes - 1) / kAtenLanes;
    return rounds * 4 * (std::int64_t{kAtenLanes} * run_threads()) * token_bytes;
  }
  constexpr int kSwizzleGroup = 64;  // elements: 8 units of 16 bytes
  const std::int64_t row_stride =
      swizzled ? (hidden + kSwizzleGroup - 1) / kSwizzleGroup * kSwizzleGroup : hidden + 4 * (vector_bytes / 8);
  return 2 * tile_tokens * row_stride;
}

unsigned token_tile_ctas(std::int64_t batch, std::int64_t tokens, int cta_tokens) {
  return static_cast<unsigned>((tokens + cta_tokens - 1) / cta_tokens * batch);
}

LaunchGeometry TokenMajorConfig::tile_geometry(int batch, int tokens, int hidden) const {
  return LaunchGeometry{Dim3{token_tile_ctas(batch, tokens, cta_tokens()), 1, 1}, Dim3{32u * num_warps, 1, 1},
                        static_cast<unsigned>(tile_bytes(hidden))};
}

Shape token_major_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows) {
  Shape shape = modulate_shape(std::move(name), batch, tokens, hidden, eps, modulation_rows);
  layer_norm_modulate_token_major_family().complete(shape);
  return shape;
}

const KernelFamily& layer_norm_modulate_token_major_family() {
  static const LayerNormModulateTokenMajorFamily family;
  return family;
}

EXACTUNE_REGISTER_FAMILY(layer_norm_modulate_token_major_family(), 30)

}  // namespace exactune
