#include "layer_norm_modulate_token_major_family.hpp"

#include <fmt/format.h>

#include <map>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate_token_major_workload.hpp"

namespace exactune {
namespace {

constexpr const char* kTileTemplate = "families/layer_norm_modulate_token_major/kernels/token_major_layer_norm_modulate.cuh";
constexpr const char* kLanesTemplate = "families/layer_norm_modulate_token_major/kernels/token_major_lanes.cuh";
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
const std::map<std::string, std::string, std::less<>>& fixed_row_plan() {
  static const std::map<std::string, std::string, std::less<>> fixed = {
      {"tail", "predicated"}, {"pass2", "registers"}, {"counts", "rcp"}, {"elementwise", "bf16x2"}};
  return fixed;
}

std::string value_of(const std::vector<Param>& params, const char* axis) {
  for (const Param& p : params) {
    if (p.axis == axis) return p.value;
  }
  throw error(fmt::format("layer_norm_modulate_token_major: no value for axis '{}'", axis));
}

const KernelFamily& contiguous() { return layer_norm_modulate_family(); }

// Why a lanes variant is not in the space at `hidden`, or "".
std::string lanes_exclusion(const TokenMajorConfig& c, int hidden) {
  if (c.rows_per_cta != 1 || c.vector_bytes != 8 || c.persistent || c.swizzled) {
    return "a lanes variant's threads are aten's lanes: rows_per_cta, vector_bytes, grid and tile_layout keep "
           "their first values";
  }
  const int lane_tokens = c.token_bytes / 2;
  if (c.tile_tokens % lane_tokens != 0 || (c.run_threads() != 1 && c.run_threads() != 2 && c.run_threads() != 4)) {
    return fmt::format("a tile of {} tokens is not 1, 2 or 4 threads' runs of {} tokens", c.tile_tokens,
                       lane_tokens);
  }
  if (c.num_warps != 4 * c.run_threads()) {
    return fmt::format("{} threads to a lane over a tile of {} tokens need num_warps {}", c.run_threads(), c.tile_tokens,
                       4 * c.run_threads());
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

  std::vector<Axis> axes() const override {
    return {
        {"read", "how x reaches the kernel: made contiguous by a transpose copy, then a contiguous variant (copy, "
                 "what aten and serving frameworks do), or read in place, a tile of tokens at a time, transposed "
                 "in shared memory (tile), or with no transpose, each thread one of aten's lanes for several "
                 "tokens (lanes)",
         {"copy", "tile", "lanes"}},
        {"num_warps", "warps per CTA (lanes: 4 for each thread that shares a lane)", {"2", "4", "8", "16"}},
        {"rows_per_cta", "rows a CTA normalises at once (copy: rows per CTA)", {"1", "2", "4", "8"}},
        {"vector_bytes", "bytes per load and store of a row (4 or 8 bf16)", {"8", "16"}},
        {"modulation", "when scale and shift are loaded: with each row's pass 2 (late), or before the row's "
                       "pass 1 and held (early; a tile's rows share them, so once per CTA)",
         {"late", "early"}},
        {"grid", "copy variants: one CTA per group of rows (full) or a persistent grid; tile variants: one CTA "
                 "per tile (full)",
         {"full", "persistent"}},
        {"tile_tokens", "in-place variants: tokens per CTA, read along N (16 fill a 32-byte sector; fewer make "
                        "more, smaller CTAs)",
         {"8", "2", "4", "16", "32"}},
        {"tile_layout", "tile variants: shared-memory rows padded by one packet (padded), or rows whose 16-byte "
                        "units are permuted by an XOR of the token so that one store's tokens fall in different "
                        "banks (swizzled)",
         {"padded", "swizzled"}},
        {"token_bytes", "in-place variants: bytes per load along N (2, 4 or 8 tokens; lanes: the tokens each "
                        "thread carries); partial or misaligned runs are read a token at a time",
         {"4", "8", "16"}},
        {"tiles_per_cta", "lanes variants: tiles a CTA normalises (strided by the batch element's CTAs), the next "
                          "one copied to shared memory while the current one is reduced and stored",
         {"1", "2", "4"}},
    };
  }

  std::string variant_name(const std::vector<Param>& params) const override {
    const TokenMajorConfig c = TokenMajorConfig::decode(params);
    const std::string row_plan =
        fmt::format("w{}_r{}_v{}_{}", c.num_warps, c.rows_per_cta, c.vector_bytes, c.early_modulation ? "early" : "late");
    const bool tile_axes_first = c.tile_tokens == 8 && !c.swizzled && c.token_bytes == 4;
    const std::string tile = fmt::format("tile{}_{}_n{}", c.tile_tokens, c.swizzled ? "swizzled" : "padded",
                                         c.token_bytes);
    if (c.read == TokenMajorRead::lanes) {
      // A lanes variant's row plan is its own: the other axes keep their first
      // values, and are named only where they do not.
      const std::string tiles = c.tiles_per_cta == 1 ? "" : fmt::format("x{}", c.tiles_per_cta);
      const std::string name = fmt::format("lanes{}{}_n{}_w{}_{}", c.tile_tokens, tiles, c.token_bytes, c.num_warps,
                                           c.early_modulation ? "early" : "late");
      const bool fixed = c.rows_per_cta == 1 && c.vector_bytes == 8 && !c.persistent && !c.swizzled;
      return fixed ? name
                   : fmt::format("{}_r{}_v{}_{}_{}", name, c.rows_per_cta, c.vector_bytes,
                                 c.swizzled ? "swizzled" : "padded", c.persistent ? "persistent" : "full");
    }
    // Only lanes variants take several tiles a CTA: the others name it only where it is not 1.
    const std::string tiles = c.tiles_per_cta == 1 ? "" : fmt::format("_x{}", c.tiles_per_cta);
    if (c.read == TokenMajorRead::copy) {
      // A copy variant reads no tile: its usual name leaves the tile axes out.
      const std::string name = fmt::format("copy_{}_{}", row_plan, c.persistent ? "persistent" : "full");
      return (tile_axes_first ? name : name + "_" + tile) + tiles;
    }
    return fmt::format("{}_{}{}{}", tile, row_plan, c.persistent ? "_persistent" : "", tiles);
  }

  std::string exclusion(const std::vector<Param>& params, int hidden) const override {
    const TokenMajorConfig c = TokenMajorConfig::decode(params);
    if (c.read == TokenMajorRead::lanes) return lanes_exclusion(c, hidden);
    const bool tile = c.read == TokenMajorRead::tile;
    if (c.tiles_per_cta != 1) return "only a lanes variant normalises several tiles a CTA";
    if (!tile && (c.tile_tokens != 8 || c.swizzled || c.token_bytes != 4)) {
      return "a copy variant reads no tile: tile_tokens, tile_layout and token_bytes keep their first values";
    }
    if (tile && c.persistent) return "a tile variant's CTA normalises its own tile: one CTA per tile (full)";
    if (tile && c.token_bytes / 2 > c.tile_tokens) {
      return fmt::format("a load of {} tokens is longer than a tile of {}", c.token_bytes / 2, c.tile_tokens);
    }
    if (tile && c.rows_per_cta > c.tile_tokens) {
      return fmt::format("{} rows at once in a tile of {} tokens", c.rows_per_cta, c.tile_tokens);
    }
    const Variant row_plan = c.contiguous_variant();
    if (std::string why = contiguous().exclusion(row_plan.params, hidden); !why.empty()) return why;
    if (tile && c.tile_bytes(hidden) > kMaxTileBytes) {
      return fmt::format("a tile of {} tokens of {} values takes {} bytes of shared memory, over the {} a CTA may "
                         "hold on sm_90",
                         c.tile_tokens, hidden, c.tile_bytes(hidden), kMaxTileBytes);
    }
    return {};
  }

  CompileRequest variant_request(const Variant& variant, int hidden, const std::string& target) const override {
    const TokenMajorConfig c = TokenMajorConfig::from(variant);
    if (c.read == TokenMajorRead::copy) {
      CompileRequest r = contiguous().variant_request(c.contiguous_variant(), hidden, target);
      r.name = fmt::format("{}@D{}", variant.name, hidden);
      return r;
    }
    CompileRequest r;
    r.name = fmt::format("{}@D{}", variant.name, hidden);
    r.target = target;
    if (c.read == TokenMajorRead::lanes) {
      r.main_file = kLanesTemplate;
      r.name_expression = fmt::format(
          "&exactune_kernels::token_major_lanes_layer_norm_modulate<{}, {}, {}, exactune_kernels::{}, {}>", hidden,
          c.run_threads(), c.token_bytes / 2, c.early_modulation ? "modulation_early" : "modulation_late",
          c.tiles_per_cta);
      return r;
    }
    r.main_file = kTileTemplate;
    r.name_expression = fmt::format(
        "&exactune_kernels::token_major_layer_norm_modulate<{}, {}, {}, {}, exactune_kernels::{}, {}, "
        "exactune_kernels::{}, {}>",
        hidden, c.num_warps, c.rows_per_cta, c.vector_bytes / 8,
        c.early_modulation ? "modulation_early" : "modulation_late", c.tile_tokens,
        c.swizzled ? "tile_swizzled" : "tile_padded", c.token_bytes / 4);
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
      std::string value = axis.values.front();
      for (const Param& p : row_plan.params) {
        if (p.axis == axis.name) value = p.value;
      }
      params.push_back({axis.name, value});
    }
    return {variant_name(params), params};
  }

  std::string global_default_reason() const override {
    return "aten's own path: x.contiguous() by a transpose copy, then aten's launch shape (4 warps, one row per "
           "CTA, 8-byte loads), valid for every hidden % 4 == 0";
  }

  std::vector<SizeFallback> size_fallbacks() const override { return contiguous().size_fallbacks(); }

  HeatmapAxes heatmap_axes() const override { return {"tile_tokens", "num_warps", "read"}; }

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

TokenMajorConfig TokenMajorConfig::decode(const std::vector<Param>& params) {
  TokenMajorConfig c;
  const std::string read = value_of(params, "read");
  c.read = read == "tile" ? TokenMajorRead::tile : read == "lanes" ? TokenMajorRead::lanes : TokenMajorRead::copy;
  c.num_warps = std::stoi(value_of(params, "num_warps"));
  c.rows_per_cta = std::stoi(value_of(params, "rows_per_cta"));
  c.vector_bytes = std::stoi(value_of(params, "vector_bytes"));
  c.early_modulation = value_of(params, "modulation") == "early";
  c.persistent = value_of(params, "grid") == "persistent";
  c.tile_tokens = std::stoi(value_of(params, "tile_tokens"));
  c.swizzled = value_of(params, "tile_layout") == "swizzled";
  c.token_bytes = std::stoi(value_of(params, "token_bytes"));
  c.tiles_per_cta = std::stoi(value_of(params, "tiles_per_cta"));
  return c;
}

TokenMajorConfig TokenMajorConfig::from(const Variant& variant) { return decode(variant.params); }

Variant TokenMajorConfig::contiguous_variant() const {
  Variant v;
  for (const Axis& axis : contiguous().axes()) {
    std::string value;
    if (axis.name == "num_warps") value = std::to_string(num_warps);
    else if (axis.name == "rows_per_cta") value = std::to_string(rows_per_cta);
    else if (axis.name == "vector_bytes") value = std::to_string(vector_bytes);
    else if (axis.name == "modulation") value = early_modulation ? "early" : "late";
    else if (axis.name == "grid") value = persistent ? "persistent" : "full";
    else value = fixed_row_plan().at(axis.name);
    v.params.push_back({axis.name, value});
  }
  v.name = contiguous().variant_name(v.params);
  return v;
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
