#include "toy_family/toy_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include <exactune/backend.hpp>
#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/kernel_sources.hpp>
#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

namespace exactune_test {
namespace {

using namespace exactune;

constexpr const char* kKernelPath = "tests/toy_family/toy_double.cuh";

// Not built into the binary: the toy adds its source at start-up.
constexpr const char* kKernelSource = R"(// The toy family's kernels: out = bf16(scale * x).
#pragma once
#include "kernel_templates/arith.cuh"
#include "kernel_templates/planted_crash.cuh"

namespace exactune_kernels {

__global__ void toy_reference(const bf16_bits* x, bf16_bits* out, int length, float scale) {
  const long long row = blockIdx.x;
  for (int i = 0; i < length; ++i) {
    out[row * length + i] = bf16_round(__fmul_rn(bf16_to_float(x[row * length + i]), scale));
  }
}

// Each thread scales Vector elements a step; a variant wrong on purpose flips
// the last bit of each row's last element.
template <int Length, int Threads, int Vector, int PlantedWrong>
__global__ void toy_double(const bf16_bits* x, bf16_bits* out, float scale) {
  planted_crash();  // nothing unless a test plants a crash
  const long long row = blockIdx.x;
  for (int start = threadIdx.x * Vector; start < Length; start += Threads * Vector) {
    for (int i = start; i < start + Vector && i < Length; ++i) {
      const bf16_bits scaled = bf16_round(__fmul_rn(bf16_to_float(x[row * Length + i]), scale));
      out[row * Length + i] = PlantedWrong && i == Length - 1 ? static_cast<bf16_bits>(scaled ^ 1u) : scaled;
    }
  }
}

}  // namespace exactune_kernels
)";

const bool kKernelAdded = add_kernel_source(kKernelPath, kKernelSource);

// Its default shapes, added the same way: what commands that read a family's
// default set (exactune export) find for the toy.
constexpr const char* kShapesPath = "tests/toy_family/shapes.yaml";
constexpr const char* kShapes = "shapes:\n  - {name: toy-64, model: a test's toy, rows: 4, length: 64}\n";
const bool kShapesAdded = add_kernel_source(kShapesPath, kShapes);

class ToyWorkload final : public Workload {
 public:
  ToyWorkload(Backend& backend, const SupportKernels& support, const Shape& shape, std::uint64_t seed)
      : backend_(backend),
        support_(support),
        rows_(shape.rows()),
        length_(shape.size),
        scale_(static_cast<float>(shape.number("scale"))) {
    const std::size_t bytes = static_cast<std::size_t>(rows_ * length_ * 2 + 15) / 16 * 16;
    x_ = DeviceBuffer(backend, bytes);
    reference_ = DeviceBuffer(backend, bytes);
    out_ = DeviceBuffer(backend, bytes);
    copy_ = DeviceBuffer(backend, bytes);
    std::vector<std::uint16_t> x(bytes / 2);
    std::mt19937_64 rng(seed);
    for (std::uint16_t& v : x) v = static_cast<std::uint16_t>(0x3c00 + rng() % 0x0800);  // finite, around 1..256
    backend.upload(x_.address(), x.data(), bytes);
  }

  void launch_reference() override {
    launch_kernel(backend_, support_.get("toy_reference"), Dim3{static_cast<unsigned>(rows_), 1, 1}, Dim3{1, 1, 1},
                  x_.address(), reference_.address(), static_cast<int>(length_), scale_);
  }
  void poison_output() override { backend_.fill(out_.address(), 0xff, out_.bytes()); }
  void launch_variant(const LoadedKernel& kernel, const Variant& variant) override {
    launch_kernel(backend_, kernel, Dim3{static_cast<unsigned>(rows_), 1, 1},
                  Dim3{static_cast<unsigned>(variant.int_param("threads")), 1, 1}, x_.address(), out_.address(),
                  scale_);
  }
  void launch_copy() override {
    launch_kernel(backend_, support_.get("copy_bytes"), Dim3{1, 1, 1}, Dim3{32, 1, 1}, x_.address(), copy_.address(),
                  static_cast<long long>(x_.bytes() / 16));
  }
  std::vector<OutputRegion> output_regions() const override {
    return {OutputRegion{out_.address(), reference_.address(), rows_ * length_}};
  }
  std::vector<std::uint16_t> download_reference_output() override { return download(reference_); }
  std::vector<std::uint16_t> download_output() override { return download(out_); }
  std::int64_t row_length() const override { return length_; }
  std::int64_t bytes_moved() const override { return 2 * 2 * rows_ * length_; }

 private:
  std::vector<std::uint16_t> download(const DeviceBuffer& buffer) {
    std::vector<std::uint16_t> host(static_cast<std::size_t>(rows_ * length_));
    backend_.download(host.data(), buffer.address(), host.size() * 2);
    return host;
  }

  Backend& backend_;
  const SupportKernels& support_;
  std::int64_t rows_, length_;
  float scale_;
  DeviceBuffer x_, reference_, out_, copy_;
};

class ToyFamily final : public KernelFamily {
 public:
  std::string name() const override { return "toy_double"; }
  std::string description() const override { return "a test's toy: out = bf16(scale * x)"; }
  std::string reference_recipe() const override { return "toy-1"; }

