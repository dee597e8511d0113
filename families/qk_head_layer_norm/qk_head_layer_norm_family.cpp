#include "qk_head_layer_norm_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

#include "qk_head_layer_norm_inputs.hpp"
#include "qk_head_layer_norm_workload.hpp"

namespace exactune {
namespace {

constexpr int kAtenWarpLanes = 32;  // a head row (<= 32 vectors) lives in aten's warp 0
static_assert(kQkMaxHeadDim == 4 * kAtenWarpLanes, "a head row of at most 32 vectors of 4 in aten's warp 0");
constexpr int kLaneBudget = 8;  // aten lanes one thread may stand in for (about 64 registers, see exclusion)
constexpr std::int64_t kMaxRows = (std::int64_t{1} << 30) - 1;  // rows per tensor: a joint grid of both fits in grid.x

QkHeadLayerNormConfig decode(const std::vector<Param>& params) { return QkHeadLayerNormConfig::table().decode(params); }

class QkHeadLayerNormFamily final : public KernelFamily {
 public:
  std::string name() const override { return "qk_head_layer_norm"; }

  std::string description() const override {
    return "per-head LayerNorm (no affine) of attention's q and k, bf16, both tensors in one launch, "
           "bit-exact with torch 2.11's eager F.layer_norm(x, (head_dim,))";
  }

  // The same aten kernel as the first family's reference, at rows of <= 128.
  // cu130: torch's CUDA build, whose own machine code confirmed the pattern
  // (docs/aten-layernorm-bf16.md, "Confirmed from torch's binary").
  std::string reference_recipe() const override { return "aten-2.11-cu130-vectorized-layer-norm-v4x128"; }

  std::vector<ParameterSpec> shape_parameters() const override {
    return {
        {"batch", "batch size, > 0", true, {}},
        {"tokens", "tokens per batch element, > 0 (text and image tokens together)", true, {}},
        {"heads", "attention heads of q and of k, > 0", true, {}},
        {"head_dim",
         "elements per head: a multiple of 4 in 4..128 (aten's vectorized LayerNorm needs % 4 == 0; a "
         "row of more than 32 vectors would reach aten's other warps)",
         true,
         {}},
        {"eps", "the LayerNorm epsilon, a finite number > 0", false, {}},
    };
  }

  std::string size_parameter() const override { return "head_dim"; }

  std::string parameter_problem(const std::string& name, double value) const override {
    if (name == "head_dim") {
      if (value < 4 || value > kQkMaxHeadDim) {
        return fmt::format("head_dim {} is out of range (must be 4..{})", value, kQkMaxHeadDim);
      }
      if (static_cast<std::int64_t>(value) % 4 != 0) {
        return fmt::format("head_dim {} is not a multiple of 4 (aten's vectorized LayerNorm needs % 4 == 0)", value);
      }
      return {};
    }
    if (name == "eps") {
      return std::isfinite(value) && value > 0 ? "" : fmt::format("eps {} must be a finite number > 0", value);
    }
    return value > 0 ? "" : fmt::format("{} {} must be > 0", name, value);
  }

  void complete(Shape& shape) const override {
    const QkHeadProblem p = QkHeadProblem::of(shape);
    if (p.rows() > kMaxRows) {
      throw input_error(
          fmt::format("batch * tokens * heads = {} rows per tensor: more than the {} served (the "
                      "kernel counts rows in an int, a joint grid covers both tensors)",
                      p.rows(), kMaxRows));
    }
    shape.size = p.head_dim;
    shape.row_count = p.rows();
  }

  std::string default_shapes_path() const override { return "shapes/qk_head_layer_norm.yaml"; }

  // Exactly `rows` head rows per tensor: as many heads as divide them, then
  // as many batch elements as divide the rest, then tokens (which may pass the
  // shape's own count where heads and batch cannot divide the rows).
  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    const QkHeadProblem p = QkHeadProblem::of(shape);
    if (rows >= shape.rows()) return shape;
    const RowSplit by_head = split_rows(rows, p.heads);
    const RowSplit by_batch = split_rows(by_head.inner, p.batch);
    Shape cut = shape;
    for (ShapeParameter& parameter : cut.parameters) {
      if (parameter.name == "heads") parameter.value = static_cast<double>(by_head.outer);
      if (parameter.name == "batch") parameter.value = static_cast<double>(by_batch.outer);
      if (parameter.name == "tokens") parameter.value = static_cast<double>(by_batch.inner);
    }
    complete(cut);
    return cut;
  }

  std::vector<Axis> axes() const override { return QkHeadLayerNormConfig::table().axes(); }

