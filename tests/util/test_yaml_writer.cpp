// The one YAML writer: every string it writes reads back as that string, plain
// only where no YAML reader could take it for a number, a bool or a null, and
// every number as a float with the same bits. yaml-cpp marks a quoted scalar
// with the tag "!" and a plain one with "?": a plain "4096" is what PyYAML
// reads as an int.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "util/yaml_writer.hpp"

namespace {

// `text` written as a string, read back by yaml-cpp from a one-key map.
YAML::Node read_back(const std::string& written) { return YAML::Load("key: " + written)["key"]; }

}  // namespace

TEST_CASE("a string that a YAML reader could take for anything else is quoted, and every string reads back as itself",
          "[util][yaml]") {
  const std::vector<std::string> not_plain = {
      "4096", "1e5",   "0x1F", "0o17",        "1_000",     "12:30",    "+1",   "-1",         ".5",  "true", "False",
      "yes",  "No",    "on",   "OFF",         "y",         "n",        "null", "Null",       "~",   "nan",  "NaN",
      "inf",  ".inf",  "",     " lead",       "trail ",    "a: b",     "a #b", "#x",         "- x", "[x]",  "{x}",
      "x,y",  "\"q\"", "it's", "line\nbreak", "tab\there", "<script>", "\x01", "caf\xc3\xa9"};
  for (const std::string& text : not_plain) {
    INFO("text: " << text);
    const std::string written = exactune::yaml::string(text);
    CHECK(written.front() == '"');
    const YAML::Node node = read_back(written);
    CHECK(node.Tag() == "!");
    CHECK(node.as<std::string>() == text);
  }
  const std::vector<std::string> plain = {"sana-1024px", "w4_r1_predicated_v8", "NVIDIA H200", "sm_90", "a1_e1e-06",
                                          "x.y/z",       "nvidia-h200"};
  for (const std::string& text : plain) {
    INFO("text: " << text);
    CHECK(exactune::yaml::string(text) == text);
    CHECK(read_back(text).as<std::string>() == text);
  }
}

TEST_CASE("a number is written in its shortest form, always as a float, and reads back to the same bits",
          "[util][yaml]") {
  CHECK(exactune::yaml::number(0) == "0.0");
  CHECK(exactune::yaml::number(3) == "3.0");
  CHECK(exactune::yaml::number(4.47) == "4.47");
  CHECK(exactune::yaml::number(1e-6) == "1.0e-06");
  CHECK(exactune::yaml::number(std::numeric_limits<double>::infinity()) == ".inf");
  for (const double value : {0.0, 1e-4, 0.1, 1.0 / 3, 4.471, 12345678.9, 1e-300, 2.5e17}) {
    INFO("value: " << value);
    const std::string written = exactune::yaml::number(value);
    CHECK(written.find('.') != std::string::npos);
    CHECK(read_back(written).as<double>() == value);
  }
}

TEST_CASE("a comment spells an invalid byte as a quoted string does, so a text written twice gives the same comment",
          "[util][yaml]") {
  // yaml-cpp reads the escape \N (NEL) as the lone byte 0x85, not UTF-8: a
  // device name read so was written as U+FFFD in its string and as a space in
  // the heuristics' first comment line, which then differed when written again.
  const std::string read = std::string("\x85") + "VIDIA H200";
  const std::string replaced =
      "\xef\xbf\xbd"
      "VIDIA H200";
  CHECK(exactune::yaml::comment_text(read) == replaced);
  CHECK(exactune::yaml::comment_text(exactune::yaml::comment_text(read)) == replaced);
  CHECK(exactune::yaml::quoted(read) == "\"" + replaced + "\"");
  CHECK(exactune::yaml::comment_text("a\nb\tc") == "a b c");
}
