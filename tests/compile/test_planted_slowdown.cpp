// The gate's power test plants a slowdown in the variant kernels
// (kernel_templates/planted_slowdown.cuh, `exactune sweep --plant-slowdown`).
// Every family's every variant kernel must take the plant, or the power test
// would measure an unplanted kernel and call the gate blind; and without the
// plant the kernels must be what they were (the cubins of a sample are
// compared byte for byte before and after, outside this test). Shown for each
// kernel entry of each family the shipping exactune knows (`exactune
// families`; the toy family of the tests is not one), at its first default
// size.
#include <fmt/format.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <exactune/family_registry.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "compile/compiler.hpp"
#include "shapes/shape_file.hpp"
#include "support/run_cli.hpp"

using namespace exactune;

TEST_CASE("every family's variant kernels take the planted slowdown, and compile otherwise as before",
          "[compile][planted]") {
  const CompileCache cache(CompileCache::default_directory());
  const CliResult listed = run_cli("families");
  REQUIRE(listed.exit_code == 0);
  std::istringstream lines(listed.output);
  std::vector<const KernelFamily*> shipping;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) shipping.push_back(&FamilyRegistry::find(line.substr(0, line.find('\t'))));
  }
  REQUIRE(shipping.size() >= 3);
  for (const KernelFamily* family : shipping) {
    const int size = default_shapes(*family).sizes().front();
    // One variant per kernel entry: the name expression up to its template arguments.
    std::map<std::string, CompileRequest> entries;
    for (const Variant& v : valid_variants(*family, size)) {
      const CompileRequest request = family->variant_request(v, size, "sm_90");
      entries.emplace(request.name_expression.substr(0, request.name_expression.find('<')), request);
    }
    REQUIRE_FALSE(entries.empty());
    std::vector<CompileRequest> batch;
    for (const auto& [entry, request] : entries) {
      batch.push_back(request);
      CompileRequest planted = request;
      planted.name += ".planted-slowdown";
      planted.defines.push_back("EXACTUNE_PLANTED_SLOWDOWN=0.05");
      batch.push_back(planted);
    }
    const std::vector<CompileOutcome> outcomes = compile_all(batch, cache);
    REQUIRE(outcomes.size() == batch.size());
    for (std::size_t i = 0; i < outcomes.size(); i += 2) {
      INFO(family->name() << ": " << outcomes[i].request.name << "\n" << outcomes[i + 1].log);
      REQUIRE(outcomes[i].ok);
      REQUIRE(outcomes[i + 1].ok);
      CHECK(outcomes[i].kernel.binary_bytes() != outcomes[i + 1].kernel.binary_bytes());
    }
  }
}
