#include "fuzz/seed_corpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "choose/chooser.hpp"
#include "shapes/shape_file.hpp"
#include "store/defaults_record.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"

namespace exactune::fuzz {

namespace fs = std::filesystem;

std::vector<Seed> seed_files(const fs::path& corpus) {
  std::vector<Seed> seeds;
  std::vector<fs::path> files;
  for (const fs::directory_entry& folder : fs::directory_iterator(corpus)) {
    if (!folder.is_directory()) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(folder.path())) {
      if (file.is_regular_file()) files.push_back(file.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    seeds.push_back(
        {file.parent_path().filename().string(), file.string(), std::string(std::istreambuf_iterator<char>(in), {})});
  }
  return seeds;
}

namespace {

// The figures of one timing: steady, so that the gate judges it.
Timing steady(double median) { return {median, median * 0.99, median * 1.01, 5}; }

std::string shapes_file(const SweepResults& sweep) {
  std::string text = "shapes:\n";
  for (const ShapeResult& s : sweep.shapes) {
    text += fmt::format("  - name: {}\n    model: \"{}\"\n", s.shape.name, s.shape.model);
    for (const ShapeParameter& p : s.shape.parameters) text += fmt::format("    {}: {}\n", p.name, p.text());
  }
  return text;
}

std::string targets_file(const SweepResults& sweep) {
  std::string text = "targets:\n";
  for (const ShapeResult& s : sweep.shapes) {
    text += fmt::format("  - shape: {}\n    best_over_copy: 1.5\n    reason_if_missed: \"x stays in L2: 'quoted'\"\n",
                        s.shape.name);
  }
  return text;
}

DefaultsRecord defaults_record(const KernelFamily& family, const SweepResults& sweep) {
  DefaultsRecord record;
  record.command = fmt::format("exactune verify-defaults --family {} --cpu", family.name());
  record.family = family.name();
  record.reference_recipe = family.reference_recipe();
  record.backend = "CPU (2 threads)";
  record.target = "host";
  record.shape = sweep.shapes.front().shape.name;
  record.rows = 5;
  record.cases = {"case \"a\"", "case b"};
  const int size = sweep.shapes.front().shape.size;
  record.configurations = {{family.global_default().variant,
                            {"global default"},
                            compact_sizes({size, 2 * size, 3 * size, 5 * size}),
                            {{7 * size, 7 * size, 1}},
                            {{11 * size, "a: 1 of 8 elements differ\nat row 0"}}}};
  return record;
}

}  // namespace

std::optional<SweepResults> generated_sweep(const KernelFamily& family) {
  ShapeSet shapes;
  try {
    shapes = default_shapes(family);
  } catch (const exactune::error&) {
    return std::nullopt;  // a family without embedded default shapes (a test's toy)
  }
  SweepResults sweep;
  sweep.device = {"NVIDIA H200", "nvidia-h200", "sm_90", 132, 62914560, 3201000, 6016, 13000, "13.0"};
  sweep.family = family.name();
  sweep.reference_recipe = family.reference_recipe();
  sweep.created = "2026-12-01T00:00:00Z";
  sweep.wall_s = 12.5;
  sweep.timing = {"rotated", "l2_resident", "cold", 5, 0.05, 2};
  for (std::size_t i = 0; i < std::min<std::size_t>(2, shapes.shapes.size()); ++i) {
    ShapeResult s;
    s.shape = shapes.shapes[i];
    s.bytes_moved = family.bytes_moved(s.shape);
    s.copy_rotated = steady(4.0);
    s.copy_cold = steady(6.0);
    s.rotation = Rotation{3, 3 * s.bytes_moved};
    s.run_to_run_noise = {{TimingRegime::rotated, 0.01, 3, 2}};
    // Variants the tables may choose, so that the heuristics seed has a choice.
    std::vector<Variant> variants = valid_variants(family, s.shape.size);
    std::erase_if(variants, [&](const Variant& v) { return !family.not_chosen_because(v.params).empty(); });
    for (std::size_t v = 0; v < std::min<std::size_t>(3, variants.size()); ++v) {
      VariantResult r;
      r.variant = variants[v].name;
      r.params = variants[v].params;
      r.registers = 32;
      r.exact = v != 2;
      r.cases_total = 8;
      r.cases_passed = r.exact ? 8 : 7;
      if (r.exact) {
        r.rotated = steady(10.0 + static_cast<double>(v));
        r.cold = steady(12.0 + static_cast<double>(v));
      } else {
        r.failure_kind = "incorrect";
        r.failure = "a: 1 of 64 elements differ; first at row 0, column 3: 0x3f80 vs 0x3f81";
      }
      s.variants.push_back(std::move(r));
    }
    sweep.shapes.push_back(std::move(s));
  }
  return sweep;
}

std::vector<Seed> generated_seeds() {
  std::vector<Seed> seeds;
  for (const KernelFamily* family : FamilyRegistry::all()) {
    const std::optional<SweepResults> sweep = generated_sweep(*family);
    if (!sweep) continue;
    const std::string name = fmt::format("<generated: {}>", family->name());
    const std::string sweep_text = to_sweep_yaml(*sweep);
    seeds.push_back({"shapes", name, shapes_file(*sweep)});
    seeds.push_back({"sweep", name, sweep_text});
    seeds.push_back({"gate", name, sweep_text});
    seeds.push_back({"heuristics", name, to_heuristics_yaml(choose_heuristics(*sweep))});
    seeds.push_back({"targets", name, targets_file(*sweep)});
    seeds.push_back({"verified_defaults", name, to_defaults_yaml(defaults_record(*family, *sweep))});
  }
  return seeds;
}

}  // namespace exactune::fuzz
