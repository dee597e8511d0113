// A toy kernel family for the core's tests: out = bf16(scale * x) over rows of
// `length` elements, with a trivial kernel. It proves that the core drives any
// family through list, compile, verify, choose, report and gate without naming
// it, and gives the core's tests a space small enough to read: three axes
// (threads, elements a step, and a result that is wrong on purpose), a size
// fallback (8 elements a step need a length that is a multiple of 8 and 16-byte
// aligned data, else 4 serve), a real-valued parameter with a default and a
// made-up serving framework's launch rule (KernelFamily::framework_rule).
#pragma once
#include <string>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune_test {

const exactune::KernelFamily& toy_family();

// A problem of the toy family: `rows` rows of `length` elements, each scaled by `scale`.
exactune::Shape toy_shape(std::string name, int rows, int length, double scale = 2.0);

}  // namespace exactune_test
