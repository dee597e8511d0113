// exactune: tune a fused kernel's launch configuration across its variants, and
// prove every variant bit-exact with the framework's eager chain.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <exception>
#include <filesystem>

#include <exactune/error.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace exactune::cli;
  CLI::App app{
      "exactune: JIT-compiles every variant of a fused kernel family, checks each bit for bit against a\n"
      "replica of the framework chain it replaces, times the exact ones, and writes per-GPU heuristic\n"
      "tables, a C++ header and a JSON table. --family picks the family (exactune list --help names them).",
      "exactune"};
  app.require_subcommand(1);
  app.fallthrough(false);
  Run run;
  add_families_command(app, run);
  add_list_command(app, run);
  add_compile_command(app, run);
  add_verify_command(app, run);
  add_verify_defaults_command(app, run);
  add_sweep_command(app, run);
  add_agreement_command(app, run);
  add_gate_command(app, run);
  add_gate_power_command(app, run);
  add_merge_command(app, run);
  add_emit_header_command(app, run);
  add_report_command(app, run);
  add_tables_command(app, run);
  add_export_command(app, run);
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
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refused (a folder named where a file goes, no permission, no space) is no bug of
    // exactune; the boundaries that take a path from the user say which option it was.
    fmt::print(stderr, "exactune: error: {}\n",
               e.path1().empty() ? std::string(e.what()) : e.path1().string() + ": " + e.code().message());
    return kExitUsage;
  } catch (const std::exception& e) {
    // Bad input is caught where it enters and thrown as exactune::input_error: what reaches here is a bug.
    fmt::print(stderr, "exactune: internal error: {}\n", e.what());
    return kExitFailure;
  }
}
