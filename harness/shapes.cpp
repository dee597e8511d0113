#include "shapes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <span>

#include "embedded_files.hpp"
#include "error.hpp"
#include "text_file.hpp"
#include "yaml_node_text.hpp"

namespace exactune {
namespace {

// The largest hidden size the tuning space covers.
constexpr int kMaxHidden = 8192;

// Keys in the order the error messages list them.
constexpr std::array<std::string_view, 1> kTopLevelKeys = {"shapes"};
constexpr std::array<std::string_view, 7> kShapeKeys = {"name",   "model", "batch",          "tokens",
                                                        "hidden", "eps",   "modulation_rows"};
constexpr std::array<std::string_view, 6> kRequiredShapeKeys = {"name",   "model", "batch",
                                                                "tokens", "hidden", "eps"};


// A quoted scalar is a string even when it spells a number; yaml-cpp tags it "!".
bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

// One `key: value` entry of a map.
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;

  // An empty value's mark points at the next token, often on a later line, so
  // errors about it name the key's line instead.
  int line() const { return line_of(value.IsNull() ? key_node : value); }
};

using Entries = std::map<std::string, Entry, std::less<>>;

// Reads one shape file, reporting every problem as "<source>:<line>: <what>".
class ShapeFileReader {
 public:
  explicit ShapeFileReader(const std::string& source) : source_(source) {}

  ShapeSet read(std::string_view yaml_text) {
    const YAML::Node root = load_document(yaml_text);
    if (!root.IsMap()) {
      fail(line_of(root), "the top level must be a map with a 'shapes' list, got {}", describe(root));
    }
    const Entries top = entries(root, kTopLevelKeys, "at the top level");
    require(top, kTopLevelKeys, line_of(root), "the top level");
    const Entry& list = top.find("shapes")->second;
    if (!list.value.IsSequence()) fail(list.line(), "'shapes' must be a list, got {}", describe(list.value));
    if (list.value.size() == 0) fail(list.line(), "'shapes' is empty; a set needs at least one shape");

    ShapeSet set{source_, {}};
    const int list_line = line_of(list.key_node);
    for (std::size_t i = 0; i < list.value.size(); ++i) {
      set.shapes.push_back(read_shape(list.value[i], i, list_line));
    }
    return set;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(int line, fmt::format_string<Args...> what, Args&&... args) const {
    throw error(fmt::format("{}:{}: {}", source_, line, fmt::format(what, std::forward<Args>(args)...)));
  }

  YAML::Node load_document(std::string_view yaml_text) const {
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(std::string(yaml_text));
    } catch (const YAML::Exception& e) {
      fail(std::max(e.mark.line, 0) + 1, "YAML syntax error: {}", e.msg);
    }
    if (documents.empty()) fail(1, "the file is empty; expected a map with a 'shapes' list");
    if (documents.size() > 1) {
      fail(line_of(documents[1]), "a shape file holds one YAML document; this is a second one");
    }
    return documents.front();
  }

