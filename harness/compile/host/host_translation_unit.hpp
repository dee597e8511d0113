// The C++ source that turns kernel templates into host launchers: the shim,
// the templates, and one exported launcher per requested instantiation.
#pragma once
#include <string>
#include <vector>

namespace exactune::host_exec {

struct LauncherSpec {
  std::string symbol;           // host_launcher.hpp's launcher_symbol
  std::string main_file;        // included, e.g. "kernel_templates/copy.cuh"
  std::string name_expression;  // e.g. "&exactune_kernels::copy_bytes"
  std::string request_name;     // shown by compiler errors at the launcher's line
};

std::string render_translation_unit(const std::vector<LauncherSpec>& launchers);

}  // namespace exactune::host_exec
