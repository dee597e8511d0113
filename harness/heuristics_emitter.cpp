#include "heuristics_emitter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include "error.hpp"
#include "layer_norm_modulate_family.hpp"

namespace exactune {
namespace {

constexpr const char* kGeneratedBy = "by exactune emit-header from heuristics.yaml; do not edit";

// How select() falls back, in words: written into the header's comments and
// the JSON, so that both sets of consumers read the same rules.
std::vector<std::string> fallback_rules(const Heuristics& h) {
  return {
      "1. This GPU (same compute capability and SM count) at a tuned hidden size: the bucket that holds the row "
      "count. A hidden size's buckets ascend by max_rows; the last has none and holds every larger count.",
      "2. Otherwise, on a GPU of the same compute capability (this one at an untuned hidden size, or one with "
      "another SM count): that architecture's default; where it loads 16 bytes and hidden % 8 != 0 (rows only "
      "8-byte aligned), the same configuration with 8-byte loads.",
      fmt::format("3. Any other GPU: the global default, {}, aten's own launch shape (4 warps, one row per CTA, "
                  "8-byte loads), valid for every hidden % 4 == 0.",
                  h.global_default.variant),
  };
}

// The same configuration with 8-byte loads: what a 16-byte default becomes
// where rows are only 8-byte aligned.
Configuration with_8_byte_loads(const Configuration& c) {
  Configuration narrow = c;
  for (Param& p : narrow.params) {
    if (p.axis == "vector_bytes") p.value = "8";
  }
  narrow.variant = layer_norm_modulate_family().variant_name(narrow.params);
  return narrow;
}

// How one of the family's axes appears in the header and the JSON: an axis
// whose values are all integers as an int, any other as an enum class of its
// values (named after the axis: pass2 -> Pass2). Derived from the family, so
// that a new axis reaches the generated files without touching this file.
struct AxisForm {
  Axis axis;
  bool integer = false;
  std::string enum_name;
};

bool is_integer(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_identifier(std::string_view text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text.front())) &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<AxisForm> axis_forms() {
  std::vector<AxisForm> forms;
  for (const Axis& axis : layer_norm_modulate_family().axes()) {
    AxisForm form{axis, std::all_of(axis.values.begin(), axis.values.end(), is_integer), {}};
    if (!form.integer) {
      for (const std::string& value : axis.values) {
        if (!is_identifier(value)) {
          throw error(fmt::format("axis {}: value '{}' cannot name a C++ enumerator", axis.name, value));
        }
      }
      bool capital = true;
      for (char c : axis.name) {
        if (c != '_') form.enum_name += capital ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        capital = c == '_';
      }
    }
    forms.push_back(std::move(form));
  }
  return forms;
}

const std::string& value_of(const Configuration& c, const std::string& axis) {
  for (const Param& p : c.params) {
    if (p.axis == axis) return p.value;
  }
  throw error(fmt::format("variant {} has no value for axis {}", c.variant, axis));
}

// ------------------------------------------------------------------ the header

// Text from the yaml as it may stand in a // comment: no line breaks, and no
// backslash that could splice the next line into the comment.
std::string comment_safe(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') c = '?';
  }
  return out;
}

// `text` as // comment lines of at most `width` characters, wrapped at spaces.
std::string comment_lines(std::string_view text, std::string_view indent, std::size_t width = 100) {
  std::string out, line;
  auto flush = [&] {
    out += fmt::format("{}//{}\n", indent, line);
    line.clear();
  };
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && indent.size() + 2 + line.size() + 1 + word.size() > width) flush();
    line += fmt::format(" {}", word);
    start = end + 1;
  }
  if (!line.empty()) flush();
  return out;
}

