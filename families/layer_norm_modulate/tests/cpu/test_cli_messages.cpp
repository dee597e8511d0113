// What the CLI says of this family's own parameters and space: a hidden size
// its rules refuse, given as an option or in a shape file, and a --variants
// glob that selects nothing at one hidden size of the set, each one line that
// names the option or the file and line and the rule, and exit 2. The CLI's
// generic messages are tests/cli/.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"

namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `text` as `name` in `folder`.
fs::path write_file(const fs::path& folder, const std::string& name, const std::string& text) {
  std::ofstream(folder / name) << text;
  return folder / name;
}

}  // namespace

TEST_CASE("a hidden size the family refuses is one readable line and exit 2, as an option or in a shape file",
          "[cli_messages]") {
  SECTION("--size 2242: not a multiple of 4") {
    const CliResult r = run_cli("list --family layer_norm_modulate --size 2242");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "exactune: error: --size 2242: hidden 2242 is not a multiple of 4"));
  }
  SECTION("--size 0: the family's rule for its size parameter, not a range to 1.8e308") {
    const CliResult r = run_cli("list --family layer_norm_modulate --size 0");
    CHECK(r.exit_code == 2);
    CHECK(r.output == "exactune: error: --size 0: hidden 0 is out of range (must be 1..8192)\n");
  }
  SECTION("a shape file names its line") {
    const ScratchDirectory dir("cli-bad-shapes");
    const fs::path path = write_file(dir.path(), "shapes.yaml",
                                     "shapes:\n  - name: bad\n    model: m\n    batch: 1\n    tokens: 1\n"
                                     "    hidden: 2242\n    eps: 1.0e-6\n");
    const CliResult r = run_cli(fmt::format("list --family layer_norm_modulate --shapes '{}'", path.string()));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, fmt::format("{}:6:", path.string())));
  }
}

TEST_CASE("a --variants glob that selects nothing at a size of the set exits 2 naming the glob, family and size",
          "[cli_messages]") {
  // Two shapes, at hidden 2240 and at 2244 (where no variant loads 16 bytes).
  const ScratchDirectory dir("cli-variants");
  const fs::path shapes = write_file(dir.path(), "shapes.yaml",
                                     "shapes:\n"
                                     "  - {name: a, model: m, batch: 1, tokens: 8, hidden: 2240, eps: 1.0e-6}\n"
                                     "  - {name: b, model: m, batch: 1, tokens: 8, hidden: 2244, eps: 1.0e-6}\n");
  const CliResult r = run_cli(fmt::format(
      "compile --family layer_norm_modulate --shapes '{}' --variants '*_v16_*' --no-table", shapes.string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output ==
        "exactune: error: --variants *_v16_* matches no valid variant of layer_norm_modulate at hidden "
        "2244\n");
  CHECK(run_cli(fmt::format("compile --family layer_norm_modulate --shapes '{}' --variants 'nothing*' --no-table",
                            shapes.string()))
            .output ==
        "exactune: error: --variants nothing* matches no valid variant of layer_norm_modulate at hidden 2240\n");
}
