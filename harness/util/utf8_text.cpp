#include "util/utf8_text.hpp"

#include <fmt/format.h>

namespace exactune {

std::size_t utf8_character_length(std::string_view text, char32_t& code_point) {
  if (text.empty()) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  std::size_t length = 0;
  char32_t smallest = 0;  // below it the sequence is overlong
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, smallest = 0x80, code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, smallest = 0x800, code_point = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, smallest = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3f);
  }
  const bool surrogate = code_point >= 0xd800 && code_point <= 0xdfff;
  if (code_point < smallest || code_point > 0x10ffff || surrogate) return 0;
  return length;
}

namespace {

// YAML 1.2's c-printable: tab, line feed, carriage return, and every other
// character but the C0 and C1 controls (NEL excepted), DEL, U+FFFE and U+FFFF.
bool printable(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r' || c == 0x85) return true;
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
  return c != 0xfffe && c != 0xffff;
}

// Why YAML readers disagree on where a line ends at `c` (followed by `next`); "" when they do not.
std::string disputed_line_break(char32_t c, char next) {
  if (c == '\r' && next != '\n') {
    return "a carriage return (CR) without a line feed after it: YAML readers disagree on whether a line ends "
           "there; end lines with LF or CR LF";
  }
  if (c == 0x85 || c == 0x2028 || c == 0x2029) {
    return fmt::format("U+{:04X} ({}) is a line break to some YAML readers and not to others; end lines with LF",
                       static_cast<unsigned>(c),
                       c == 0x85     ? "NEXT LINE"
                       : c == 0x2028 ? "LINE SEPARATOR"
                                     : "PARAGRAPH SEPARATOR");
  }
  return {};
}

}  // namespace

std::optional<TextFault> first_refused_character(std::string_view text) {
  TextFault at;
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t c = 0;
    const std::size_t length = utf8_character_length(text.substr(i), c);
    if (length == 0) {
      at.what =
          fmt::format("invalid UTF-8: byte 0x{:02x} does not start a valid character (the file must be UTF-8 text)",
                      static_cast<unsigned char>(text[i]));
      return at;
    }
    if (!printable(c)) {
      at.what = fmt::format("control character U+{:04X} is not allowed in a YAML file", static_cast<unsigned>(c));
      return at;
    }
    if (std::string why = disputed_line_break(c, i + length < text.size() ? text[i + length] : '\0'); !why.empty()) {
      at.what = std::move(why);
      return at;
    }
    i += length;
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return std::nullopt;
}

}  // namespace exactune
