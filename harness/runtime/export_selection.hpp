// Which configurations `exactune export` compiles: of a family's tables, the
// (variant, size) pairs the runtime can serve on GPUs of one architecture,
// at a bounded set of sizes. Every size the tables serve would be thousands
// of kernels (a global default verified at every multiple of 4 up to 8192);
// the export holds, per architecture, the sizes that were tuned (each tuned
// bucket's size) and the sizes of the family's default shapes, and at each of
// them every candidate the runtime can launch there (runtime_tables.hpp:
// choose_candidate, for every GPU of the architecture the tables name, every
// row bucket and every alignment, and for a GPU they do not name). What it
// leaves out is compiled by NVRTC at first sight, as without an export.
// Pure: it needs no GPU and no compiler (docs/runtime.md gives the figures).
#pragma once
#include <string>
#include <vector>

#include <exactune/family.hpp>

#include "runtime/device_tables.hpp"

namespace exactune {

struct ExportedConfiguration {
  std::string variant;
  int size = 0;
  bool operator==(const ExportedConfiguration&) const = default;
};

// The architectures ("sm_90", ...) of the GPUs `table` names, ascending, without repeats.
std::vector<std::string> table_archs(const FamilyTable& table);

// The sizes the export holds for `arch`: every tuned bucket's size on a GPU of
// that architecture, and `shape_sizes` (the family's default shapes'),
// ascending, without repeats; each one the family accepts.
std::vector<int> export_sizes(const KernelFamily& family, const FamilyTable& table, const std::string& arch,
                              const std::vector<int>& shape_sizes);

// Every (variant, size) the runtime can serve from `table` on a GPU of `arch`
// at each of `sizes`, by size, then in the order the runtime tries them.
std::vector<ExportedConfiguration> served_configurations(const KernelFamily& family, const FamilyTable& table,
                                                         const std::string& arch, const std::vector<int>& sizes);

// Every size the runtime can serve from `table` on a GPU of `arch`: where a
// candidate it may try there was verified. What "export everything" would be.
std::vector<int> every_served_size(const KernelFamily& family, const FamilyTable& table, const std::string& arch);

}  // namespace exactune
