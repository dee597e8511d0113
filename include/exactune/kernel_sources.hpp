// Kernel sources the binary carries. The build embeds kernel_templates/ and the
// files each family lists (exactune_embed in its CMakeLists); a family whose
// kernels are not built in (a test's toy family) adds its sources here, during
// static initialisation, before anything compiles them.
#pragma once
#include <string_view>

namespace exactune {

// `path` and `text` must live as long as the program (string literals do).
// Returns true, so that a namespace-scope constant can call it.
bool add_kernel_source(std::string_view path, std::string_view text);

}  // namespace exactune
