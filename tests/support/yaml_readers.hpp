// Every reader of a YAML file a user gives exactune (shape files, sweep.yaml,
// heuristics.yaml, targets.yaml, the record of verified defaults), by the
// name the messages give the file ("t.yaml"): for the tests that hold every
// reader to one rule. Shape files are read as the toy family's.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <exactune/shapes.hpp>

#include "shapes/shape_file.hpp"
#include "store/defaults_record.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/targets.hpp"
#include "toy_family/toy_family.hpp"

using YamlReader = std::pair<std::string, std::function<void(const std::string&)>>;

inline const std::vector<YamlReader>& yaml_readers() {
  using namespace exactune;
  static const std::vector<YamlReader> all = {
      {"shapes", [](const std::string& t) { parse_shapes(exactune_test::toy_family(), t, "t.yaml"); }},
      {"sweep", [](const std::string& t) { parse_sweep_yaml(t, "t.yaml"); }},
      {"heuristics", [](const std::string& t) { parse_heuristics_yaml(t, "t.yaml"); }},
      {"targets", [](const std::string& t) { parse_targets_yaml(t, "t.yaml"); }},
      {"verified defaults", [](const std::string& t) { parse_defaults_yaml(t, "t.yaml"); }},
  };
  return all;
}
