// exactune: tune a fused kernel's launch configuration across its variants, and
// prove every variant bit-exact with the framework's eager chain.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "commands.hpp"
#include "error.hpp"

int main(int argc, char** argv) {
  using namespace exactune::cli;
  CLI::App app{
      "exactune: JIT-compiles every variant of a fused kernel (LayerNorm + adaLN modulate, bf16), checks each\n"
      "bit for bit against an aten-equivalent reference, times the exact ones, and writes per-GPU heuristic\n"
      "tables, a C++ header and a JSON table.",
      "exactune"};
  app.require_subcommand(1);
  app.fallthrough(false);
  Run run;
  add_list_command(app, run);
  add_compile_command(app, run);
  add_verify_command(app, run);
  add_sweep_command(app, run);
  add_gate_command(app, run);
  add_emit_header_command(app, run);
  add_report_command(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  try {
    return run();
  } catch (const exactune::input_error& e) {
    fmt::print(stderr, "exactune: error: {}\n", e.what());
    return kExitUsage;
  } catch (const exactune::error& e) {
    fmt::print(stderr, "exactune: error: {}\n", e.what());
    return kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "exactune: internal error: {}\n", e.what());
    return kExitFailure;
  }
}
