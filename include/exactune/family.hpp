// A kernel family: what the pipeline's core (shapes, space, compile, verify,
// time, results, reports, gate) needs to know about one kind of fused kernel,
// and nothing more. The core names no family; each one lives in its own folder
// under families/ and registers itself (family_registry.hpp).
//
// The methods follow the data flow: how a family reads a problem, its variant
// space, what to compile, how to verify, what a fused kernel must move (the
// roofline), and what the tables and reports need to present its choices.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/compile_request.hpp>

namespace exactune {

class Backend;
class SupportKernels;
class Workload;
struct InputCase;
struct Shape;

// ------------------------------------------------------------------ shapes

// One parameter of the family's problems, as a shape file spells it.
struct ParameterSpec {
  std::string name;                     // the YAML key, e.g. "batch"
  std::string description;              // one line, for error messages and the format's documentation
  bool integer = true;                  // a whole number that fits in an int; else a real number
  std::optional<double> default_value;  // none: the key is required
};

// ------------------------------------------------------------------ space

struct Axis {
  std::string name;         // e.g. "num_warps"
  std::string description;  // one line, for `exactune list`
  std::vector<std::string> values;
};

struct Param {
  std::string axis;
  std::string value;

  friend bool operator==(const Param&, const Param&) = default;
};

// The value `params` give `axis`; nullptr when they give none. The one lookup of
// an axis's value: every other (Variant::param, the reports, the tables) asks it.
const std::string* find_param(const std::vector<Param>& params, std::string_view axis);

struct Variant {
  std::string name;  // stable and readable, e.g. "w4_r2_peeled_v16_reload"
  std::vector<Param> params;

  // The value of one axis; throws exactune::error if the variant has no such axis.
  const std::string& param(const std::string& axis) const;
  int int_param(const std::string& axis) const;
};

// ------------------------------------------------------------------ choose / report

// A variant's axis values with its name: what a table chooses.
struct Configuration {
  std::string variant;
  std::vector<Param> params;
};

// Where a configuration cannot serve a problem: a variant with `axis` = `from`
// needs size % multiple == 0 and inputs aligned to `alignment` bytes; elsewhere
// the same configuration with `axis` = `to` serves. The generated select() and
// the runtime apply it to every configuration they return.
struct SizeFallback {
  std::string axis;
  std::string from;
  std::string to;
  int multiple = 1;
  std::string why;    // one line, for the generated files' comments
  int alignment = 0;  // bytes every input address and row stride must be a multiple of; 0: none
};

// A serving framework's hand-written launch rule for one problem, stated in
// exactune's space: what the tables are measured against ("what the table
// buys"). `rule` is the framework's own words; `configuration` is the one
// exactune variant that launches as the framework's kernel does, the axes the
// rule does not fix set to what that kernel does; `why` says how each was set.
struct FrameworkRule {
  std::string framework;  // e.g. "SGLang"
  std::string rule;       // in the framework's words, e.g. "ROWS = 64, num_warps = 2"
  Configuration configuration;
  std::string why;  // one or two sentences, for the reports
};

// The axes of the summary's heatmaps: the best exact variant per cell of
// columns x rows, one panel per value of `panels` ("" for a single panel).
struct HeatmapAxes {
  std::string columns;
  std::string rows;
  std::string panels;
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  virtual std::string name() const = 0;         // [a-z0-9_]+, e.g. for --family and file namespaces
  virtual std::string description() const = 0;  // one line
  // Names the arithmetic the reference replicates, versioned: a framework that
  // changes its kernel needs a new recipe, checked against the framework itself.
  virtual std::string reference_recipe() const = 0;

  // --- shapes
  virtual std::vector<ParameterSpec> shape_parameters() const = 0;
  // The parameter whose value variants are compiled for (e.g. a row length).
  virtual std::string size_parameter() const = 0;
  // Why `value` cannot be parameter `name`'s value; empty when it can. The
  // shape reader adds file and line.
  virtual std::string parameter_problem(const std::string& name, double value) const = 0;
  // Sets shape.size and shape.row_count from parameters that each passed
  // parameter_problem; throws exactune::input_error on a combination that is
  // not served (the reader adds the shape's file and line).
  virtual void complete(Shape& shape) const = 0;
  // The embedded path of the family's default shape set.
  virtual std::string default_shapes_path() const = 0;
  // The same problem cut to exactly min(`rows`, its own) rows (`rows` >= 1; see
  // split_rows): what the CPU backend verifies, since it runs thousands of times
  // slower than a GPU, and what `--rows N` asks for.
  virtual Shape with_rows_at_most(const Shape& shape, std::int64_t rows) const = 0;

  // --- space
  virtual std::vector<Axis> axes() const = 0;
  // The stable name of one combination of axis values (one value per axis, in
  // the order of axes()).
  virtual std::string variant_name(const std::vector<Param>& params) const = 0;
  // Why this combination cannot serve problems of this size; empty when it can.
  virtual std::string exclusion(const std::vector<Param>& params, int size) const = 0;
  // Whether `axis` is a lever of the variant with these params: false where
  // the variant's part of the space holds the axis at a fixed value (a layout
  // of shared memory, for a kernel that holds none). Reports credit an axis's
  // values only with the variants where it applies.
  virtual bool axis_applies(const std::string& axis, const std::vector<Param>& params) const {
    (void)axis;
    (void)params;
    return true;
  }

  // --- compile
  virtual CompileRequest variant_request(const Variant& variant, int size, const std::string& target) const = 0;
  // The kernels that are not variants: reference, framework chain, roofline copy.
  virtual std::vector<CompileRequest> support_requests(const std::string& target) const = 0;

  // --- verify
  // The input cases every variant is verified on, and the one it is timed on.
  virtual std::vector<InputCase> input_cases(const Shape& shape) const = 0;
  virtual InputCase timing_case(const Shape& shape) const = 0;
  // Allocates the buffers of one (shape, case) on the backend and fills the
  // inputs from `seed`; the same seed gives the same inputs on every backend.
  virtual std::unique_ptr<Workload> make_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                                  const InputCase& input_case, std::uint64_t seed) const = 0;

  // --- time: the bytes a fused kernel must read and write (the roofline's)
  virtual std::int64_t bytes_moved(const Shape& shape) const = 0;

  // --- choose and report
  // For a GPU without a table: the framework's own launch shape, valid at every size served.
  virtual Configuration global_default() const = 0;
  virtual std::string global_default_reason() const = 0;  // one line: why it is safe
  virtual std::vector<SizeFallback> size_fallbacks() const = 0;
  virtual HeatmapAxes heatmap_axes() const = 0;
  // Why the tables never choose this configuration, though it is swept, timed
  // and reported (e.g. a baseline that the runtime cannot launch); empty when
  // they may. What the tables choose is what the runtime serves.
  virtual std::string not_chosen_because(const std::vector<Param>& params) const {
    (void)params;
    return {};
  }
  // The serving framework's hand rule for this problem, mapped into the
  // family's space; none where no framework has one (the reports say "no
  // framework rule" rather than invent one). The configuration need not be a
  // valid variant at the shape's size: the reports say so where it is not.
  virtual std::optional<FrameworkRule> framework_rule(const Shape& shape) const {
    (void)shape;
    return std::nullopt;
  }
};

}  // namespace exactune
