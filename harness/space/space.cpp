#include <fmt/format.h>

#include <algorithm>
#include <set>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

namespace exactune {

const std::string* find_param(const std::vector<Param>& params, std::string_view axis) {
  const auto found = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.axis == axis; });
  return found == params.end() ? nullptr : &found->value;
}

const std::string& Variant::param(const std::string& axis) const {
  if (const std::string* value = find_param(params, axis)) return *value;
  throw error(fmt::format("variant {} has no axis '{}'", name, axis));
}

int Variant::int_param(const std::string& axis) const { return std::stoi(param(axis)); }

std::vector<Candidate> enumerate_space(const KernelFamily& family, int size) {
  const std::vector<Axis> axes = family.axes();
  std::vector<Candidate> candidates;
  std::vector<std::size_t> index(axes.size(), 0);
  std::set<std::string> names;
  while (true) {
    std::vector<Param> params;
    for (std::size_t a = 0; a < axes.size(); ++a) params.push_back({axes[a].name, axes[a].values[index[a]]});
    Candidate c;
    c.variant.name = family.variant_name(params);
    c.excluded_because = family.exclusion(params, size);
    c.variant.params = std::move(params);
    if (!names.insert(c.variant.name).second) {
      throw error(fmt::format("family {} gives two variants the name {}", family.name(), c.variant.name));
    }
    candidates.push_back(std::move(c));
    // Odometer: the last axis turns fastest.
    std::size_t a = axes.size();
    while (a > 0 && ++index[a - 1] == axes[a - 1].values.size()) index[--a] = 0;
    if (a == 0) break;
  }
  return candidates;
}

std::vector<Variant> valid_variants(const KernelFamily& family, int size) {
  std::vector<Variant> variants;
  for (Candidate& c : enumerate_space(family, size)) {
    if (c.valid()) variants.push_back(std::move(c.variant));
  }
  return variants;
}

}  // namespace exactune
