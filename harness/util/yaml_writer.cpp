#include "util/yaml_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "util/utf8_text.hpp"

namespace exactune::yaml {

std::string quoted(std::string_view text) {
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

std::string comment_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t length = utf8_character_length(text.substr(i), c);
    const bool control = c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xfffe || c == 0xffff || c == 0x2028 ||
                         c == 0x2029;  // line breaks to some readers
    if (length == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD, as quoted() writes an invalid byte
    } else if (control) {
      out += ' ';
    } else {
      out.append(text.substr(i, length));
    }
    i += std::max<std::size_t>(length, 1);
  }
  return out;
}

bool reserved_word(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  constexpr std::array<std::string_view, 11> kReserved = {"true", "false", "yes",  "no",  "on", "off",
                                                          "y",    "n",     "null", "nan", "inf"};
  return std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
}

std::string string(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text.front())) || text.back() == ' ') {
    return quoted(text);
  }
  const bool plain_characters = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view(" ._-/").find(c) != std::string_view::npos;
  });
  return plain_characters && !reserved_word(text) ? std::string(text) : quoted(text);
}

std::string number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = fmt::format("{}", value);
  if (text.find('.') == std::string::npos) {
    const std::size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

std::string comment(std::string_view text, std::size_t width) {
  std::string out, line;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && 2 + line.size() + 1 + word.size() > width) {
      out += fmt::format("# {}\n", line);
      line.clear();
    }
    line += line.empty() ? std::string(word) : fmt::format(" {}", word);
    start = end + 1;
  }
  if (!line.empty()) out += fmt::format("# {}\n", line);
  return out;
}

std::string flow_map(const KeyValues& fields) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : fields) parts.push_back(key + ": " + value);
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

std::string flow_list(const std::vector<std::string>& items) { return fmt::format("[{}]", fmt::join(items, ", ")); }

std::vector<std::string> keys_of(const KeyValues& fields) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : fields) keys.push_back(key);
  return keys;
}

void Text::field(int indent, std::string_view key, std::string_view value) {
  text_ += fmt::format("{:{}}{}: {}\n", "", indent, key, value);
}

void Text::fields(int indent, const KeyValues& entries) {
  for (const auto& [key, value] : entries) field(indent, key, value);
}

void Text::item(int indent, std::string_view key, std::string_view value) {
  text_ += fmt::format("{:{}}- {}: {}\n", "", indent, key, value);
}

void Text::line(std::string_view text) { text_ += fmt::format("{}\n", text); }

}  // namespace exactune::yaml
