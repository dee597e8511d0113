#include "store/gate_power.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <exactune/error.hpp>

#include "util/text_file.hpp"

namespace exactune {

std::string gate_power_json(const GatePower& power) {
  nlohmann::ordered_json out;
  out["generated"] = "by exactune gate-power from gate-mode runs on the GPU (ci/gpu.sh gate-power); do not edit";
  out["family"] = power.family;
  out["gpu"] = power.gpu;
  out["threshold"] = power.threshold;
  out["confidence"] = power.confidence;
  out["figures_per_run"] = power.figures;
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  for (const GatePowerLevel& l : power.levels) {
    levels.push_back({{"planted", l.planted},
                      {"runs", l.runs},
                      {"failed", l.failed},
                      {"ambiguous", l.ambiguous},
                      {"measured", l.measured}});
  }
  out["levels"] = levels;
  if (!power.unchanged.empty()) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::array();
    for (const GatePowerFigure& f : power.unchanged) {
      figures.push_back({{"shape", f.shape},
                         {"regime", f.regime},
                         {"runs", f.runs},
                         {"slower", f.slower},
                         {"ambiguous", f.ambiguous},
                         {"spread", f.spread},
                         {"half_width", f.half_width}});
    }
    out["unchanged_figures"] = figures;
  }
  return out.dump(2) + "\n";
}

void write_gate_power_file(const std::filesystem::path& path, const GatePower& power) {
  write_text_file(path, gate_power_json(power));
}

GatePower read_gate_power_file(const std::filesystem::path& path) {
  try {
    const nlohmann::json in = nlohmann::json::parse(read_text_file(path, "gate power record"));
    GatePower power;
    power.family = in.at("family").get<std::string>();
    power.gpu = in.at("gpu").get<std::string>();
    power.threshold = in.at("threshold").get<double>();
    power.confidence = in.at("confidence").get<double>();
    power.figures = in.at("figures_per_run").get<int>();
    for (const auto& l : in.at("levels")) {
      GatePowerLevel level{l.at("planted").get<double>(), l.at("runs").get<int>(), l.at("failed").get<int>(),
                           l.at("ambiguous").get<int>(), l.at("measured").get<double>()};
      if (level.runs < 1 || level.failed < 0 || level.ambiguous < 0 || level.failed + level.ambiguous > level.runs ||
          !(level.planted >= 0 && level.planted <= 1)) {
        throw input_error(
            fmt::format("{}: level {}: counts or planted fraction out of range", path.string(), level.planted));
      }
      power.levels.push_back(level);
    }
    if (in.contains("unchanged_figures")) {  // absent from records made before it was kept
      for (const auto& f : in.at("unchanged_figures")) {
        GatePowerFigure figure{f.at("shape").get<std::string>(), f.at("regime").get<std::string>(),
                               f.at("runs").get<int>(),          f.at("slower").get<int>(),
                               f.at("ambiguous").get<int>(),     f.at("spread").get<double>(),
                               f.at("half_width").get<double>()};
        if (figure.runs < 1 || figure.slower < 0 || figure.ambiguous < 0 ||
            figure.slower + figure.ambiguous > figure.runs || !(figure.spread >= 0) || !(figure.half_width >= 0)) {
          throw input_error(fmt::format("{}: unchanged figure {} {}: counts or widths out of range", path.string(),
                                        figure.shape, figure.regime));
        }
        power.unchanged.push_back(std::move(figure));
      }
    }
    return power;
  } catch (const nlohmann::json::exception& e) {
    throw input_error(fmt::format("{}: not what exactune gate-power writes: {}", path.string(), e.what()));
  }
}

std::optional<GatePower> gate_power_beside(const std::filesystem::path& sweep_folder) {
  const std::filesystem::path file = sweep_folder / "gate_power.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  return read_gate_power_file(file);
}

}  // namespace exactune