  std::string variant_name(const std::vector<Param>& params) const override {
    return QkHeadLayerNormConfig::table().variant_name(params);
  }

  std::string exclusion(const std::vector<Param>& params, int head_dim) const override {
    const QkHeadLayerNormConfig c = decode(params);
    if (head_dim % 4 != 0 || head_dim < 4 || head_dim > kQkMaxHeadDim) {
      return fmt::format("head_dim {} is not served (a multiple of 4 in 4..{})", head_dim, kQkMaxHeadDim);
    }
    const int threads_in_cta = 32 * c.num_warps;
    if (c.rows_per_cta > threads_in_cta || threads_in_cta % c.rows_per_cta != 0) {
      return fmt::format("{} rows over {} threads leave less than one thread per row", c.rows_per_cta, threads_in_cta);
    }
    const int threads = c.threads_per_row();
    if (threads > kAtenWarpLanes) {
      return fmt::format(
          "{} threads per row span several warps: aten reduces a head row of <= 32 vectors inside "
          "its warp 0, and the kernel keeps a row inside one warp (shuffles only, no shared memory, "
          "no barrier); take rows_per_cta >= num_warps",
          threads);
    }
    const int vectors_per_load = c.aten_vectors_per_load();
    if (threads * vectors_per_load > kAtenWarpLanes) {
      return fmt::format(
          "a chunk of {} threads x {} aten vectors spans {} aten lanes: more than the {} of aten's "
          "warp 0, which holds every vector of a head row",
          threads, vectors_per_load, threads * vectors_per_load, kAtenWarpLanes);
    }
    if (c.vector_bytes == 16 && head_dim % 8 != 0) {
      return fmt::format(
          "16-byte loads need head_dim % 8 == 0 so that every row starts 16-byte aligned "
          "(head_dim {} leaves rows 8-byte aligned only)",
          head_dim);
    }
    // Each aten lane a thread stands in for costs its Welford state (mean, m2,
    // and the count with rcp) and its vector of the row (2 registers, held for
    // the output): about 7 registers. ptxas on sm_90: 8 lanes take 48-64
    // registers, 16 lanes 56-95, 32 lanes 128-168.
    const int row_vectors = head_dim / 4;
    const int chunk_vectors = threads * vectors_per_load;
    const int lanes = (row_vectors + chunk_vectors - 1) / chunk_vectors * vectors_per_load;
    if (lanes > kLaneBudget) {
      return fmt::format(
          "{} threads per row with {}-byte loads make each thread stand in for {} aten lanes of a "
          "{}-vector row (their Welford states and vectors: about {} registers), over the budget "
          "of {} lanes",
          threads, c.vector_bytes, lanes, row_vectors, 7 * lanes, kLaneBudget);
    }
    return {};
  }

  CompileRequest variant_request(const Variant& variant, int head_dim, const std::string& target) const override {
    return QkHeadLayerNormConfig::table().request(variant, fmt::format("{}@Dh{}", variant.name, head_dim), head_dim,
                                                  target);
  }

  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    return {
        {"aten_layer_norm",
         "kernel_templates/reference_layer_norm.cuh",
         "&exactune_kernels::aten_layer_norm",
         target,
         {}},
        {"copy_bytes", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes", target, {}},
    };
  }

  std::vector<InputCase> input_cases(const Shape& shape) const override {
    std::vector<InputCase> cases;
    for (const QkCase& c : qk_cases(QkHeadProblem::of(shape).eps)) cases.push_back(describe_case(c));
    return cases;
  }

  InputCase timing_case(const Shape& shape) const override {
    const double eps = QkHeadProblem::of(shape).eps;  // the shape's own
    return describe_case(find_qk_case(eps, fmt::format("a1_e{:g}", eps)));
  }

  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase& input_case, std::uint64_t seed) const override {
    return make_qk_head_layer_norm_workload(backend, support, shape, input_case, seed);
  }

  // q and k, each read once and written once.
  std::int64_t bytes_moved(const Shape& shape) const override {
    const QkHeadProblem p = QkHeadProblem::of(shape);
    return 2 * 2 * p.rows() * p.head_dim * 2;
  }

  // aten has no launch of this shape (it gives a head row 128 threads, 96 of
  // them idle, and q and k a launch each). The default is the variant closest
  // to it that serves every head_dim: one warp per row in which thread p is
  // aten's lane p of warp 0 (one aten lane per thread, no lane emulated inside
  // a thread), 128-thread CTAs as aten's, 8-byte loads as aten's, counts
  // carried with the data as aten does, and one launch for both tensors.
  Configuration global_default() const override {
    static const std::map<std::string, std::string, std::less<>> closest = {
        {"num_warps", "4"}, {"rows_per_cta", "4"}, {"vector_bytes", "8"}, {"counts", "rcp"}, {"qk_grid", "joint"}};
    Configuration c;
    for (const Axis& axis : axes()) {
      const auto it = closest.find(axis.name);
      c.params.push_back({axis.name, it != closest.end() ? it->second : axis.values.front()});
    }
    c.variant = variant_name(c.params);
    return c;
  }

