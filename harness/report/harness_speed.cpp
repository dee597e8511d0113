#include "report/harness_speed.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <exactune/error.hpp>

namespace exactune {
namespace {

std::string seconds(const nlohmann::json& stages, const char* stage) {
  return stages.contains(stage) ? fmt::format("{:.1f}", stages.at(stage).at("s").get<double>()) : "-";
}

std::string sweeps_table(const nlohmann::json& sweeps) {
  std::string out =
      "| strategy | compile cache | wall s | verify s (runs) | time s (screens and full timings) | re-time s | noise s "
      "| "
      "fully timed / exact | exit |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const nlohmann::json& s : sweeps) {
    const nlohmann::json& stages = s.at("stages");
    const std::string verify = stages.contains("verify") ? fmt::format("{} ({})", seconds(stages, "verify"),
                                                                       stages.at("verify").at("steps").get<long long>())
                                                         : "-";
    out += fmt::format("| {} | {} | {:.1f} | {} | {} | {} | {} | {} | {} |\n", s.at("strategy").get<std::string>(),
                       s.at("cache").get<std::string>(), s.at("wall_s").get<double>(), verify, seconds(stages, "time"),
                       seconds(stages, "re-time"), seconds(stages, "noise"),
                       s.contains("exact")
                           ? fmt::format("{} / {}", s.at("fully_timed").get<int>(), s.at("exact").get<int>())
                           : std::string("-"),
                       s.at("exit").get<int>());
  }
  return out;
}

}  // namespace

std::string harness_speed_section(const NamedText& record) {
  try {
    const nlohmann::json speed = nlohmann::json::parse(record.text);
    std::string out = fmt::format(
        "## Harness speed\n\nHow long exactune itself took on {} ({}; measured {} by {}, the two strategies back "
        "to back). Cold: an empty compile cache (every variant compiled by NVRTC); warm: the same cache again.\n\n",
        speed.at("gpu").get<std::string>(), speed.at("family").get<std::string>(),
        speed.value("measured", std::string("?")), speed.at("source").get<std::string>());
    out += sweeps_table(speed.at("sweeps"));
    for (const nlohmann::json& a : speed.at("agreement")) {
      out += fmt::format("\nThe strategies' choices, {} pair:\n\n{}\n", a.at("pair").get<std::string>(),
                         a.at("markdown").get<std::string>());
    }
    if (const nlohmann::json& gate = speed.at("gate_mode"); !gate.is_null()) {
      out += fmt::format(
          "\nGate mode (`sweep --only heuristics.yaml`, then `gate`), warm: {:.1f} s ({:.1f} s sweep, {:.1f} s "
          "compare); the gate said: {}\n",
          gate.at("wall_s").get<double>(), gate.at("sweep_s").get<double>(), gate.at("compare_s").get<double>(),
          gate.at("verdict").get<std::string>());
    }
    if (const nlohmann::json& devices = speed.at("devices"); !devices.is_null()) {
      out += devices.at("speedup").is_null()
                 ? fmt::format(
                       "\nEvery GPU of the host (`--devices all`): the speedup of 2 GPUs over 1 was not "
                       "measured: {}.\n",
                       devices.at("why_not").get<std::string>())
                 : fmt::format(
                       "\nEvery GPU of the host (`--devices all`, {} GPUs): {:.1f} s against {:.1f} s on one: "
                       "{:.2f}x.\n",
                       devices.at("gpus").get<int>(), devices.at("all_wall_s").get<double>(),
                       devices.at("one_wall_s").get<double>(), devices.at("speedup").get<double>());
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    const std::filesystem::path file = record.path;
    throw input_error(fmt::format("{}: not what ci/harness_speed.py writes: {}",
                                  (file.parent_path().filename() / file.filename()).string(), e.what()));
  }
}

}  // namespace exactune
