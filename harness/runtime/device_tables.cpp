#include "runtime/device_tables.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

namespace exactune {
namespace {

using Json = nlohmann::json;

// A JSON value with the path that reached it, so that every error names the
// exact place in the file.
struct Node {
  const Json& json;
  std::string path;
  const std::string& source;

  [[noreturn]] void fail(std::string_view what) const {
    throw input_error(fmt::format("{}: {}: {}", source, path.empty() ? "(top level)" : path, what));
  }
  Node at(const std::string& key) const {
    if (!json.is_object()) fail("is not an object");
    const auto it = json.find(key);
    if (it == json.end()) fail(fmt::format("has no \"{}\"", key));
    return Node{*it, path.empty() ? key : path + "." + key, source};
  }
  bool has(const std::string& key) const { return json.is_object() && json.contains(key); }
  std::vector<Node> items() const {
    if (!json.is_array()) fail("is not an array");
    std::vector<Node> nodes;
    for (std::size_t i = 0; i < json.size(); ++i)
      nodes.push_back(Node{json[i], fmt::format("{}[{}]", path, i), source});
    return nodes;
  }
  std::string text() const {
    if (!json.is_string() || json.get_ref<const std::string&>().empty()) fail("is not a non-empty string");
    return json.get<std::string>();
  }
  std::int64_t integer(std::int64_t low, std::int64_t high) const {
    if (!json.is_number_integer()) fail("is not an integer");
    const std::int64_t value = json.get<std::int64_t>();
    if (value < low || value > high) fail(fmt::format("{} is not in {}..{}", value, low, high));
    return value;
  }
  std::string variant() const { return at("variant").text(); }
  bool boolean() const {
    if (!json.is_boolean()) fail("is not true or false");
    return json.get<bool>();
  }
};

constexpr std::int64_t kMaxInt = 2147483647;

// The variants of a list of narrowed configurations (absent: none).
std::vector<std::string> fallback_variants(const Node& node, const std::string& key) {
  std::vector<std::string> variants;
  if (node.has(key)) {
    for (const Node& fallback : node.at(key).items()) variants.push_back(fallback.at("config").variant());
  }
  return variants;
}

TableDevice read_device(const Node& node, const std::string& size_parameter) {
  TableDevice device;
  device.identity.name = node.at("name").text();
  device.identity.cc_major = static_cast<int>(node.at("cc_major").integer(1, 99));
  device.identity.cc_minor = static_cast<int>(node.at("cc_minor").integer(0, 9));
  device.identity.sm_count = static_cast<int>(node.at("sm_count").integer(1, 100000));
  device.default_variant = node.at("default").variant();
  device.default_fallbacks = fallback_variants(node, "default_fallbacks");
  // Absent in tables written before GPUs made records of their own.
  if (node.has("own_record")) device.own_record = node.at("own_record").boolean();
  for (const Node& entry : node.at("table").items()) {
    TableBucket bucket;
    bucket.size = static_cast<int>(entry.at(size_parameter).integer(1, kMaxInt));
    const Node max_rows = entry.at("max_rows");
    if (!max_rows.json.is_null()) bucket.max_rows = max_rows.integer(1, INT64_MAX);
    bucket.variant = entry.at("config").variant();
    bucket.fallbacks = fallback_variants(entry, "fallbacks");
    if (!device.buckets.empty()) {
      const TableBucket& before = device.buckets.back();
      const bool same_size = before.size == bucket.size;
      if (same_size && (!before.max_rows || (bucket.max_rows && *bucket.max_rows <= *before.max_rows))) {
        entry.fail("buckets of one size must ascend by max_rows, the unbounded one last");
      }
    }
    device.buckets.push_back(std::move(bucket));
  }
  return device;
}

FamilyTable read_family(const Node& node) {
  FamilyTable table;
  table.family = node.at("family").text();
  table.size_parameter = node.at("select").at("size").text();
  for (const Node& device : node.at("devices").items())
    table.devices.push_back(read_device(device, table.size_parameter));
  table.global_default = node.at("global_default").variant();
  // Required: tables without it predate verified sizes, and serving from them would serve unproven sizes.
  for (const Node& range : node.at("verified").items()) {
    VerifiedRange r;
    r.variant = range.at("variant").text();
    r.first = static_cast<int>(range.at("first").integer(1, kMaxInt));
    r.last = static_cast<int>(range.at("last").integer(r.first, kMaxInt));
    r.step = static_cast<int>(range.at("step").integer(1, kMaxInt));
    // "" (or absent, in tables written before): the host's record.
    if (range.has("device") && !range.at("device").json.is_string()) range.at("device").fail("is not a string");
    if (range.has("device")) r.device = range.at("device").json.get<std::string>();
    table.verified.push_back(std::move(r));
  }
  return table;
}

// Why the family's size fallbacks rule `variant` out for the request: its
// value of a fallback's axis needs a size multiple or an alignment the request
// lacks (the narrower configuration is then a later candidate); "" when none does.
std::string refusal(const KernelFamily& family, const Variant& variant, int size, unsigned alignment) {
  for (const SizeFallback& f : family.size_fallbacks()) {
    if (variant.param(f.axis) != f.from) continue;
    if (size % f.multiple != 0) {
      return fmt::format("its {} {} needs {} % {} == 0", f.axis, f.from, family.size_parameter(), f.multiple);
    }
    if (f.alignment > 0 && alignment % static_cast<unsigned>(f.alignment) != 0) {
      return fmt::format("its {} {} needs {}-byte aligned data ({}), and the data is {}-byte aligned", f.axis, f.from,
                         f.alignment, f.why, alignment);
    }
  }
  return "";
}

}  // namespace

bool FamilyTable::verified_at(std::string_view variant, int size, const TableDevice* device) const {
  const std::string_view name = device ? std::string_view(device->identity.name) : std::string_view();
  const bool own_record = device && device->own_record;
  return std::any_of(verified.begin(), verified.end(), [&](const VerifiedRange& r) {
    return evidence_serves(r.device, name, own_record) && r.variant == variant && size >= r.first && size <= r.last &&
           (size - r.first) % r.step == 0;
  });
}

std::string DeviceIdentity::describe() const {
  return fmt::format("{} (sm_{}{}, {} SMs)", name, cc_major, cc_minor, sm_count);
}

const FamilyTable* RuntimeTables::find(std::string_view family) const {
  const auto it =
      std::find_if(families.begin(), families.end(), [&](const FamilyTable& t) { return t.family == family; });
  return it == families.end() ? nullptr : &*it;
}

RuntimeTables parse_runtime_tables(std::string_view json_text, const std::string& source) {
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    throw input_error(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
  const Node top{root, "", source};
  RuntimeTables tables{source, {}};
  // exactune_tables.json holds every family; one family's heuristics.json is accepted too.
  if (top.has("families")) {
    for (const Node& family : top.at("families").items()) tables.families.push_back(read_family(family));
  } else {
    tables.families.push_back(read_family(top));
  }
  for (std::size_t i = 0; i < tables.families.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (tables.families[i].family == tables.families[j].family) {
        throw input_error(fmt::format("{}: family {} appears twice", source, tables.families[i].family));
      }
    }
  }
  return tables;
}

DeviceResolution resolve_device(const FamilyTable& table, const DeviceIdentity& gpu) {
  const auto first = [&](auto&& matches) -> const TableDevice* {
    const auto it = std::find_if(table.devices.begin(), table.devices.end(), matches);
    return it == table.devices.end() ? nullptr : &*it;
  };
  const auto same_arch = [&](const TableDevice& d) {
    return d.identity.cc_major == gpu.cc_major && d.identity.cc_minor == gpu.cc_minor;
  };
  if (const TableDevice* d = first([&](const TableDevice& d) { return d.identity.name == gpu.name; })) {
    return {d, DeviceMatch::exact_name};
  }
  if (const TableDevice* d =
          first([&](const TableDevice& d) { return same_arch(d) && d.identity.sm_count == gpu.sm_count; })) {
    return {d, DeviceMatch::same_model};
  }
  if (const TableDevice* d = first(same_arch)) return {d, DeviceMatch::same_architecture};
  return {};
}

std::string DeviceResolution::describe() const {
  switch (match) {
    case DeviceMatch::exact_name: return fmt::format("the table of {} (same name)", device->identity.describe());
    case DeviceMatch::same_model:
      return fmt::format("the table of {} (no table under this name; same compute capability and SM count)",
                         device->identity.describe());
    case DeviceMatch::same_architecture:
      return fmt::format("the default of {} (no table for this model; same architecture)", device->identity.describe());
    case DeviceMatch::none: break;
  }
  return "the global default (no table for this architecture)";
}

std::string_view step_name(CandidateStep step) {
  switch (step) {
    case CandidateStep::tuned_bucket: return "tuned bucket";
    case CandidateStep::tuned_bucket_fallback: return "tuned bucket, narrowed";
    case CandidateStep::device_default: return "device default";
    case CandidateStep::device_default_fallback: return "device default, narrowed";
    case CandidateStep::global_default: return "global default";
  }
  return "?";
}

namespace {

// The buckets apply where they were measured: on this model, not on another
// SM count of its architecture, which keeps only the default.
bool buckets_apply(const DeviceResolution& resolution) {
  return resolution.device != nullptr && resolution.match != DeviceMatch::same_architecture;
}

}  // namespace

std::vector<std::optional<std::int64_t>> bucket_bounds(const DeviceResolution& resolution, int size) {
  std::vector<std::optional<std::int64_t>> bounds;
  if (!buckets_apply(resolution)) return bounds;
  for (const TableBucket& b : resolution.device->buckets) {
    if (b.size == size) bounds.push_back(b.max_rows);
  }
  return bounds;
}

std::size_t bucket_of(const std::vector<std::optional<std::int64_t>>& bounds, std::int64_t rows) {
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (!bounds[i] || rows <= *bounds[i]) return i;
  }
  return bounds.size();
}

