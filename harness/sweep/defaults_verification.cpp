#include "sweep/defaults_verification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <thread>

#include <exactune/error.hpp>
#include <exactune/space.hpp>
#include <exactune/workload.hpp>

#include "compile/compiler.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics.hpp"

namespace exactune {
namespace {

// The configuration with one fallback's axis at its narrower value; nullopt
// when the configuration does not have the fallback's wider value.
std::optional<Configuration> narrowed(const Configuration& c, const SizeFallback& f, const KernelFamily& family) {
  Configuration narrow = c;
  bool applies = false;
  for (Param& p : narrow.params) {
    if (p.axis == f.axis && p.value == f.from) {
      p.value = f.to;
      applies = true;
    }
  }
  if (!applies) return std::nullopt;
  narrow.variant = family.variant_name(narrow.params);
  return narrow;
}

class Plan {
 public:
  explicit Plan(const KernelFamily& family) : family_(family) {}

  // `c` and its narrowed forms, at `sizes`, for `role`.
  void add_with_fallbacks(const Configuration& c, const std::string& role, const std::vector<int>& sizes) {
    add(c, role, sizes);
    for (const SizeFallback& f : family_.size_fallbacks()) {
      if (const auto narrow = narrowed(c, f, family_))
        add(*narrow, role + ", narrowed (" + f.axis + " " + f.to + ")", sizes);
    }
  }

  void add(const Configuration& c, const std::string& role, const std::vector<int>& sizes) {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const ConfigurationToVerify& e) { return e.configuration.variant == c.variant; });
    if (it == entries_.end()) it = entries_.insert(entries_.end(), ConfigurationToVerify{c, {}, {}});
    if (std::find(it->roles.begin(), it->roles.end(), role) == it->roles.end()) it->roles.push_back(role);
    it->sizes.insert(it->sizes.end(), sizes.begin(), sizes.end());
    std::sort(it->sizes.begin(), it->sizes.end());
    it->sizes.erase(std::unique(it->sizes.begin(), it->sizes.end()), it->sizes.end());
  }

  std::vector<ConfigurationToVerify> entries() const { return entries_; }

 private:
  const KernelFamily& family_;
  std::vector<ConfigurationToVerify> entries_;
};

}  // namespace

std::vector<int> served_sizes(const KernelFamily& family) {
  std::vector<int> sizes;
  for (int s = 1; s <= kLargestSizeScanned; ++s) {
    if (family.parameter_problem(family.size_parameter(), s).empty()) sizes.push_back(s);
  }
  return sizes;
}

std::vector<ConfigurationToVerify> configurations_to_verify(const KernelFamily& family, const FamilyTables& tables,
                                                            const std::vector<int>& sizes) {
  Plan plan(family);
  plan.add_with_fallbacks(tables.global_default, "global default", sizes);
  for (const DeviceHeuristics& d : tables.devices) {
    plan.add_with_fallbacks(d.default_configuration, "default of " + d.name, sizes);
  }
  // A tuned bucket's own (variant, size) was exact in its sweep; its narrowed
  // forms, which serve the bucket's size where the data is less aligned, were not chosen there.
  for (const DeviceHeuristics& d : tables.devices) {
    for (const Choice& c : d.choices) {
      for (const SizeFallback& f : family.size_fallbacks()) {
        const auto narrow = narrowed(c.chosen, f, family);
        if (!narrow) continue;
        plan.add(*narrow,
                 fmt::format("tuned bucket of {} at {} {}, narrowed ({} {})", d.name, family.size_parameter(), c.size,
                             f.axis, f.to),
                 {c.size});
      }
    }
  }
  return plan.entries();
}

Shape shape_at_size(const KernelFamily& family, const Shape& shape, int size, int rows) {
  Shape at = shape;
  at.name = fmt::format("{}@{}{}", shape.name, family.size_parameter(), size);
  bool found = false;
  for (ShapeParameter& p : at.parameters) {
    if (p.name == family.size_parameter()) {
      p.value = size;
      found = true;
    }
  }
  if (!found) throw input_error(fmt::format("shape {} has no parameter {}", shape.name, family.size_parameter()));
  if (const std::string problem = family.parameter_problem(family.size_parameter(), size); !problem.empty()) {
    throw input_error(problem);
  }
  family.complete(at);
  return first_rows(family, at, rows);
}

