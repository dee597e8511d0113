// heuristics.yaml spells its strings as sweep.yaml does (one YAML writer): a
// shape, a GPU or a variant named by digits alone, or by a word YAML takes for
// a bool, is written quoted and reads back as the same string, in exactune's
// reader and in any other (yaml-cpp tags a quoted scalar "!").
#include <yaml-cpp/yaml.h>

#include <string>

#include "catch.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"

namespace {

exactune::Heuristics toy_heuristics(const std::string& shape, const std::string& gpu) {
  exactune::Heuristics h;
  h.family = "toy_double";
  h.device.name = gpu;
  h.device.slug = "toy-gpu";
  h.device.arch = "sm_90";
  h.device.sm_count = 132;
  const exactune::Configuration t32{"t32_v4_right", {{"threads", "32"}, {"vector", "4"}, {"result", "right"}}};
  h.device.default_configuration = t32;
  exactune::Choice choice;
  choice.size = 64;
  choice.chosen = t32;
  choice.median_us = 2;
  choice.runner_up = "t64_v4_right";
  choice.margin = 0;
  choice.shape = shape;
  h.device.choices.push_back(choice);
  h.global_default = t32;
  return h;
}

}  // namespace

TEST_CASE("a shape named 4096 round-trips through heuristics.yaml as a string", "[store][heuristics]") {
  for (const std::string name : {"4096", "1e5", "true", "null"}) {
    INFO("name: " << name);
    const std::string text = exactune::to_heuristics_yaml(toy_heuristics(name, name));
    CHECK(text.find("      shape: \"" + name + "\"\n") != std::string::npos);
    const YAML::Node file = YAML::Load(text);
    const YAML::Node shape = file["device"]["choices"][0]["shape"];
    CHECK(shape.Tag() == "!");
    CHECK(shape.as<std::string>() == name);
    CHECK(file["device"]["name"].Tag() == "!");
    const exactune::Heuristics back = exactune::parse_heuristics_yaml(text, "heuristics.yaml");
    CHECK(back.device.choices.at(0).shape == name);
    CHECK(back.device.name == name);
  }
}

TEST_CASE("heuristics.yaml writes an axis value as a string and a whole median or margin as a float",
          "[store][heuristics]") {
  const std::string text = exactune::to_heuristics_yaml(toy_heuristics("s", "GPU"));
  CHECK(text.find("params: {threads: \"32\", vector: \"4\", result: right}") != std::string::npos);
  CHECK(text.find("      median_us: 2.0\n") != std::string::npos);
  CHECK(text.find("      margin: 0.0\n") != std::string::npos);
  const exactune::Heuristics back = exactune::parse_heuristics_yaml(text, "heuristics.yaml");
  CHECK(back.device.choices.at(0).chosen.params.at(0).value == "32");
  CHECK(back.device.choices.at(0).median_us == 2);
  CHECK(back.device.choices.at(0).margin == 0);
}