std::string cpp_types(const std::vector<AxisForm>& forms) {
  std::string out = "namespace exactune_heuristics {\n\n";
  for (const AxisForm& f : forms) {
    if (f.integer) continue;
    out += comment_lines(comment_safe(f.axis.description), "");
    fmt::format_to(std::back_inserter(out), "enum class {} {{ {} }};\n", f.enum_name, fmt::join(f.axis.values, ", "));
  }
  out += "\n// One variant of the kernel: a value per axis, and exactune's name for it.\nstruct LaunchConfig {\n";
  for (const AxisForm& f : forms) {
    fmt::format_to(std::back_inserter(out), "  {} {};", f.integer ? "int" : f.enum_name, f.axis.name);
    out += f.integer ? fmt::format("  // {}\n", comment_safe(f.axis.description)) : "\n";
  }
  return out + "  const char* variant;\n};\n";
}

std::string cpp_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  std::vector<std::string> fields;
  for (const AxisForm& f : forms) {
    const std::string& value = value_of(c, f.axis.name);
    fields.push_back(f.integer ? value : fmt::format("{}::{}", f.enum_name, value));
  }
  return fmt::format("{{{}, \"{}\"}}", fmt::join(fields, ", "), c.variant);
}

// The rows a bucket holds, given the bound of the bucket before it (none for the first).
std::string row_range(const Choice& c, std::optional<std::int64_t> previous_bound) {
  if (!c.max_rows) return previous_bound ? fmt::format("rows > {}", *previous_bound) : "every row count";
  if (!previous_bound) return fmt::format("rows <= {}", *c.max_rows);
  return fmt::format("rows {}..{}", *previous_bound + 1, *c.max_rows);
}

std::string describe_choice(const Choice& c, std::optional<std::int64_t> previous_bound) {
  std::string text = fmt::format("hidden {}, {}: {} us on {}", c.hidden, row_range(c, previous_bound), c.median_us,
                                 comment_safe(c.shape));
  if (c.margin) text += fmt::format("; runner-up {} {:+.2f}%", c.runner_up, *c.margin * 100);
  if (c.shared) text += "; shared by the hidden size's buckets";
  return text;
}

constexpr const char* kHeaderTableTypes = R"(
// One bucket of one GPU's table: at `hidden`, rows up to max_rows (-1: no bound).
struct Entry {
  int cc_major;
  int cc_minor;
  int sm_count;
  int hidden;
  long long max_rows;
  LaunchConfig config;
};

// A GPU's default: for its hidden sizes without a table, and for other GPUs of
// its architecture.
struct ArchDefault {
  int cc_major;
  int cc_minor;
  int sm_count;  // of the GPU it was measured on
  LaunchConfig config;
  LaunchConfig config_8_byte_loads;  // the same with 8-byte loads, for hidden % 8 != 0
};

)";

constexpr const char* kHeaderSelect = R"(
constexpr LaunchConfig select(int cc_major, int cc_minor, int sm_count, int hidden, long long rows) {
  for (const Entry& e : kTable) {  // 1.
    const bool same_gpu = e.cc_major == cc_major && e.cc_minor == cc_minor && e.sm_count == sm_count;
    if (same_gpu && e.hidden == hidden && (e.max_rows < 0 || rows <= e.max_rows)) return e.config;
  }
  for (const ArchDefault& d : kArchDefaults) {  // 2.
    if (d.cc_major == cc_major && d.cc_minor == cc_minor) {
      return d.config.vector_bytes == 16 && hidden % 8 != 0 ? d.config_8_byte_loads : d.config;
    }
  }
  return kGlobalDefault;  // 3.
}

}  // namespace exactune_heuristics
)";

}  // namespace

