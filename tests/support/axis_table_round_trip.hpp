// The round trip every family's axis table must pass, run by each family's own
// space test with its table: each combination's name reads back to its values,
// its values decode into the config struct and encode back, each valid
// variant's compile request carries at every template argument the spelling
// of its value there, no two valid variants compile one kernel, and every
// value of every axis makes the whole trip (name -> params -> request) in some
// valid variant where its axis applies. A slip in a table, such as two values
// spelled alike, a name that reads back otherwise or a row that decodes into
// another's field, fails here rather than compiling a wrong kernel.
#pragma once
#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <exactune/axis_table.hpp>
#include <exactune/family.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"

namespace exactune_test {

// The template arguments of a name expression `kernel<a, b, ...>`.
inline std::vector<std::string> template_arguments(const std::string& expression) {
  const std::size_t open = expression.find('<');
  const std::size_t close = expression.rfind('>');
  std::vector<std::string> arguments;
  if (open == std::string::npos || close == std::string::npos || close < open) return arguments;
  const std::string list = expression.substr(open + 1, close - open - 1);
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(", ", at), list.size());
    arguments.push_back(list.substr(at, comma - at));
    at = comma + 2;
  }
  return arguments;
}

// Checks the round trip at each of `sizes` (values of the family's size
// parameter that between them make every value of every axis valid somewhere).
template <class Config>
void check_axis_table_round_trip(const exactune::KernelFamily& family, const exactune::TypedAxisTable<Config>& table,
                                 const std::vector<int>& sizes) {
  using namespace exactune;
  std::vector<std::string> problems;
  const auto problem = [&](std::string text) { problems.push_back(std::move(text)); };
  const std::vector<Axis> axes = table.axes();
  const std::vector<Axis> family_axes = family.axes();
  REQUIRE(family_axes.size() == axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const Axis& theirs = family_axes[a];
    if (theirs.name != axes[a].name || theirs.values != axes[a].values || theirs.description != axes[a].description) {
      problem(fmt::format("the family's axis {} is not its table's {}", theirs.name, axes[a].name));
    }
  }
  std::set<std::pair<std::string, std::string>> travelled;  // (axis, value) that made the whole trip
  for (int size : sizes) {
    std::map<std::string, std::string> kernels;  // what a request compiles -> the variant that compiles it
    for (const Candidate& c : enumerate_space(family, size)) {
      const Variant& v = c.variant;
      const std::optional<std::vector<Param>> read_back = table.parse_name(v.name);
      if (read_back != v.params) problem(fmt::format("the name {} does not read back to its values", v.name));
      if (table.encode(table.decode(v.params)) != v.params) {
        problem(fmt::format("{}'s values do not decode and encode back to themselves", v.name));
      }
      if (!c.valid() || read_back != v.params) continue;
      const CompileRequest r = family.variant_request(v, size, "sm_90");
      const std::string kernel = fmt::format("{} {} {}", r.main_file, r.name_expression, fmt::join(r.defines, " "));
      if (const auto [it, added] = kernels.emplace(kernel, v.name); !added) {
        problem(fmt::format("{} and {} compile one kernel at size {}: {}", it->second, v.name, size, kernel));
      }
      const AxisPart& part = table.part_of(v.params);
      const std::vector<std::string> arguments = template_arguments(r.name_expression);
      const bool its_kernel =
          !part.kernel ||
          (r.main_file == part.kernel->main_file && r.name_expression.rfind(part.kernel->kernel + "<", 0) == 0 &&
           arguments.size() == part.kernel->arguments.size() + 1 && arguments.front() == std::to_string(size));
      if (!its_kernel) {
        problem(fmt::format("{} at size {} compiles {} {}, not its part's kernel", v.name, size, r.main_file,
                            r.name_expression));
        continue;
      }
      for (const Param& p : v.params) {
        if (!family.axis_applies(p.axis, v.params)) continue;
        // An axis that is no argument of its part's kernel (the part axis, or
        // one that a part without a kernel of its own passes on) travels with
        // the name alone.
        bool carried = true;
        for (std::size_t i = 0; part.kernel && i < part.kernel->arguments.size(); ++i) {
          if (part.kernel->arguments[i] != p.axis) continue;
          const std::string& spelled = table.spelling(part, p.axis, p.value);
          carried = !spelled.empty() && arguments[i + 1] == spelled;
          if (!carried) {
            problem(fmt::format("{} at size {}: argument {} of {} is not {} {}'s spelling {}", v.name, size, i + 1,
                                r.name_expression, p.axis, p.value, spelled));
          }
        }
        if (carried) travelled.insert({p.axis, p.value});
      }
    }
  }
  for (const Axis& axis : axes) {
    for (const std::string& value : axis.values) {
      if (!travelled.count({axis.name, value})) {
        problem(fmt::format("{} {} makes no round trip: no valid variant where the axis applies has it, at sizes {}",
                            axis.name, value, fmt::join(sizes, ", ")));
      }
    }
  }
  INFO(fmt::format("{} problem(s), the first ones:\n{}", problems.size(),
                   fmt::join(problems.begin(), problems.begin() + std::min<std::size_t>(problems.size(), 20), "\n")));
  CHECK(problems.empty());
}

}  // namespace exactune_test
