// A kernel family: what the pipeline's core (space, compiler, verifier, timer,
// reports) needs to know about one kind of fused kernel, and nothing more. The
// core never names LayerNorm; the fused LayerNorm + adaLN modulate is the first
// family (layer_norm_modulate_family.hpp), RMSNorm + modulate would be another.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compile_request.hpp"

namespace exactune {

class Backend;
class SupportKernels;
class Workload;
struct InputCase;
struct Shape;

struct Axis {
  std::string name;         // e.g. "num_warps"
  std::string description;  // one line, for `exactune list`
  std::vector<std::string> values;
};

struct Param {
  std::string axis;
  std::string value;
};

struct Variant {
  std::string name;  // stable and readable, e.g. "w4_r2_peeled_v16_reload"
  std::vector<Param> params;

  // The value of one axis; throws exactune::error if the variant has no such axis.
  const std::string& param(const std::string& axis) const;
  int int_param(const std::string& axis) const;
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Names the arithmetic the reference replicates, versioned: a framework that
  // changes its kernel needs a new recipe, checked against the framework itself.
  virtual std::string reference_recipe() const = 0;
  virtual std::vector<Axis> axes() const = 0;

  // The stable name of one combination of axis values (one value per axis, in
  // the order of axes()).
  virtual std::string variant_name(const std::vector<Param>& params) const = 0;
  // Why this combination cannot serve rows of `hidden` elements; empty when it can.
  virtual std::string exclusion(const std::vector<Param>& params, int hidden) const = 0;

  virtual CompileRequest variant_request(const Variant& variant, int hidden, const std::string& target) const = 0;
  // The kernels that are not variants: reference, eager chain, roofline copy.
  virtual std::vector<CompileRequest> support_requests(const std::string& target) const = 0;

  // The input cases every variant is verified on, and the one it is timed on.
  virtual std::vector<InputCase> input_cases(const Shape& shape) const = 0;
  virtual InputCase timing_case(const Shape& shape) const = 0;
  // Allocates the buffers of one (shape, case) on the backend and fills the
  // inputs from `seed`; the same seed gives the same inputs on every backend.
  virtual std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support,
                                                  const Shape& shape, const InputCase& input_case,
                                                  std::uint64_t seed) const = 0;
};

}  // namespace exactune
