// Pasting the fixed C++ of the generated headers (fixed_cpp.hpp): the
// file's documentation cut, the size parameter written in, the slots filled.
#include "report/fixed_cpp.hpp"

#include <fmt/format.h>

#include <cctype>

#include <exactune/error.hpp>

#include "util/embedded_files.hpp"

namespace exactune {
namespace {

// The last line of a file's own documentation, and how a slot's line begins.
constexpr std::string_view kPasteFromLine = "// -- the emitter pastes from the next line on --\n";
constexpr std::string_view kSlotLineStart = "// -- slot: ";

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `text` with `replacement` for every occurrence of `word` that is not part of a longer identifier.
std::string with_word_replaced(std::string_view text, std::string_view word, std::string_view replacement) {
  std::string out;
  std::size_t done = 0;
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + word.size())) {
    const std::size_t end = at + word.size();
    const bool whole =
        (at == 0 || !is_identifier_char(text[at - 1])) && (end == text.size() || !is_identifier_char(text[end]));
    if (!whole) continue;
    out.append(text.substr(done, at - done)).append(replacement);
    done = end;
  }
  return out.append(text.substr(done));
}

// Replaces every line of `text` that is `marker` after its indentation by `lines`; how many it replaced.
int fill_slot(std::string& text, const std::string& marker, const std::string& lines) {
  int filled = 0;
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) {
    const std::size_t newline_before = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const std::size_t line_start = newline_before == std::string::npos ? 0 : newline_before + 1;
    if (text.find_first_not_of(' ', line_start) != at) {
      at += marker.size();  // inside a line of code or prose: not a slot
      continue;
    }
    text.replace(line_start, at + marker.size() - line_start, lines);
    at = line_start + lines.size();
    ++filled;
  }
  return filled;
}

std::string slot_line(std::string_view name) { return fmt::format("{}{} --\n", kSlotLineStart, name); }

}  // namespace

std::string paste_fixed_cpp(std::string_view path, std::string_view size_parameter,
                            const std::vector<FixedCppSlot>& slots) {
  const std::string_view file = embedded_file(path);
  const std::size_t from = file.find(kPasteFromLine);
  if (from == std::string_view::npos) {
    const std::string_view paste_line = kPasteFromLine.substr(0, kPasteFromLine.size() - 1);
    throw error(fmt::format("{}: no line '{}' to paste from", path, paste_line));
  }
  std::string text = with_word_replaced(file.substr(from + kPasteFromLine.size()), kSizePlaceholder, size_parameter);
  for (const FixedCppSlot& slot : slots) {
    if (fill_slot(text, slot_line(slot.name), slot.lines) == 0) {
      throw error(fmt::format("{}: no line for slot '{}'", path, slot.name));
    }
  }
  if (const std::size_t left = text.find(kSlotLineStart); left != std::string::npos) {
    const std::string_view unfilled = std::string_view(text).substr(left, text.find('\n', left) - left);
    throw error(fmt::format("{}: a slot the emitter does not fill: {}", path, unfilled));
  }
  return text;
}

}  // namespace exactune
