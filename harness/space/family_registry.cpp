#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

namespace exactune {
namespace {

struct Registered {
  const KernelFamily* family;
  int rank;
};

// A function-local static: registrations run during static initialisation, in
// an order across translation units that nothing fixes.
std::vector<Registered>& registered() {
  static std::vector<Registered> families;
  return families;
}

std::vector<std::string> names() {
  std::vector<std::string> result;
  for (const KernelFamily* f : FamilyRegistry::all()) result.push_back(f->name());
  return result;
}

}  // namespace

bool FamilyRegistry::add(const KernelFamily& family, int rank) {
  for (const Registered& r : registered()) {
    if (r.family->name() == family.name()) {
      throw error(fmt::format("two kernel families register the name '{}'", family.name()));
    }
  }
  registered().push_back({&family, rank});
  return true;
}

std::vector<const KernelFamily*> FamilyRegistry::all() {
  std::vector<Registered> sorted = registered();
  std::sort(sorted.begin(), sorted.end(), [](const Registered& a, const Registered& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.family->name() < b.family->name();
  });
  std::vector<const KernelFamily*> families;
  for (const Registered& r : sorted) families.push_back(r.family);
  return families;
}

const KernelFamily& FamilyRegistry::find(const std::string& name) {
  for (const Registered& r : registered()) {
    if (r.family->name() == name) return *r.family;
  }
  throw input_error(fmt::format("no kernel family named '{}' (known: {})", name, fmt::join(names(), ", ")));
}

const KernelFamily& FamilyRegistry::default_family() {
  const std::vector<const KernelFamily*> families = all();
  if (families.empty()) throw error("no kernel family is linked into this program");
  return *families.front();
}

}  // namespace exactune
