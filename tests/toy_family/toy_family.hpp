// A toy kernel family for the core's contract test: out = bf16(2 * x) over rows
// of `length` elements, with a trivial kernel. It proves that the core drives
// any family through list, compile and verify without naming it, and that the
// verifier catches a variant that is wrong on purpose (result: planted_wrong).
#pragma once
#include <exactune/family.hpp>

namespace exactune_test {

const exactune::KernelFamily& toy_family();

}  // namespace exactune_test
