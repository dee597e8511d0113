// Checks of JSON values by kind and range (strict_json.hpp), each failing with
// a message that names the value by its keys and quotes what it held.
#include "util/strict_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include <exactune/error.hpp>

namespace exactune::strict_json {

std::string excerpt(const nlohmann::json& value, std::size_t longest) {
  // Enough to recognise the value by; a damaged record may hold megabytes. ASCII, so a cut splits no character.
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() > longest) text = text.substr(0, longest) + "...";
  return text;
}

namespace {

[[noreturn]] void refuse(std::string_view name, std::string_view expected, const nlohmann::json& value) {
  throw error(fmt::format("{} must be {}, got {}", name, expected, excerpt(value)));
}

}  // namespace

Object::Object(const nlohmann::json& json, std::string what, std::string path,
               const std::vector<std::string_view>& known)
    : json_(&json), what_(std::move(what)), path_(std::move(path)) {
  if (!json.is_object()) throw error(fmt::format("{} must be an object, got {}", name(), excerpt(json)));
  for (const auto& [key, ignored] : json.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw error(fmt::format("{} holds an unknown key {} (known: {})", name(), excerpt(key), fmt::join(known, ", ")));
    }
  }
}

std::string Object::name() const { return path_.empty() ? what_ : fmt::format("{}'s '{}'", what_, path_); }

const nlohmann::json& Object::operator[](std::string_view key) const {
  const auto it = json_->find(key);
  if (it == json_->end()) throw error(fmt::format("{} has no '{}'", name(), key));
  return *it;
}

std::string Object::name_of(std::string_view key) const {
  return fmt::format("{}'s '{}{}{}'", what_, path_, path_.empty() ? "" : ".", key);
}

void Object::fail(std::string_view why) const { throw error(fmt::format("{}: {}", name(), why)); }

std::string Object::text(std::string_view key) const { return strict_json::text((*this)[key], name_of(key)); }

std::int64_t Object::integer_in(std::string_view key, std::int64_t least, std::int64_t most) const {
  return strict_json::integer_in((*this)[key], name_of(key), least, most);
}

std::string Object::one_of(std::string_view key, std::initializer_list<std::string_view> choices) const {
  const nlohmann::json& value = (*this)[key];
  if (value.is_string() && std::find(choices.begin(), choices.end(), value.get<std::string>()) != choices.end()) {
    return value.get<std::string>();
  }
  refuse(name_of(key), fmt::format("one of \"{}\"", fmt::join(choices, "\", \"")), value);
}

Object Object::object(std::string_view key, const std::vector<std::string_view>& known) const {
  return Object((*this)[key], what_, fmt::format("{}{}{}", path_, path_.empty() ? "" : ".", key), known);
}

std::string text(const nlohmann::json& value, std::string_view name) {
  if (!value.is_string()) refuse(name, "a string", value);
  return value.get<std::string>();
}

std::int64_t integer_in(const nlohmann::json& value, std::string_view name, std::int64_t least, std::int64_t most) {
  const std::string expected = most == std::numeric_limits<std::int64_t>::max()
                                   ? fmt::format("a whole number >= {}", least)
                                   : fmt::format("a whole number from {} to {}", least, most);
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      refuse(name, expected, value);
    }
  } else if (!value.is_number_integer()) {
    refuse(name, expected, value);
  }
  const auto n = value.get<std::int64_t>();
  if (n < least || n > most) refuse(name, expected, value);
  return n;
}

double non_negative_number(const nlohmann::json& value, std::string_view name) {
  // JSON has no NaN or infinity; a number too large for a double reads as one.
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
    refuse(name, "a finite number >= 0", value);
  }
  return value.get<double>();
}

std::vector<double> non_negative_numbers(const nlohmann::json& value, std::string_view name) {
  if (!value.is_array() || value.empty()) refuse(name, "a non-empty list of numbers", value);
  std::vector<double> numbers;
  numbers.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    numbers.push_back(non_negative_number(value[i], fmt::format("{} #{}", name, i + 1)));
  }
  return numbers;
}

}  // namespace exactune::strict_json