std::vector<TableCandidate> table_candidates(const FamilyTable& table, const DeviceResolution& resolution, int size,
                                             std::int64_t rows) {
  std::vector<TableCandidate> out;
  const auto add = [&](const std::string& variant, CandidateStep step) {
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const TableCandidate& c) { return c.variant == variant; });
    if (!seen) out.push_back({variant, step});
  };
  if (const TableDevice* d = resolution.device) {
    // The bucket by the rule the runtime keys its plans with (bucket_of), so the
    // two cannot disagree; none where the buckets do not apply or rows pass them all.
    const std::vector<std::optional<std::int64_t>> bounds = bucket_bounds(resolution, size);
    const std::size_t bucket = bucket_of(bounds, rows);
    if (bucket < bounds.size()) {
      std::size_t of_size = 0;
      for (const TableBucket& b : d->buckets) {
        if (b.size != size || of_size++ != bucket) continue;
        add(b.variant, CandidateStep::tuned_bucket);
        for (const std::string& v : b.fallbacks) add(v, CandidateStep::tuned_bucket_fallback);
        break;
      }
    }
    add(d->default_variant, CandidateStep::device_default);
    for (const std::string& v : d->default_fallbacks) add(v, CandidateStep::device_default_fallback);
  }
  add(table.global_default, CandidateStep::global_default);
  return out;
}

}  // namespace exactune

