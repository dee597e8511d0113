// `--rows N` means N rows (verify --cpu, verify-defaults): every family this
// binary knows, on every default shape and on edge cases of its own, cuts a
// problem to exactly min(N, its rows) rows, a problem the family accepts
// (KernelFamily::with_rows_at_most, split_rows).
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "catch.hpp"
#include "shapes/shape_file.hpp"
#include "toy_family/toy_family.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

TEST_CASE("split_rows keeps the largest outer count that divides the rows", "[verify][rows]") {
  CHECK(split_rows(5, 2).outer == 1);
  CHECK(split_rows(5, 2).inner == 5);
  CHECK(split_rows(6, 2).outer == 2);
  CHECK(split_rows(6, 2).inner == 3);
  CHECK(split_rows(96, 32).outer == 32);
  CHECK(split_rows(100, 32).outer == 25);
  CHECK(split_rows(7, 4096).outer == 7);
  CHECK(split_rows(7, 4096).inner == 1);
  CHECK(split_rows(1, 0).outer == 1);
  CHECK_THROWS_AS(split_rows(0, 4), exactune::error);
}

TEST_CASE("every family cuts its default shapes to exactly min(N, their rows) rows for --rows N", "[verify][rows]") {
  for (const KernelFamily* family : FamilyRegistry::all()) {
    // The toy family (registered in this binary) has no embedded shape set.
    const bool toy = family == &exactune_test::toy_family();
    const std::vector<Shape> shapes =
        toy ? std::vector<Shape>{exactune_test::toy_shape("toy", 40, 64)} : default_shapes(*family).shapes;
    for (const Shape& shape : shapes) {
      for (const std::int64_t rows : {1, 2, 3, 5, 6, 7, 31, 32, 33, 100, 997, 4096}) {
        INFO(family->name() << " " << shape.name << " --rows " << rows);
        const Shape cut = first_rows(*family, shape, static_cast<int>(rows));
        CHECK(cut.rows() == std::min(rows, shape.rows()));
        CHECK(cut.size == shape.size);
        // The cut problem is one the family accepts, as a shape file would give it.
        Shape again = cut;
        CHECK_NOTHROW(family->complete(again));
        CHECK(again.rows() == cut.rows());
      }
    }
  }
}
