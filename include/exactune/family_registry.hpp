// The families this binary knows. A family registers itself from its own
// folder with EXACTUNE_REGISTER_FAMILY (in the manner of nvbench's criterion
// registry), so the core, the CLI and the C ABI find it by name without naming
// it. A family's sources are linked as an object library, so that its
// registration is never dropped by the linker.
#pragma once
#include <string>
#include <vector>

#include <exactune/family.hpp>

namespace exactune {

class FamilyRegistry {
 public:
  // Registers `family` (which must outlive the program: a function-local static).
  // `rank` orders the families: the lowest is the default.
  static bool add(const KernelFamily& family, int rank);
  // Throws exactune::input_error naming the known families when none is `name`.
  static const KernelFamily& find(const std::string& name);
  // By rank, then name.
  static std::vector<const KernelFamily*> all();
  // The family of lowest rank: what a command runs without --family.
  static const KernelFamily& default_family();
};

}  // namespace exactune

// At namespace scope in one source file of the family:
//   EXACTUNE_REGISTER_FAMILY(my_family(), 10);
#define EXACTUNE_REGISTER_FAMILY_CONCAT2(a, b) a##b
#define EXACTUNE_REGISTER_FAMILY_CONCAT(a, b) EXACTUNE_REGISTER_FAMILY_CONCAT2(a, b)
#define EXACTUNE_REGISTER_FAMILY(family_expression, rank)                                              \
  namespace {                                                                                          \
  [[maybe_unused]] const bool EXACTUNE_REGISTER_FAMILY_CONCAT(exactune_family_registered_, __LINE__) = \
      ::exactune::FamilyRegistry::add(family_expression, rank);                                        \
  }
