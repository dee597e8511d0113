// A strict reader of YAML files that people write or edit: every value
// converted with a message that names its key and line, every map checked
// against the keys it may hold before any is read. Errors are
// exactune::input_error, "<source>:<line>: <what>".
#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <exactune/error.hpp>

#include "util/yaml_node_text.hpp"

namespace exactune::strict_yaml {

// `text` on one line: a message quotes the file, and a file's string may hold
// a newline or another control character, which the message spells as an
// escape, so that the CLI prints one line per error.
std::string one_line(std::string_view text);

// Where a file's errors point: "<source>:<line>: <what>".
class Source {
 public:
  explicit Source(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  template <typename... Args>
  [[noreturn]] void fail(int line, fmt::format_string<Args...> what, Args&&... args) const {
    throw input_error(fmt::format("{}:{}: {}", name_, line, one_line(fmt::format(what, std::forward<Args>(args)...))));
  }

  // "<source>:<line>:<column>: <what>", for a fault in the text itself.
  [[noreturn]] void fail_at(int line, int column, std::string_view what) const {
    throw input_error(fmt::format("{}:{}:{}: {}", name_, line, column, one_line(what)));
  }

 private:
  std::string name_;
};

class Fields;

// One value of the file and the key it is under, converted with messages that
// name the key and the line.
class Value {
 public:
  Value(const Source& source, std::string key, YAML::Node node, int line)
      : source_(&source), key_(std::move(key)), node_(std::move(node)), line_(line) {}

  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const Source& source() const { return *source_; }

  std::string text() const { return scalar("a string"); }

  // A name: a string that says something.
  std::string nonempty_text() const {
    std::string text = scalar("a string");
    if (text.empty()) source_->fail(line_, "{} must not be empty", key_);
    return text;
  }

  template <typename Int>
  Int integer() const {
    return parse_number<Int>("an integer");
  }

  double real() const {
    const std::string& text = plain_scalar("a number");
    if (text == ".nan") return std::nan("");
    if (text == ".inf" || text == "+.inf") return HUGE_VAL;
    if (text == "-.inf") return -HUGE_VAL;
    return parse_number<double>("a number");
  }

  // A whole number no less than `least`: counts, sizes, bytes.
  template <typename Int>
  Int integer_at_least(Int least) const {
    const Int n = integer<Int>();
    if (n < least) source_->fail(line_, "{} must be at least {}, got {}", key_, least, n);
    return n;
  }

  // A number that is neither NaN nor infinite.
  double finite_real() const {
    const double x = real();
    if (!std::isfinite(x)) source_->fail(line_, "{} must be a finite number, got {}", key_, text());
    return x;
  }

  // A finite number > 0: a time, a ratio of times.
  double positive_real() const {
    const double x = finite_real();
    if (!(x > 0)) source_->fail(line_, "{} must be a number > 0, got {}", key_, text());
    return x;
  }

  // A finite number >= 0: a spread, a noise, a duration that may be nothing.
  double non_negative_real() const {
    const double x = finite_real();
    if (!(x >= 0)) source_->fail(line_, "{} must be a number >= 0, got {}", key_, text());
    return x;
  }

  bool boolean() const {
    const std::string& text = plain_scalar("true or false");
    if (text != "true" && text != "false") source_->fail(line_, "{} must be true or false, got '{}'", key_, text);
    return text == "true";
  }

  // The map's entries, checked against `known` (see Fields).
  Fields map(std::string what, const std::vector<std::string>& known) const;

  std::vector<Value> list() const {
    if (!node_.IsSequence()) source_->fail(line_, "{} must be a list, got {}", key_, describe(node_));
    std::vector<Value> items;
    for (std::size_t i = 0; i < node_.size(); ++i) {
      // An empty item has no mark of its own; the list's line locates it.
      const int line = node_[i].IsNull() ? line_ : line_of(node_[i]);
      items.emplace_back(*source_, fmt::format("{} #{}", key_, i + 1), node_[i], line);
    }
    return items;
  }

