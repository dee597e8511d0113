// A file named on the command line that cannot be read or written is bad input
// (exit 2), not a failure of the run (exit 1): errors from `action` are rethrown
// as input_error.
#pragma once
#include <exactune/error.hpp>

namespace exactune::cli {

template <typename Action>
auto blaming_the_input(Action&& action) {
  try {
    return action();
  } catch (const input_error&) {
    throw;
  } catch (const error& e) {
    throw input_error(e.what());
  }
}

}  // namespace exactune::cli
