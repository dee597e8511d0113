// The JSON form of a family's tables (heuristics_emitter.hpp's emit_json and
// emit_tables_json; family_json.hpp's object, which the per-device config
// files re-key): the same tables, rules and verified sizes as the C++ header,
// for Python and whatever reads JSON.
#include <fmt/format.h>

#include <string>

#include "report/family_json.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/heuristics_view.hpp"
#include "util/gpu_arch.hpp"

namespace exactune {
namespace {

using Json = GeneratedJson;

Json json_value(const AxisForm& f, const std::string& value) {
  return f.integer ? Json(std::stoi(value)) : Json(value);
}

Json json_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  Json config = {{"variant", c.variant}};
  for (const AxisForm& f : forms) config[f.axis.name] = json_value(f, value_of(c, f.axis.name));
  return config;
}

// The narrowed forms of a configuration, each with when it applies.
Json json_fallbacks(const Configuration& configuration, const std::vector<AxisForm>& forms, const FamilyView& view) {
  Json fallbacks = Json::array();
  for (const SizeFallback& f : view.family.size_fallbacks()) {
    const AxisForm& form = form_of(forms, f);
    fallbacks.push_back({{"axis", f.axis},
                         {"from", json_value(form, f.from)},
                         {"to", json_value(form, f.to)},
                         {"multiple", f.multiple},
                         {"alignment", f.alignment},
                         {"config", json_config(with_fallback(configuration, f, view.family), forms)}});
  }
  return fallbacks;
}

Json json_choice(const Choice& c, const std::vector<AxisForm>& forms, const FamilyView& view) {
  return Json{{view.size, c.size},
              {"max_rows", c.max_rows ? Json(*c.max_rows) : Json(nullptr)},
              {"config", json_config(c.chosen, forms)},
              {"median_us", c.median_us},
              {"runner_up", c.margin ? Json(c.runner_up) : Json(nullptr)},
              {"margin", c.margin ? Json(*c.margin) : Json(nullptr)},
              {"shape", c.shape},
              {"shared", c.shared},
              {"fallbacks", json_fallbacks(c.chosen, forms, view)}};
}

Json device_json(const DeviceHeuristics& d, bool has_own_record, const std::vector<AxisForm>& forms,
                 const FamilyView& view) {
  const ComputeCapability cc = compute_capability(d.arch);
  Json table = Json::array();
  for (const Choice& c : d.choices) table.push_back(json_choice(c, forms, view));
  return {{"name", d.name},
          {"slug", d.slug},
          {"arch", d.arch},
          {"cc_major", cc.major},
          {"cc_minor", cc.minor},
          {"sm_count", d.sm_count},
          {"default", json_config(d.default_configuration, forms)},
          {"default_fallbacks", json_fallbacks(d.default_configuration, forms, view)},
          // Whether it made a record of its own: then only evidence for it serves it (json_verified's "device").
          {"own_record", has_own_record},
          {"table", table}};
}

// Every (variant, size range) proven bit-exact, with its evidence.
Json json_verified(const FamilyTables& tables) {
  Json verified = Json::array();
  for (const VerifiedSizes& v : verified_sizes(tables)) {
    for (const SizeRange& r : v.sizes) {
      verified.push_back({{"variant", v.variant},
                          {"first", r.first},
                          {"last", r.last},
                          {"step", r.step},
                          {"evidence", v.evidence},
                          {"device", v.device}});
    }
  }
  return verified;
}

// The file format of exactune_tables.json, around its families' objects.
constexpr int kTablesFormatVersion = 1;

}  // namespace

Json family_json(const FamilyTables& tables, std::string_view generated_by) {
  const FamilyView view = family_view(tables.family);
  const std::vector<AxisForm> forms = axis_forms(view.family);
  Json devices = Json::array();
  for (const DeviceHeuristics& d : tables.devices) {
    devices.push_back(device_json(d, own_record(tables, d.name) != nullptr, forms, view));
  }
  return {{"generated", generated_by},
          {"format_version", tables.format_version},
          {"family", tables.family},
          {"select",
           {{"inputs", fmt::format("device_name, cc_major, cc_minor, sm_count, {}, rows, alignment", view.size)},
            {"size", view.size},
            {"size_description", view.size_description},
            {"rows", fmt::format("the number of rows of {} elements one call processes", view.size)},
            {"fallback", fallback_rules(tables, view)}}},
          {"devices", devices},
          {"global_default", json_config(tables.global_default, forms)},
          {"verified", json_verified(tables)}};
}

std::string emit_json(const FamilyTables& tables) { return family_json(tables, kHeuristicsGeneratedBy).dump(2) + "\n"; }

std::string emit_tables_json(const std::vector<FamilyTables>& families) {
  Json objects = Json::array();
  for (const FamilyTables& tables : families) objects.push_back(family_json(tables, kTablesGeneratedBy));
  const Json root = {
      {"generated", kTablesGeneratedBy}, {"format_version", kTablesFormatVersion}, {"families", objects}};
  return root.dump(2) + "\n";
}

}  // namespace exactune
