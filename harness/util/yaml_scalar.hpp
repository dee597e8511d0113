// How the files exactune writes (sweep.yaml, heuristics.yaml, the record of
// verified defaults) spell a string: one escaping for all of them, so that any
// text, a device name with a newline included, reads back as itself and never
// breaks the file. Each writer decides when a string may go plain; when it
// may not, it goes through yaml_double_quoted().
#pragma once
#include <string>
#include <string_view>

namespace exactune {

// `text` as a YAML double-quoted scalar that reads back to the same string:
// '"' and '\' escaped, every control character (LF, CR and NEL among them)
// and the line breaks LS and PS as an escape (\n, \t, \xNN, \uNNNN); a byte
// that is not UTF-8 becomes U+FFFD, since a YAML file is UTF-8 text (and the
// readers refuse one that is not).
std::string yaml_double_quoted(std::string_view text);

// `text` fit for a comment of one line: every control character, line break
// (LS and PS included) and invalid byte becomes a space.
std::string yaml_comment_text(std::string_view text);

// Whether a plain scalar `text` could read as something else than this string
// in some YAML reader (1.1 or 1.2): a bool, a null, an infinity or NaN.
bool yaml_reserved_word(std::string_view text);

}  // namespace exactune
