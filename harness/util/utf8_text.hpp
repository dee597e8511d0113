// Whether a file's text is what a YAML file may hold: UTF-8, no control
// character but tab, line feed and carriage return (YAML 1.2's printable
// set), and lines that every YAML reader ends in the same places: a line ends
// at LF or CR LF, and a character that only some readers take for a line
// break (a CR alone, as old Mac files end lines, NEL, LS and PS: line breaks
// to YAML 1.1 readers such as PyYAML, not to yaml-cpp) is refused, so that a
// file never holds one shape for exactune and two for another reader. The
// strict readers check it first, so that every later message can quote the
// file's text, and point at the first offending character.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace exactune {

struct TextFault {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in characters
  std::string what;
};

// The first character that is not valid UTF-8, not printable, or a line break
// that readers disagree on; none when all are fine.
std::optional<TextFault> first_refused_character(std::string_view text);

// How many bytes the valid UTF-8 character at the start of `text` takes, or 0
// when it starts with no valid one (an invalid byte, a surrogate, an overlong
// or cut-short sequence). `code_point` receives the character.
std::size_t utf8_character_length(std::string_view text, char32_t& code_point);

}  // namespace exactune