 private:
  const std::string& scalar(std::string_view expected) const {
    if (node_.IsNull()) source_->fail(line_, "{} has no value (expected {})", key_, expected);
    if (!node_.IsScalar()) source_->fail(line_, "{} must be {}, got {}", key_, expected, describe(node_));
    return node_.Scalar();
  }

  // A number is written plain: quoted, "4" is a string (yaml-cpp tags it "!").
  const std::string& plain_scalar(std::string_view expected) const {
    const std::string& text = scalar(expected);
    if (node_.Tag() == "!") source_->fail(line_, "{} must be {}, got the quoted string \"{}\"", key_, expected, text);
    return text;
  }

  template <typename Number>
  Number parse_number(std::string_view expected) const {
    const std::string& text = plain_scalar(expected);
    Number result{};
    const char* end = text.data() + text.size();
    const auto [stop, status] = std::from_chars(text.data(), end, result);
    if (status == std::errc::result_out_of_range) source_->fail(line_, "{} {} is out of range", key_, text);
    if (status != std::errc() || stop != end) source_->fail(line_, "{} must be {}, got '{}'", key_, expected, text);
    return result;
  }

  const Source* source_;
  std::string key_;
  YAML::Node node_;
  int line_;
};

using Keys = std::vector<std::string>;

// The entries of one YAML map, checked against the keys its kind of map may
// hold before any is read, so that a misspelt key is named where it stands and
// not reported as a missing one elsewhere.
class Fields {
 public:
  // `known` empty: the keys are data (a variant's params), any name goes.
  Fields(const Source& source, const YAML::Node& map, int line, std::string what, const Keys& known)
      : source_(&source), line_(line), what_(std::move(what)) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const int key_line = line_of(it->first);
      if (!it->first.IsScalar())
        source.fail(key_line, "a key in {} must be a name, got {}", what_, describe(it->first));
      const std::string& key = it->first.Scalar();
      if (!known.empty() && std::find(known.begin(), known.end(), key) == known.end()) {
        source.fail(key_line, "unknown key '{}' in {} (known: {})", key, what_, fmt::join(known, ", "));
      }
      const auto [first, inserted] = index_.try_emplace(key, entries_.size());
      if (!inserted) {
        source.fail(key_line, "key '{}' appears twice in {} (first on line {})", key, what_,
                    entries_[first->second].key_line);
      }
      // An empty value's mark points at the next token, often on a later line.
      const int value_line = it->second.IsNull() ? key_line : line_of(it->second);
      entries_.push_back({Value(source, key, it->second, value_line), key_line});
    }
  }

  Value operator[](std::string_view key) const {
    if (std::optional<Value> value = optional(key)) return *value;
    source_->fail(line_, "{} is missing key '{}'", what_, key);
  }

  std::optional<Value> optional(std::string_view key) const {
    const Entry* found = entry(key);
    return found == nullptr ? std::nullopt : std::optional<Value>(found->value);
  }

  bool has(std::string_view key) const { return entry(key) != nullptr; }

  // Every entry, in file order.
  std::vector<Value> all() const {
    std::vector<Value> values;
    for (const Entry& e : entries_) values.push_back(e.value);
    return values;
  }

 private:
  struct Entry {
    Value value;
    int key_line;
  };

  const Entry* entry(std::string_view key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &entries_[it->second];
  }

  const Source* source_;
  int line_;
  std::string what_;
  std::vector<Entry> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;  // key -> its entry: a map of data may be long
};

// The one YAML document of a file; a syntax error, an empty file, or a second
// document fails with the file's line. `expected` says what the file should
// hold, e.g. "a map with a 'shapes' list". Before anything is built the text
// must keep the bounds of every file exactune reads: at most
// kMaxInputFileBytes (text_file.hpp), UTF-8 without control characters and
// with lines that every YAML reader ends alike (utf8_text.hpp; a fault fails
// with its line and column), and the bounds of yaml_screen.hpp.
YAML::Node load_document(std::string_view text, const Source& source, std::string_view expected);

}  // namespace exactune::strict_yaml