  // The entries of `map`, each key a known one and none repeated (yaml-cpp
  // keeps repeated keys, and a lookup would silently take the first).
  Entries entries(const YAML::Node& map, std::span<const std::string_view> allowed,
                  std::string_view where) const {
    Entries result;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const int line = line_of(it->first);
      if (!it->first.IsScalar()) fail(line, "a key must be a name, got {}", describe(it->first));
      const std::string& key = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(line, "unknown key '{}' {} (allowed: {})", key, where, fmt::join(allowed, ", "));
      }
      const auto [previous, inserted] = result.try_emplace(key, Entry{key, it->first, it->second});
      if (!inserted) {
        fail(line, "key '{}' appears twice (first on line {})", key, line_of(previous->second.key_node));
      }
    }
    return result;
  }

  // Fails on the map's line, naming every required key that is absent.
  void require(const Entries& entries, std::span<const std::string_view> required, int line,
               std::string_view what) const {
    std::vector<std::string_view> missing;
    for (std::string_view key : required) {
      if (!entries.contains(key)) missing.push_back(key);
    }
    if (missing.empty()) return;
    const char* plural = missing.size() > 1 ? "s" : "";
    fail(line, "{} is missing required key{} '{}'", what, plural, fmt::join(missing, "', '"));
  }

  Shape read_shape(const YAML::Node& node, std::size_t index, int list_line) {
    // An empty list item's mark points past it; the 'shapes' line and the item's number locate it.
    if (!node.IsMap()) {
      fail(node.IsNull() ? list_line : line_of(node),
           "shape #{} must be a map of {}, got {}", index + 1, fmt::join(kShapeKeys, ", "), describe(node));
    }
    const Entries fields = entries(node, kShapeKeys, "in a shape");
    require(fields, kRequiredShapeKeys, line_of(node), fmt::format("shape #{}", index + 1));

    Shape shape;
    shape.name = name(fields.find("name")->second);
    shape.model = text(fields.find("model")->second);
    shape.batch = positive(fields.find("batch")->second);
    shape.tokens = positive(fields.find("tokens")->second);
    shape.hidden = hidden(fields.find("hidden")->second);
    shape.eps = eps(fields.find("eps")->second);
    // Without modulation_rows, scale and shift are contiguous (B, 1, D) tensors.
    const auto rows = fields.find("modulation_rows");
    const int modulation_rows = rows == fields.end() ? 1 : positive(rows->second);
    shape.modulation_stride = static_cast<std::int64_t>(modulation_rows) * shape.hidden;
    return shape;
  }

  // The value as written, failing on an empty or non-scalar one.
  const std::string& scalar(const Entry& entry, std::string_view expected) const {
    if (entry.value.IsNull()) fail(entry.line(), "{} has no value (expected {})", entry.key, expected);
    if (!entry.value.IsScalar()) {
      fail(entry.line(), "{} must be {}, got {}", entry.key, expected, describe(entry.value));
    }
    return entry.value.Scalar();
  }

  std::string text(const Entry& entry) const {
    const std::string& value = scalar(entry, "a string");
    if (value.empty()) fail(entry.line(), "{} must not be empty", entry.key);
    return value;
  }

  std::string name(const Entry& entry) {
    const std::string value = text(entry);
    const bool valid = std::all_of(value.begin(), value.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    });
    if (!valid) {
      fail(entry.line(), "name '{}' must match [a-z0-9._-]+ (lowercase letters, digits, '.', '_', '-')",
           value);
    }
    const auto [first, inserted] = name_lines_.try_emplace(value, entry.line());
    if (!inserted) fail(entry.line(), "name '{}' is already used on line {}", value, first->second);
    return value;
  }

  // A number spelled as a plain scalar, parsed in full (so "1.5" is no integer
  // and "2x" no number).
  template <typename Number>
  Number number(const Entry& entry, std::string_view expected) const {
    const std::string& value = scalar(entry, expected);
    if (is_quoted(entry.value)) {
      fail(entry.line(), "{} must be {}, got the quoted string \"{}\"", entry.key, expected, value);
    }
    Number result{};
    const char* end = value.data() + value.size();
    const auto [stop, status] = std::from_chars(value.data(), end, result);
    if (status == std::errc::result_out_of_range) fail(entry.line(), "{} {} is out of range", entry.key, value);
    if (status != std::errc() || stop != end) {
      fail(entry.line(), "{} must be {}, got '{}'", entry.key, expected, value);
    }
    return result;
  }

  int positive(const Entry& entry) const {
    const int value = number<int>(entry, "an integer");
    if (value <= 0) fail(entry.line(), "{} {} must be > 0", entry.key, value);
    return value;
  }

  int hidden(const Entry& entry) const {
    const int value = number<int>(entry, "an integer");
    if (value <= 0 || value > kMaxHidden) {
      fail(entry.line(), "hidden {} is out of range (must be 1..{})", value, kMaxHidden);
    }
    if (value % 4 != 0) {
      fail(entry.line(), "hidden {} is not a multiple of 4 (aten's vectorized LayerNorm needs hidden % 4 == 0)",
           value);
    }
    return value;
  }

  double eps(const Entry& entry) const {
    const double value = number<double>(entry, "a number");
    if (!std::isfinite(value) || value <= 0) {
      fail(entry.line(), "eps {} must be a finite number > 0", entry.value.Scalar());
    }
    return value;
  }

  const std::string& source_;
  std::map<std::string, int> name_lines_;  // name -> line it was first given on
};

}  // namespace

std::vector<int> ShapeSet::hidden_sizes() const {
  std::vector<int> sizes;
  for (const Shape& shape : shapes) sizes.push_back(shape.hidden);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

ShapeSet parse_shapes(std::string_view yaml_text, const std::string& source) {
  return ShapeFileReader(source).read(yaml_text);
}

ShapeSet load_shapes_file(const std::string& path) { return parse_shapes(read_text_file(path, "shape file"), path); }

ShapeSet default_shapes() { return parse_shapes(embedded_file("shapes/default.yaml"), "<embedded default>"); }

}  // namespace exactune
