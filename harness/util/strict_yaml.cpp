#include "util/strict_yaml.hpp"

#include "util/text_file.hpp"
#include "util/utf8_text.hpp"
#include "util/yaml_screen.hpp"

namespace exactune::strict_yaml {

std::string one_line(std::string_view text) {
  // A message is for a person: a value quoted from a hostile file may be megabytes long.
  constexpr std::size_t kLongest = 2000;
  std::string out;
  out.reserve(std::min(text.size(), kLongest + 3));
  for (const char c : text) {
    if (out.size() >= kLongest) {
      // Cut between characters, never inside one.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0x80) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xc0) out.pop_back();
      return out + "...";
    }
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

Fields Value::map(std::string what, const Keys& known) const {
  if (!node_.IsMap()) source_->fail(line_, "{} must be a map, got {}", key_, describe(node_));
  return Fields(*source_, node_, line_, std::move(what), known);
}

YAML::Node load_document(std::string_view text, const Source& source, std::string_view expected) {
  if (text.size() > kMaxInputFileBytes) {
    source.fail(1, "the file holds {} bytes, more than the {} MiB exactune reads", text.size(),
                kMaxInputFileBytes >> 20);
  }
  if (const std::optional<TextFault> fault = first_refused_character(text)) {
    source.fail_at(fault->line, fault->column, fault->what);
  }
  YAML::Node document;
  if (screen_yaml_document(text, source)) {
    try {
      document = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      source.fail(std::max(e.mark.line, 0) + 1, "YAML syntax error: {}", e.msg);
    }
  }
  if (document.IsNull()) source.fail(1, "the file is empty; expected {}", expected);
  if (!document.IsMap()) source.fail(line_of(document), "expected {}, got {}", expected, describe(document));
  return document;
}

}  // namespace exactune::strict_yaml