std::size_t sizes_per_batch(const DefaultsVerificationOptions& options) {
  if (options.sizes_per_batch > 0) return options.sizes_per_batch;
  const int jobs = options.stage.compile.jobs > 0 ? options.stage.compile.jobs
                                                  : static_cast<int>(std::thread::hardware_concurrency());
  return std::max<std::size_t>(128, 2 * kMaxKernelsPerProgram * static_cast<std::size_t>(std::max(1, jobs)));
}

DefaultsRecord verify_configurations(const KernelFamily& family, Backend& backend, const SupportKernels& support,
                                     const CompileCache& cache, const Shape& shape,
                                     const std::vector<ConfigurationToVerify>& configurations,
                                     const DefaultsVerificationOptions& options) {
  DefaultsRecord record;
  record.family = family.name();
  record.reference_recipe = family.reference_recipe();
  record.backend = backend.description();
  record.target = backend.target();
  record.shape = shape.name;
  const Shape sample = first_rows(family, shape, options.rows);
  record.rows = sample.rows();
  for (const InputCase& c : family.input_cases(sample)) record.cases.push_back(c.name);

  const std::size_t per_batch = sizes_per_batch(options);
  for (const ConfigurationToVerify& c : configurations) {
    VerifiedConfiguration out;
    out.variant = c.configuration.variant;
    out.roles = c.roles;
    std::vector<int> valid, not_valid, verified;
    std::map<int, std::string> failures;
    for (int size : c.sizes) {
      (family.exclusion(c.configuration.params, size).empty() ? valid : not_valid).push_back(size);
    }
    std::size_t done = 0;
    for (std::size_t start = 0; start < valid.size(); start += per_batch) {
      const std::size_t end = std::min(valid.size(), start + per_batch);
      std::vector<Shape> shapes;
      std::map<std::string, int> size_of;
      for (std::size_t i = start; i < end; ++i) {
        try {
          shapes.push_back(shape_at_size(family, shape, valid[i], options.rows));
          size_of[shapes.back().name] = valid[i];
        } catch (const error& e) {
          failures[valid[i]] = fmt::format("no shape: {}", e.what());
        }
      }
      VerifyStageOptions stage = options.stage;
      stage.variant_glob = c.configuration.variant;
      try {
        const VerifyStageResult result = run_verify_stage(family, backend, support, shapes, cache, stage);
        for (const VariantBuild& b : result.builds) {
          if (!b.outcome.ok) {
            const std::string log = b.outcome.log.substr(0, b.outcome.log.find('\n'));
            failures.try_emplace(b.size, fmt::format("compile failed: {}", log));
          }
        }
        std::map<int, std::size_t> passed;
        for (const VerifyRecord& r : result.records) {
          const int size = size_of.at(r.shape);
          if (r.disposition == Disposition::passed) {
            ++passed[size];
          } else {
            failures.try_emplace(size, fmt::format("{} [{}]: {}", to_string(r.disposition), r.input_case, r.message));
          }
        }
        for (const auto& [name, size] : size_of) {
          // Every case of the size passed, and there was at least one.
          if (!failures.count(size) && passed[size] == record.cases.size())
            verified.push_back(size);
          else if (!failures.count(size))
            failures[size] = fmt::format("{} of {} cases run", passed[size], record.cases.size());
        }
      } catch (const std::exception& e) {
        for (const auto& [name, size] : size_of)
          failures.try_emplace(size, fmt::format("the batch stopped: {}", e.what()));
      }
      done = end;
      if (options.on_size) options.on_size(c.configuration.variant, done, valid.size());
    }
    out.verified = compact_sizes(verified);
    out.not_valid = compact_sizes(not_valid);
    for (const auto& [size, why] : failures) out.failed.push_back({size, why});
    record.configurations.push_back(std::move(out));
  }
  return record;
}

}  // namespace exactune
