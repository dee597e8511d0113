#include "util/yaml_scalar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "util/utf8_text.hpp"

namespace exactune {

std::string yaml_double_quoted(std::string_view text) {
  std::string quoted = "\"";
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t length = utf8_character_length(text.substr(i), c);
    if (length == 0) {
      quoted += "\xef\xbf\xbd";  // U+FFFD, as the same text written again spells it
      ++i;
      continue;
    }
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      default:
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
          quoted += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        } else if (c == 0xfffe || c == 0xffff || c == 0x2028 || c == 0x2029) {
          // LS and PS too: a line break to some readers, which the readers here refuse raw (utf8_text.hpp).
          quoted += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        } else {
          quoted.append(text.substr(i, length));
        }
    }
    i += length;
  }
  return quoted + "\"";
}

std::string yaml_comment_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t length = utf8_character_length(text.substr(i), c);
    const bool control = length == 0 || c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xfffe || c == 0xffff ||
                         c == 0x2028 || c == 0x2029;  // line breaks to some readers
    if (control) {
      out += ' ';
    } else {
      out.append(text.substr(i, length));
    }
    i += std::max<std::size_t>(length, 1);
  }
  return out;
}

bool yaml_reserved_word(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  constexpr std::array<std::string_view, 11> kReserved = {"true", "false", "yes",  "no",  "on", "off",
                                                          "y",    "n",     "null", "nan", "inf"};
  return std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
}

}  // namespace exactune