  std::vector<ParameterSpec> shape_parameters() const override {
    return {{"rows", "rows, > 0", true, {}},
            {"length", "elements per row, a multiple of 4", true, {}},
            {"scale", "the factor each element is multiplied by, > 0", false, 2.0}};
  }
  std::string size_parameter() const override { return "length"; }
  std::string parameter_problem(const std::string& name, double value) const override {
    if (!(value > 0)) return fmt::format("{} must be > 0", name);
    if (name == "length" && static_cast<std::int64_t>(value) % 4 != 0) {
      return fmt::format("length {} is not a multiple of 4 (a row is whole steps of 4 elements)", value);
    }
    return "";
  }
  void complete(Shape& shape) const override {
    shape.size = static_cast<int>(shape.integer("length"));
    shape.row_count = shape.integer("rows");
  }
  std::string default_shapes_path() const override { return kShapesPath; }
  Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const override {
    Shape cut = shape;
    for (ShapeParameter& p : cut.parameters) {
      if (p.name == "rows") p.value = static_cast<double>(std::min<std::int64_t>(rows, shape.rows()));
    }
    complete(cut);
    return cut;
  }

  std::vector<Axis> axes() const override {
    return {{"threads", "threads per row", {"32", "64", "128", "256", "512"}},
            {"vector", "elements each thread scales a step", {"4", "8"}},
            {"result", "right, or wrong in one bit on purpose", {"right", "planted_wrong"}}};
  }
  std::string variant_name(const std::vector<Param>& params) const override {
    return fmt::format("t{}_v{}_{}", params.at(0).value, params.at(1).value, params.at(2).value);
  }
  std::string exclusion(const std::vector<Param>& params, int size) const override {
    const int threads = std::stoi(params.at(0).value);
    if (threads > size) return fmt::format("{} threads for a row of {}: some would have nothing", threads, size);
    if (params.at(1).value == "8" && size % 8 != 0)
      return fmt::format("8 elements a step cannot tile a row of {}", size);
    return "";
  }
  CompileRequest variant_request(const Variant& variant, int size, const std::string& target) const override {
    return {fmt::format("{}@L{}", variant.name, size),
            kKernelPath,
            fmt::format("&exactune_kernels::toy_double<{}, {}, {}, {}>", size, variant.param("threads"),
                        variant.param("vector"), variant.param("result") == "planted_wrong" ? 1 : 0),
            target,
            {}};
  }
  std::vector<CompileRequest> support_requests(const std::string& target) const override {
    return {{"toy_reference", kKernelPath, "&exactune_kernels::toy_reference", target, {}},
            {"copy_bytes", "kernel_templates/copy.cuh", "&exactune_kernels::copy_bytes", target, {}}};
  }
  std::vector<InputCase> input_cases(const Shape&) const override { return {{"uniform", "x in [1, 256)"}}; }
  InputCase timing_case(const Shape& shape) const override { return input_cases(shape).front(); }
  std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                          const InputCase&, std::uint64_t seed) const override {
    return std::make_unique<ToyWorkload>(backend, support, shape, seed);
  }
  std::int64_t bytes_moved(const Shape& shape) const override { return 2 * 2 * shape.rows() * shape.size; }
  Configuration global_default() const override {
    return {"t32_v4_right", {{"threads", "32"}, {"vector", "4"}, {"result", "right"}}};
  }
  std::string global_default_reason() const override { return "one warp, 4 elements a step, serves any row"; }
  std::vector<SizeFallback> size_fallbacks() const override {
    return {{"vector", "8", "4", 8, "8 elements a step need a length that is a multiple of 8 and 16-byte aligned data",
             16}};
  }
  HeatmapAxes heatmap_axes() const override { return {"threads", "result", "vector"}; }
  // A made-up framework's rule, so that the core's tests exercise the hook:
  // one warp and 4 elements a step below a length of 3072, else 64 threads
  // and 8 elements a step.
  std::optional<FrameworkRule> framework_rule(const Shape& shape) const override {
    const bool long_row = shape.size >= 3072;
    const std::vector<Param> params = {
        {"threads", long_row ? "64" : "32"}, {"vector", long_row ? "8" : "4"}, {"result", "right"}};
    return FrameworkRule{"ToyServe",
                         "threads = 64 if length >= 3072 else 32, vector as threads / 8",
                         {variant_name(params), params},
                         "the result right, as ToyServe's kernel computes it"};
  }
};

}  // namespace

const KernelFamily& toy_family() {
  static const ToyFamily family;
  return family;
}

Shape toy_shape(std::string name, int rows, int length, double scale) {
  Shape shape;
  shape.name = std::move(name);
  shape.model = "toy";
  shape.parameters = {{"rows", static_cast<double>(rows), true},
                      {"length", static_cast<double>(length), true},
                      {"scale", scale, false}};
  toy_family().complete(shape);
  return shape;
}

}  // namespace exactune_test

EXACTUNE_REGISTER_FAMILY(exactune_test::toy_family(), 1000)