namespace exactune {

CandidateChoice choose_candidate(const KernelFamily& family, const FamilyTable& table,
                                 const DeviceResolution& resolution, int size, std::int64_t rows, unsigned alignment) {
  return choose_candidate(family, valid_variants(family, size), table, resolution, size, rows, alignment);
}

CandidateChoice choose_candidate(const KernelFamily& family, const std::vector<Variant>& valid,
                                 const FamilyTable& table, const DeviceResolution& resolution, int size,
                                 std::int64_t rows, unsigned alignment) {
  CandidateChoice choice;
  for (const TableCandidate& candidate : table_candidates(table, resolution, size, rows)) {
    const auto it =
        std::find_if(valid.begin(), valid.end(), [&](const Variant& v) { return v.name == candidate.variant; });
    std::string why;
    if (it == valid.end()) {
      why = fmt::format("not a valid variant at {} {}", family.size_parameter(), size);
    } else if (!table.verified_at(candidate.variant, size, resolution.device)) {
      why = fmt::format("not verified at {} {}", family.size_parameter(), size);
    } else {
      why = refusal(family, *it, size, alignment);
    }
    if (why.empty()) {
      choice.chosen = candidate;
      return choice;
    }
    choice.refusals += fmt::format("; {} {}: {}", step_name(candidate.step), candidate.variant, why);
  }
  return choice;
}

}  // namespace exactune
