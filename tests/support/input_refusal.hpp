// What a test of bad input checks: the message of the exactune::input_error
// that reading it throws (anything else fails the test), and a file's text
// with one edit made, with the line the edit is on, for the message expected.
#pragma once
#include <algorithm>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include <exactune/error.hpp>

#include "catch.hpp"

// The message of the input_error `read` throws; fails the test on anything else.
inline std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const exactune::input_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("not an input_error: " << e.what());
  }
  FAIL("read without an error");
  return {};
}

// `text` with the first `from` replaced by `to`, and the 1-based line `from` starts on.
inline std::pair<std::string, int> edited(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  text.replace(at, from.size(), to);
  return {text, line};
}
