#include "store/variant_params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace exactune {

std::vector<Param> read_variant_params(const KernelFamily& family, const strict_yaml::Value& params,
                                       std::string_view variant) {
  const std::vector<Axis> axes = family.axes();
  std::vector<std::string> names;
  for (const Axis& a : axes) names.push_back(a.name);
  const strict_yaml::Source& source = params.source();
  std::vector<Param> result;
  auto axis = axes.begin();
  for (const strict_yaml::Value& entry : params.map("params", {}).all()) {
    if (axis == axes.end()) {
      source.fail(params.line(), "params of {} must give {} and nothing else", variant, fmt::join(names, ", "));
    }
    if (entry.key() != axis->name) {
      if (std::find(names.begin(), names.end(), entry.key()) == names.end()) {
        source.fail(params.line(), "params: '{}' is no axis of family {} (its axes: {})", entry.key(), family.name(),
                    fmt::join(names, ", "));
      }
      source.fail(params.line(), "params of {} must give {} in this order", variant, fmt::join(names, ", "));
    }
    const std::string value = entry.text();
    if (std::find(axis->values.begin(), axis->values.end(), value) == axis->values.end()) {
      source.fail(params.line(), "params: {} '{}' is not one of {}", axis->name, value, fmt::join(axis->values, ", "));
    }
    result.push_back({axis->name, value});
    ++axis;
  }
  if (axis != axes.end()) {
    source.fail(params.line(), "params of {} must give {} in this order", variant, fmt::join(names, ", "));
  }
  const std::string spelled = family.variant_name(result);
  if (spelled != variant) source.fail(params.line(), "params spell variant {}, not {}", spelled, variant);
  return result;
}

bool is_configuration(const KernelFamily& family, const std::vector<Param>& params) {
  const std::vector<Axis> axes = family.axes();
  if (params.size() != axes.size()) return false;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::vector<std::string>& values = axes[i].values;
    if (params[i].axis != axes[i].name || std::find(values.begin(), values.end(), params[i].value) == values.end()) {
      return false;
    }
  }
  return true;
}

std::uint64_t space_size(const KernelFamily& family) {
  std::uint64_t size = 1;
  for (const Axis& a : family.axes()) size *= a.values.size();
  return size;
}

}  // namespace exactune
