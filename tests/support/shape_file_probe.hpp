// What the tests of shape files share: a family's valid one-shape file written
// field by field, with one field's value replaced or left out, and the checks
// that a file is refused at its line with a message. The core's test
// (tests/shapes) holds the reader to its rules with the toy family; a family's
// own test holds its parameters to the family's rules.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "catch.hpp"
#include "shapes/shape_file.hpp"

namespace exactune_test {

class ShapeFileProbe {
 public:
  // `fields`: a valid shape's keys and values, in file order: "shapes:" is
  // line 1 and field i is on line i + 2.
  ShapeFileProbe(const exactune::KernelFamily& family, std::vector<std::pair<std::string, std::string>> fields)
      : family_(family), fields_(std::move(fields)) {}

  exactune::ShapeSet parse(std::string_view yaml, const std::string& source = "t.yaml") const {
    return exactune::parse_shapes(family_, yaml, source);
  }

  int line_of_field(std::string_view key) const {
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].first == key) return static_cast<int>(i) + 2;
    }
    FAIL("no field " << key);
    return 0;
  }

  // The one-shape file with `key`'s value replaced by `value` (verbatim YAML),
  // or with `key` left out when `value` is "<omit>".
  std::string one_shape(std::string_view key = "", std::string_view value = "") const {
    std::string text = "shapes:\n";
    bool first = true;
    for (const auto& [field, default_value] : fields_) {
      if (field == key && value == "<omit>") continue;
      text += (first ? "  - " : "    ") + field + ": " + std::string(field == key ? value : default_value) + "\n";
      first = false;
    }
    return text;
  }

  // The message parsing `yaml` (named "t.yaml") throws; fails the test when it parses.
  std::string error_for(std::string_view yaml) const {
    try {
      parse(yaml);
    } catch (const exactune::error& e) {
      return e.what();
    }
    FAIL("parsed without an error:\n" << yaml);
    return {};
  }

  // `yaml` is refused at `line` with a message containing `what`.
  void check_error(std::string_view yaml, int line, std::string_view what) const {
    const std::string message = error_for(yaml);
    INFO("yaml:\n" << yaml << "message: " << message);
    CHECK(message.rfind("t.yaml:" + std::to_string(line) + ": ", 0) == 0);
    CHECK(message.find(what) != std::string::npos);
  }

  // The same for one field of the one-shape file, refused on that field's line.
  void check_field_error(std::string_view key, std::string_view value, std::string_view what) const {
    check_error(one_shape(key, value), line_of_field(key), what);
  }

 private:
  const exactune::KernelFamily& family_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace exactune_test
