// The `exactune` subcommands. Each adds itself to the app and returns the
// function that runs it once the command line is parsed; that function returns
// the process's exit code.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>

namespace exactune::cli {

using Run = std::function<int()>;

// Exit codes: 0 success, 1 the run found a failure (a variant failed to compile
// or was not bit-exact), 2 the input was wrong (arguments, shapes file).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

void add_families_command(CLI::App& app, Run& run);
void add_list_command(CLI::App& app, Run& run);
void add_compile_command(CLI::App& app, Run& run);
void add_verify_command(CLI::App& app, Run& run);
void add_verify_defaults_command(CLI::App& app, Run& run);
void add_sweep_command(CLI::App& app, Run& run);
void add_agreement_command(CLI::App& app, Run& run);
void add_gate_command(CLI::App& app, Run& run);
void add_gate_power_command(CLI::App& app, Run& run);
void add_merge_command(CLI::App& app, Run& run);
void add_emit_header_command(CLI::App& app, Run& run);
void add_report_command(CLI::App& app, Run& run);
void add_tables_command(CLI::App& app, Run& run);
void add_export_command(CLI::App& app, Run& run);

}  // namespace exactune::cli
