// The family the exactune CLI runs when a command names none, for the tests of
// the CLI's generic behaviour (its messages and exit codes, supervision, the
// compile cache under verify --cpu): the registry's default, which a test
// binary shares with the CLI (the toy family ranks after every real one, and
// the CLI does not have it). What such a test needs of the family (small
// shapes, a variant valid at every size, a sweep) is asked of it through the
// core's interface, so that the test names neither a family nor its
// parameters and holds whichever family is the default.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "shapes/shape_file.hpp"
#include "support/handmade_sweep.hpp"
#include "support/run_cli.hpp"

namespace exactune_test {

inline const exactune::KernelFamily& cli_family() {
  static const exactune::KernelFamily& family = []() -> const exactune::KernelFamily& {
    const exactune::KernelFamily& f = exactune::FamilyRegistry::default_family();
    // The CLI names its default in the help of --family.
    const CliResult help = run_cli("list --help");
    INFO(help.output);
    REQUIRE(help.output.find(fmt::format("(default: {};", f.name())) != std::string::npos);
    return f;
  }();
  return family;
}

// The family's global default: the variant every size it serves can run.
inline std::string cli_variant() { return cli_family().global_default().variant; }

// A shape of the CLI's family of size `size` (a value of its size parameter)
// and at most `rows` rows: its first default shape with the size changed.
inline exactune::Shape cli_shape(const std::string& name, int size, std::int64_t rows = 2) {
  const exactune::KernelFamily& family = cli_family();
  INFO(family.size_parameter() << " " << size);
  REQUIRE(family.parameter_problem(family.size_parameter(), size).empty());
  exactune::Shape shape = exactune::default_shapes(family).shapes.at(0);
  shape.name = name;
  shape.model = "test";
  std::size_t changed = 0;
  for (exactune::ShapeParameter& p : shape.parameters) {
    if (p.name != family.size_parameter()) continue;
    p.value = size;
    ++changed;
  }
  REQUIRE(changed == 1);
  family.complete(shape);
  shape = family.with_rows_at_most(shape, rows);
  REQUIRE(shape.size == size);
  bool served = false;
  for (const exactune::Variant& v : exactune::valid_variants(family, size)) served = served || v.name == cli_variant();
  REQUIRE(served);
  return shape;
}

// `shapes` as a shape file of the CLI's family, in `folder`, every parameter
// spelled out; the family reads it back as written.
inline std::filesystem::path write_cli_shapes(const std::filesystem::path& folder,
                                              const std::vector<exactune::Shape>& shapes) {
  std::string text = "shapes:\n";
  for (const exactune::Shape& s : shapes) {
    text += fmt::format("  - {{name: {}, model: {}", s.name, s.model);
    for (const exactune::ShapeParameter& p : s.parameters) text += fmt::format(", {}: {}", p.name, p.text());
    text += "}\n";
  }
  const std::filesystem::path file = folder / "shapes.yaml";
  std::ofstream(file) << text;
  const exactune::ShapeSet read = exactune::load_shapes_file(cli_family(), file.string());
  REQUIRE(read.shapes.size() == shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    CHECK(read.shapes[i].describe_parameters() == shapes[i].describe_parameters());
  }
  return file;
}

// One small shape of the CLI's family and its first two valid variants, exact
// and timed, the first the faster (so the one chosen): a sweep every command
// that reads one takes.
inline exactune::SweepResults cli_sweep() {
  const exactune::KernelFamily& family = cli_family();
  exactune::SweepResults r = timed_sweep_header(family);
  exactune::ShapeResult s;
  s.shape = cli_shape("small", 64);
  s.bytes_moved = family.bytes_moved(s.shape);
  s.copy_rotated = exactune::Timing{4.0, 3.9, 4.1, 5};
  const std::vector<exactune::Variant> variants = exactune::valid_variants(family, s.shape.size);
  REQUIRE(variants.size() >= 2);
  s.variants = {exact_timed_variant(variants[0], 10.0), exact_timed_variant(variants[1], 11.0)};
  r.shapes = {s};
  return r;
}

}  // namespace exactune_test
