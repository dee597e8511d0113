// The pairwise cover that CPU suites verify in place of a whole space: every
// pair of values that the space holds together is in it, and it is small.
#include <set>
#include <string>

#include "catch.hpp"
#include "space/pairwise_cover.hpp"

using namespace exactune;

namespace {

Variant variant(const std::string& a, const std::string& b, const std::string& c) {
  return Variant{a + b + c, {{"a", a}, {"b", b}, {"c", c}}};
}

// Every pair (axis i value, axis j value), i < j, in some variant of `vs`.
std::set<std::string> pairs_in(const std::vector<Variant>& vs) {
  std::set<std::string> pairs;
  for (const Variant& v : vs) {
    for (std::size_t i = 0; i < v.params.size(); ++i) {
      for (std::size_t j = i + 1; j < v.params.size(); ++j) pairs.insert(v.params[i].value + "|" + v.params[j].value);
    }
  }
  return pairs;
}

}  // namespace

TEST_CASE("a pairwise cover holds every pair of values the variants hold, in fewer variants", "[pairwise_cover]") {
  // Four values on each of three axes, less the variants with a == "0" and b == "1":
  // that pair is in no variant, so no cover needs it.
  std::vector<Variant> space;
  for (const char* a : {"0", "1", "2", "3"}) {
    for (const char* b : {"0", "1", "2", "3"}) {
      for (const char* c : {"0", "1", "2", "3"}) {
        if (std::string(a) == "0" && std::string(b) == "1") continue;
        space.push_back(variant(std::string("a") + a, std::string("b") + b, std::string("c") + c));
      }
    }
  }
  const std::vector<Variant> cover = pairwise_cover(space);
  CHECK(pairs_in(cover) == pairs_in(space));
  CHECK(pairs_in(space).count("a0|b1") == 0);
  // 15 pairs of (a, b) need 15 variants at least; greedy may take a few more, far fewer than 60.
  CHECK(cover.size() >= 15);
  CHECK(cover.size() <= 24);
  CHECK(space.size() == 60);
  // Deterministic: the same space gives the same cover.
  const std::vector<Variant> again = pairwise_cover(space);
  REQUIRE(again.size() == cover.size());
  for (std::size_t i = 0; i < cover.size(); ++i) CHECK(again[i].name == cover[i].name);
}

TEST_CASE("a pairwise cover keeps a lone variant and every value of a one-axis space", "[pairwise_cover]") {
  CHECK(pairwise_cover({variant("x", "y", "z")}).size() == 1);
  const std::vector<Variant> one_axis = {{"p", {{"a", "p"}}}, {"q", {{"a", "q"}}}, {"r", {{"a", "r"}}}};
  CHECK(pairwise_cover(one_axis).size() == 3);
  CHECK(pairwise_cover({}).empty());
}

TEST_CASE("a pairwise cover refuses variants of different axes, naming them", "[pairwise_cover]") {
  const std::vector<Variant> mixed = {variant("x", "y", "z"), {"other", {{"a", "x"}, {"d", "y"}, {"c", "z"}}}};
  try {
    pairwise_cover(mixed);
    FAIL("no error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("other") != std::string::npos);
    CHECK(std::string(e.what()).find("'d'") != std::string::npos);
  }
}