std::string emit_header(const Heuristics& h) {
  const DeviceHeuristics& d = h.device;
  const ComputeCapability cc = compute_capability(d.arch);
  const std::vector<AxisForm> forms = axis_forms();
  const std::string gpu = fmt::format("{} ({}, {} SMs)", comment_safe(d.name), d.arch, d.sm_count);
  std::string out = fmt::format("// Generated {}.\n//\n", kGeneratedBy);
  out += comment_lines(
      fmt::format("The launch configuration of the fused kernel {} (LayerNorm + adaLN modulate, bf16), chosen by "
                  "exactune among variants proven bit-exact with PyTorch's eager chain, from timings on {}. "
                  "Self-contained C++17, for C++ and the host side of CUDA code.",
                  h.family, gpu),
      "");
  out += "//\n// Use: exactune_heuristics::select(cc_major, cc_minor, sm_count, hidden, rows), where rows =\n"
         "// batch * tokens (the rows the kernel normalises) and hidden % 4 == 0. It answers by the first\n"
         "// rule that applies:\n";
  for (const std::string& rule : fallback_rules(h)) out += comment_lines(rule, "");
  out += "#pragma once\n\n" + cpp_types(forms) + kHeaderTableTypes;
  out += fmt::format("// {}\ninline constexpr Entry kTable[] = {{\n", gpu);
  for (std::size_t i = 0; i < d.choices.size(); ++i) {
    const Choice& c = d.choices[i];
    const bool continues = i > 0 && d.choices[i - 1].hidden == c.hidden;
    out += comment_lines(describe_choice(c, continues ? d.choices[i - 1].max_rows : std::nullopt), "    ");
    fmt::format_to(std::back_inserter(out), "    {{{}, {}, {}, {}, {}, {}}},\n", cc.major, cc.minor, d.sm_count,
                   c.hidden, c.max_rows ? *c.max_rows : -1, cpp_config(c.chosen, forms));
  }
  out += "};\n\n// The configuration chosen most often on each GPU.\ninline constexpr ArchDefault kArchDefaults[] = {\n";
  out += comment_lines(gpu, "    ");
  fmt::format_to(std::back_inserter(out), "    {{{}, {}, {},\n     {},\n     {}}},\n", cc.major, cc.minor,
                 d.sm_count, cpp_config(d.default_configuration, forms),
                 cpp_config(with_8_byte_loads(d.default_configuration), forms));
  out += "};\n\n// aten's own launch shape: valid for every hidden % 4 == 0.\n";
  fmt::format_to(std::back_inserter(out), "inline constexpr LaunchConfig kGlobalDefault = {};\n",
                 cpp_config(h.global_default, forms));
  return out + kHeaderSelect;
}

// -------------------------------------------------------------------- the JSON
namespace {

using Json = nlohmann::ordered_json;  // keys in the order written: "generated" first

Json json_config(const Configuration& c, const std::vector<AxisForm>& forms) {
  Json config = {{"variant", c.variant}};
  for (const AxisForm& f : forms) {
    const std::string& value = value_of(c, f.axis.name);
    config[f.axis.name] = f.integer ? Json(std::stoi(value)) : Json(value);
  }
  return config;
}

Json json_choice(const Choice& c, const std::vector<AxisForm>& forms) {
  return Json{{"hidden", c.hidden},
              {"max_rows", c.max_rows ? Json(*c.max_rows) : Json(nullptr)},
              {"config", json_config(c.chosen, forms)},
              {"median_us", c.median_us},
              {"runner_up", c.margin ? Json(c.runner_up) : Json(nullptr)},
              {"margin", c.margin ? Json(*c.margin) : Json(nullptr)},
              {"shape", c.shape},
              {"shared", c.shared}};
}

}  // namespace

std::string emit_json(const Heuristics& h) {
  const DeviceHeuristics& d = h.device;
  const ComputeCapability cc = compute_capability(d.arch);
  const std::vector<AxisForm> forms = axis_forms();
  Json table = Json::array();
  for (const Choice& c : d.choices) table.push_back(json_choice(c, forms));
  const Json device = {{"name", d.name},
                       {"slug", d.slug},
                       {"arch", d.arch},
                       {"cc_major", cc.major},
                       {"cc_minor", cc.minor},
                       {"sm_count", d.sm_count},
                       {"default", json_config(d.default_configuration, forms)},
                       {"default_8_byte_loads", json_config(with_8_byte_loads(d.default_configuration), forms)},
                       {"table", table}};
  const Json root = {
      {"generated", kGeneratedBy},
      {"format_version", h.format_version},
      {"family", h.family},
      {"select", {{"inputs", "cc_major, cc_minor, sm_count, hidden (a multiple of 4), rows = batch * tokens"},
                  {"fallback", fallback_rules(h)}}},
      {"devices", Json::array({device})},
      {"global_default", json_config(h.global_default, forms)}};
  return root.dump(2) + "\n";
}

}  // namespace exactune
