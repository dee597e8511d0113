// The one YAML writer of the files exactune commits (sweep.yaml, heuristics.yaml,
// the record of verified defaults): how a string, a number, a flow map and a
// comment are spelled, and a text built a block at a time. Every value reads
// back as itself in any YAML reader (yaml-cpp, and PyYAML's YAML 1.1 rules),
// and each file's writer says only which keys it writes.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exactune::yaml {

// A string: plain where no YAML reader could take it for anything else (it
// starts with a letter, holds only letters, digits and " ._-/", does not end
// in a space and is no word a reader takes for a bool, a null, an infinity or
// NaN), else double-quoted. So "4096" and "1e5" are quoted, and read back as
// strings, not numbers.
std::string string(std::string_view text);

// `text` as a double-quoted scalar that reads back to the same string: '"' and
// '\' escaped, every control character (LF, CR and NEL among them) and the
// line breaks LS and PS as an escape (\n, \t, \xNN, \uNNNN); a byte that is
// not UTF-8 becomes U+FFFD, since a YAML file is UTF-8 text (and the readers
// refuse one that is not). For files that quote every string.
std::string quoted(std::string_view text);

// The shortest decimal that reads back to the same double, always with a '.'
// in its mantissa so that YAML 1.1 readers (PyYAML) take it for a float:
// 1e-06 -> 1.0e-06, 3 -> 3.0; NaN and infinities as .nan, .inf, -.inf.
std::string number(double value);

// Whether a plain scalar `text` could read as something else than this string
// in some YAML reader (1.1 or 1.2): a bool, a null, an infinity or NaN.
bool reserved_word(std::string_view text);

// `text` fit for a comment of one line: every control character and line
// break (LS and PS included) becomes a space, and an invalid byte U+FFFD, as
// quoted() spells it: so that a text written, read back and written again
// gives the same comment.
std::string comment_text(std::string_view text);
// `text` as "# " comment lines of at most `width` characters, wrapped at spaces.
std::string comment(std::string_view text, std::size_t width = 82);

// Keys and their values, already spelled as above, in the order written.
using KeyValues = std::vector<std::pair<std::string, std::string>>;
// {key: value, ...}
std::string flow_map(const KeyValues& fields);
// [item, ...]
std::string flow_list(const std::vector<std::string>& items);
// The keys of `fields`, in order: what a reader accepts of what the writer writes.
std::vector<std::string> keys_of(const KeyValues& fields);

// Builds a file's text a block at a time, at explicit indents.
class Text {
 public:
  // "<indent>key: value"
  void field(int indent, std::string_view key, std::string_view value);
  void fields(int indent, const KeyValues& entries);
  // "<indent>- key: value": the first key of a list entry
  void item(int indent, std::string_view key, std::string_view value);
  void line(std::string_view text);
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace exactune::yaml
