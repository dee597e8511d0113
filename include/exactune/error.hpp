// The one exception type exactune throws at its boundaries. Messages are meant
// for a person: they say where (file:line when there is one) and what is wrong.
#pragma once
#include <stdexcept>
#include <string>

namespace exactune {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input was wrong (a command-line argument, a shapes file): the CLI exits 2.
class input_error : public error {
 public:
  using error::error;
};

}  // namespace exactune
