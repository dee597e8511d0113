// The checks of an exactune_problem (exactune_capi.h) that every C ABI of a
// LayerNorm + modulate family makes before it compiles, loads or copies
// anything (this family's and the token-major one's), and the inputs it then
// reads from the caller's buffers.
#pragma once
#include <cstdint>

#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "capi/capi_arguments.hpp"
#include "layer_norm_modulate/capi/exactune_capi.h"
#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

namespace exactune::modulate_capi {

// What the entries share once a problem has passed its checks: its shape and
// the extent of the caller's buffers.
struct CheckedProblem {
  Shape shape;
  std::int64_t x_elements = 0;
};

// Every check of exactune_problem, in the order a reader would make them.
CheckedProblem check_problem(const CapiArguments& arguments, const exactune_problem* problem);

// A variant's loads of `vector_bytes` need the scale and shift rows to start
// on such a boundary, as the workload would find after compiling every variant.
void check_alignment(const CapiArguments& arguments, const exactune_problem& p, const Variant& variant,
                     int vector_bytes);

// x (as the caller laid it out) and the embedding, copied from the caller.
ModulateInputs inputs_of(const exactune_problem& p, const CheckedProblem& checked);

}  // namespace exactune::modulate_capi
