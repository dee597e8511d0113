// One include for Catch2 v2 (Debian) and v3 (GPU machine).
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;  // v2 has it at global scope
// v2's substring matcher, by its v2 name.
namespace Catch {
inline auto Contains(const std::string& text) { return Matchers::ContainsSubstring(text); }
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
