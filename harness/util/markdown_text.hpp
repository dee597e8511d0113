// Text from a file a user may have edited (a GPU's name, a shape's, a failure
// message), as it may stand in a line of Markdown: in a heading, a table cell
// or a list item. The reports escape every such text through here, as the
// SVGs and JUnit reports do through xml_escape.
#pragma once
#include <string>
#include <string_view>

namespace exactune {

// `text` on one line that breaks no table: '|' escaped, every line break and
// control character a space, '<' and '&' as HTML entities (Markdown passes
// HTML through, so a name like "<script>" would be markup, not text), and a
// byte that is not UTF-8 as U+FFFD.
std::string markdown_text(std::string_view text);

// A table cell that has no figure.
inline constexpr const char* kMarkdownMissing = "—";
// A name the reports set as code (a variant's, a file's): `name`. Names of
// the space only: no escaping.
std::string markdown_code(std::string_view name);

}  // namespace exactune
