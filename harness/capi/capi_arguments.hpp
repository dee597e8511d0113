// The checks an entry of a family's C ABI (families/<name>/capi/) makes on its
// arguments before it compiles, loads or copies anything, so that a problem it
// cannot run costs nothing and reads no caller memory. Each failure names the
// entry and the argument; capi_guarded (exactune/gpu_session.hpp) returns
// EXACTUNE_NOT_SERVED for capi_not_served and EXACTUNE_INVALID_ARGUMENT for
// any other input_error.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/gpu_session.hpp>
#include <exactune/space.hpp>

#include "space/pairwise_cover.hpp"

namespace exactune {

// A well-formed problem the family does not serve (a size aten runs through
// another kernel, more rows than a kernel counts): run the framework's chain.
class capi_not_served : public input_error {
 public:
  using input_error::input_error;
};

class CapiArguments {
 public:
  CapiArguments(const char* entry, const KernelFamily& family) : entry_(entry), family_(family) {}

  void require_pointer(const void* pointer, const char* argument) const {
    if (pointer == nullptr) throw input_error(fmt::format("{}: {} is NULL", entry_, argument));
  }

  // The family's size parameter: below 1 it describes no problem; above, the
  // family may not serve it.
  void require_served_size(double size) const {
    const std::string problem = family_.parameter_problem(family_.size_parameter(), size);
    if (problem.empty()) return;
    if (size < 1) throw input_error(fmt::format("{}: {}", entry_, problem));
    throw capi_not_served(fmt::format("{}: {}", entry_, problem));
  }

  // Counts (batch, tokens, ...): each must be >= 1.
  void require_counts(std::initializer_list<std::pair<const char*, std::int64_t>> counts) const {
    for (const auto& [name, value] : counts) {
      if (value < 1) throw input_error(fmt::format("{}: {} {} must be >= 1", entry_, name, value));
    }
  }

  // A real parameter of the family's problems, as the family accepts it and
  // finite once it is a float (the kernels' type).
  void require_parameter(const char* name, double value) const {
    std::string problem = family_.parameter_problem(name, value);
    if (problem.empty() && !std::isfinite(static_cast<float>(value))) {
      problem = fmt::format("{} {} is not a finite float", name, value);
    }
    if (!problem.empty()) throw input_error(fmt::format("{}: {}", entry_, problem));
  }

  // The product of `factors` (counts already >= 1), refused above `most`
  // without overflowing on the way.
  std::int64_t require_product_at_most(const char* what, std::initializer_list<std::int64_t> factors,
                                       std::int64_t most) const {
    std::int64_t product = 1;
    for (std::int64_t factor : factors) {
      if (__builtin_mul_overflow(product, factor, &product) || product > most) {
        throw capi_not_served(fmt::format("{}: {} is more than the {} served", entry_, what, most));
      }
    }
    return product;
  }

  // The valid variant of this name at `size` (already served), without compiling anything.
  Variant require_variant(const char* name, int size) const {
    require_pointer(name, "variant");
    const std::vector<Variant> variants = valid_variants(family_, size);
    const auto found = std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; });
    if (found == variants.end()) {
      throw input_error(fmt::format("{}: variant '{}' is no valid {} variant at {} {}", entry_, name, family_.name(),
                                    family_.size_parameter(), size));
    }
    return *found;
  }

  // A list entry's whole work: the valid variants at `size`, one name per
  // line, into the caller's `names` (all of them, or a pairwise cover of them).
  enum class Listing { all, pairwise_cover };
  void list_variants(std::int32_t size, char* names, std::size_t capacity, Listing listing = Listing::all) const {
    require_served_size(size);
    require_pointer(names, "names");
    const std::vector<Variant> valid = valid_variants(family_, size);
    std::string text;
    for (const Variant& v : listing == Listing::pairwise_cover ? pairwise_cover(valid) : valid) text += v.name + "\n";
    capi_copy_text(text, names, capacity, entry_);
  }

  // Throws input_error "<entry>: <why>" for a check of the caller's own.
  [[noreturn]] void invalid(const std::string& why) const { throw input_error(fmt::format("{}: {}", entry_, why)); }
  [[noreturn]] void not_served(const std::string& why) const {
    throw capi_not_served(fmt::format("{}: {}", entry_, why));
  }

 private:
  const char* entry_;
  const KernelFamily& family_;
};

}  // namespace exactune
