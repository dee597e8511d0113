// Text escaped for a line of Markdown (markdown_text.hpp), a character at a time.
#include "util/markdown_text.hpp"

#include <algorithm>

#include "util/utf8_text.hpp"

namespace exactune {

std::string markdown_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t length = utf8_character_length(text.substr(i), c);
    if (length == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
    } else if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
      out += ' ';  // line breaks (LF, CR, NEL, LS, PS) and every other control character
    } else {
      out.append(text.substr(i, length));
    }
    i += std::max<std::size_t>(length, 1);
  }
  return out;
}

std::string markdown_code(std::string_view name) { return "`" + std::string(name) + "`"; }

}  // namespace exactune
