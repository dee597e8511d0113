// A strict reader of the JSON records exactune keeps for itself (a journal's
// steps): every value checked for its type and range, every object for the
// keys it may hold, before anything is taken from it. A record is written by
// exactune, but read back from a file that anything may have changed; a value
// of the wrong type must be refused in words, never end in a JSON library's
// type error. Errors are exactune::error "<what>: <what is wrong>"; the reader
// of the file they are in says where.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace exactune::strict_json {

// `value` in a message: its JSON on one line, cut short past `longest` characters.
std::string excerpt(const nlohmann::json& value, std::size_t longest = 60);

// A JSON object, checked against the keys it may hold; `what` names it in
// messages ("the record"), and a value in it by its keys: "the record's
// 'copy.cold'".
class Object {
 public:
  Object(const nlohmann::json& json, std::string what, const std::vector<std::string_view>& known)
      : Object(json, std::move(what), "", known) {}

  bool has(std::string_view key) const { return json_->contains(key); }
  // The value under `key`; fails when there is none.
  const nlohmann::json& operator[](std::string_view key) const;

  std::string text(std::string_view key) const;
  // A whole number from `least` to `most`.
  std::int64_t integer_in(std::string_view key, std::int64_t least,
                          std::int64_t most = std::numeric_limits<std::int64_t>::max()) const;
  // One of `choices`, as a string.
  std::string one_of(std::string_view key, std::initializer_list<std::string_view> choices) const;
  // The object under `key`, checked against its own keys.
  Object object(std::string_view key, const std::vector<std::string_view>& known) const;

  // "the record's 'mismatches'": how messages name one of its values.
  std::string name_of(std::string_view key) const;
  // Fails with "<this object's name>: <why>".
  [[noreturn]] void fail(std::string_view why) const;

 private:
  Object(const nlohmann::json& json, std::string what, std::string path, const std::vector<std::string_view>& known);
  std::string name() const;

  const nlohmann::json* json_;
  std::string what_;
  std::string path_;  // its keys from `what_`, joined by '.'; "" for `what_` itself
};

// Each takes `value` named `name` in messages, and fails unless it is of the kind.
std::string text(const nlohmann::json& value, std::string_view name);
std::int64_t integer_in(const nlohmann::json& value, std::string_view name, std::int64_t least,
                        std::int64_t most = std::numeric_limits<std::int64_t>::max());
// A finite number >= 0: a time in µs.
double non_negative_number(const nlohmann::json& value, std::string_view name);
// A non-empty list of finite numbers >= 0: the samples of a timing.
std::vector<double> non_negative_numbers(const nlohmann::json& value, std::string_view name);

}  // namespace exactune::strict_json
