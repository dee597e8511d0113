// --cpu / --rows: whether a command runs kernels on the GPU or executes the same
// templates on the CPU, and how much of each shape the CPU takes.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/shapes.hpp>

namespace exactune::cli {

struct BackendOptions {
  bool cpu = false;
  int cpu_rows = 5;

  void add_to(CLI::App& command);
  // The GPU, or the CPU with --cpu; throws exactune::error naming --cpu when
  // there is no GPU.
  std::unique_ptr<Backend> open() const;
  // The shapes as given on a GPU; their first rows on the CPU.
  std::vector<Shape> shapes_for(const KernelFamily& family, const ShapeSet& set) const;
  // What a reader must know about the results ("" on a GPU).
  std::string note() const;
};

}  // namespace exactune::cli