  std::string global_default_reason() const override {
    return "one warp per head row with thread p as aten's lane p of warp 0, 128-thread CTAs and 8-byte loads as "
           "aten's: valid for every head_dim % 4 == 0 up to 128";
  }

  std::vector<SizeFallback> size_fallbacks() const override {
    return {{"vector_bytes", "16", "8", 8, "16-byte loads need 16-byte aligned rows", 16}};
  }

  HeatmapAxes heatmap_axes() const override { return {"num_warps", "rows_per_cta", "qk_grid"}; }

  // SGLang's Triton per-head LayerNorm of q and k (GLM-Image) launches ROWS =
  // 64 head rows a program with num_warps = 2, tuned on the H200 (sm_90), the
  // one launch shape it uses on every GPU. The axes the rule leaves open are
  // what that kernel does: it loads aten's 4-element vectors (8 bytes),
  // carries Welford counts with the data (rcp) and normalises q and k in one
  // launch, a grid axis choosing the tensor (joint).
  std::optional<FrameworkRule> framework_rule(const Shape&) const override {
    const std::vector<Param> params = {
        {"num_warps", "2"}, {"rows_per_cta", "64"}, {"vector_bytes", "8"}, {"counts", "rcp"}, {"qk_grid", "joint"}};
    return FrameworkRule{
        "SGLang",
        "ROWS = 64 head rows per program, num_warps = 2 (tuned on sm_90, used on every GPU)",
        {variant_name(params), params},
        "the rule fixes num_warps and rows_per_cta; the rest is what SGLang's Triton kernel does: 8-byte loads of "
        "aten's vectors, counts carried with the data (rcp), q and k in one launch (joint)"};
  }

 private:
  static InputCase describe_case(const QkCase& c) {
    switch (c.values) {
      case QkValues::signed_zeros:
        return {c.name, fmt::format("q and k: rows of signed zeros (variance 0) and sparse N(0,1) among signed "
                                    "zeros, eps {:g}",
                                    c.eps)};
      case QkValues::denormals:
        return {c.name, fmt::format("q and k: bf16 denormals among signed zeros, and rows of (+-0, +-0, q, -q) "
                                    "vectors whose Welford mean is -0, eps {:g}",
                                    c.eps)};
      case QkValues::normal: break;
    }
    const std::string offset = c.offset != 0 ? fmt::format("{:g} + ", c.offset) : "";
    return {c.name, fmt::format("q and k ~ {}{:g} * N(mu_row, 1), eps {:g}", offset, c.amplitude, c.eps)};
  }
};

}  // namespace

LaunchGeometry QkHeadLayerNormConfig::geometry(std::int64_t rows) const {
  const unsigned groups = static_cast<unsigned>((rows + rows_per_cta - 1) / rows_per_cta);
  return LaunchGeometry{Dim3{split_grid ? groups : 2 * groups, 1, 1}, Dim3{32u * num_warps, 1, 1}, 0};
}

QkHeadProblem QkHeadProblem::of(const Shape& shape) {
  QkHeadProblem p;
  p.batch = static_cast<int>(shape.integer("batch"));
  p.tokens = static_cast<int>(shape.integer("tokens"));
  p.heads = static_cast<int>(shape.integer("heads"));
  p.head_dim = static_cast<int>(shape.integer("head_dim"));
  p.eps = shape.number("eps");
  return p;
}

Shape qk_head_shape(std::string name, int batch, int tokens, int heads, int head_dim, double eps) {
  Shape shape;
  shape.name = std::move(name);
  shape.model = shape.name;
  shape.parameters = {{"batch", static_cast<double>(batch), true},
                      {"tokens", static_cast<double>(tokens), true},
                      {"heads", static_cast<double>(heads), true},
                      {"head_dim", static_cast<double>(head_dim), true},
                      {"eps", eps, false}};
  qk_head_layer_norm_family().complete(shape);
  return shape;
}

const KernelFamily& qk_head_layer_norm_family() {
  static const QkHeadLayerNormFamily family;
  return family;
}

EXACTUNE_REGISTER_FAMILY(qk_head_layer_norm_family(), 20)

}  // namespace exactune
