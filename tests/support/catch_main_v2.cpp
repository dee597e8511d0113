// Catch2 v2 needs one translation unit that defines main; v3 brings its own.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
