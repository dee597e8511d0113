// One include for Catch2 v2 (Debian) and v3 (GPU machine).
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;  // v2 has it at global scope
#else
#include <catch2/catch.hpp>
#endif
