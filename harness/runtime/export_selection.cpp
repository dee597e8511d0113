#include "runtime/export_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include <exactune/space.hpp>

namespace exactune {
namespace {

// The alignments a served request may have (ServedRequest: a power of two, at most 16).
constexpr unsigned kAlignments[] = {16, 8, 4, 2};

std::string arch_of(const DeviceIdentity& gpu) { return fmt::format("sm_{}{}", gpu.cc_major, gpu.cc_minor); }

// How a GPU of `arch` can resolve: to each GPU of the tables of that
// architecture (by name; a GPU of another name gets a subset of its
// candidates), or, with none of it, to none.
std::vector<DeviceResolution> resolutions(const FamilyTable& table, const std::string& arch) {
  std::vector<DeviceResolution> out;
  for (const TableDevice& d : table.devices) {
    if (arch_of(d.identity) == arch) out.push_back({&d, DeviceMatch::exact_name});
  }
  if (out.empty()) out.push_back({});
  return out;
}

// A row count in each bucket of `bounds`, and one past the bounded ones.
std::vector<std::int64_t> rows_of_each_bucket(const std::vector<std::optional<std::int64_t>>& bounds) {
  std::vector<std::int64_t> rows;
  std::int64_t last = 0;
  for (const std::optional<std::int64_t>& bound : bounds) {
    rows.push_back(bound ? *bound : last + 1);
    if (!bound) return rows;
    last = *bound;
  }
  rows.push_back(last + 1);
  return rows;
}

bool accepted(const KernelFamily& family, int size) {
  return size > 0 && family.parameter_problem(family.size_parameter(), size).empty();
}

}  // namespace

std::vector<std::string> table_archs(const FamilyTable& table) {
  std::set<std::string> archs;
  for (const TableDevice& d : table.devices) archs.insert(arch_of(d.identity));
  return {archs.begin(), archs.end()};
}

std::vector<int> export_sizes(const KernelFamily& family, const FamilyTable& table, const std::string& arch,
                              const std::vector<int>& shape_sizes) {
  std::set<int> sizes(shape_sizes.begin(), shape_sizes.end());
  for (const TableDevice& d : table.devices) {
    if (arch_of(d.identity) != arch) continue;
    for (const TableBucket& b : d.buckets) sizes.insert(b.size);
  }
  std::vector<int> out;
  std::copy_if(sizes.begin(), sizes.end(), std::back_inserter(out), [&](int s) { return accepted(family, s); });
  return out;
}

std::vector<ExportedConfiguration> served_configurations(const KernelFamily& family, const FamilyTable& table,
                                                         const std::string& arch, const std::vector<int>& sizes) {
  std::vector<ExportedConfiguration> out;
  const std::vector<DeviceResolution> gpus = resolutions(table, arch);
  for (const int size : sizes) {
    if (!accepted(family, size)) continue;
    const std::vector<Variant> valid = valid_variants(family, size);
    for (const DeviceResolution& gpu : gpus) {
      for (const std::int64_t rows : rows_of_each_bucket(bucket_bounds(gpu, size))) {
        for (const unsigned alignment : kAlignments) {
          const CandidateChoice choice = choose_candidate(family, valid, table, gpu, size, rows, alignment);
          if (!choice.chosen) continue;
          const ExportedConfiguration c{choice.chosen->variant, size};
          if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
        }
      }
    }
  }
  return out;
}

std::vector<int> every_served_size(const KernelFamily& family, const FamilyTable& table, const std::string& arch) {
  std::set<std::string> names;
  for (const DeviceResolution& gpu : resolutions(table, arch)) {
    if (gpu.device) names.insert(gpu.device->identity.name);
  }
  std::set<int> sizes;
  for (const VerifiedRange& range : table.verified) {
    if (!range.device.empty() && !names.count(range.device)) continue;
    for (int s = range.first; s <= range.last && range.step > 0; s += range.step) {
      if (accepted(family, s)) sizes.insert(s);
    }
  }
  return {sizes.begin(), sizes.end()};
}

}  // namespace exactune
