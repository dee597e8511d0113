// Whether a file's text is what a YAML file may hold: UTF-8, and no control
// character but tab, line feed and carriage return (YAML 1.2's printable
// set). The strict readers check it first, so that every later message can
// quote the file's text, and point at the first offending character.
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

// The first character that is not valid UTF-8 or not printable; none when all are.
std::optional<TextFault> first_unprintable_character(std::string_view text);

// How many bytes the valid UTF-8 character at the start of `text` takes, or 0
// when it starts with no valid one (an invalid byte, a surrogate, an overlong
// or cut-short sequence). `code_point` receives the character.
std::size_t utf8_character_length(std::string_view text, char32_t& code_point);

}  // namespace exactune
