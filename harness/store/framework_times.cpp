#include "store/framework_times.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <exactune/error.hpp>

#include "util/text_file.hpp"

namespace exactune {

std::optional<double> FrameworkTimes::eager(const std::string& shape) const {
  const auto it = eager_us.find(shape);
  return it == eager_us.end() ? std::nullopt : std::optional<double>(it->second);
}

FrameworkTimes framework_times_beside(const std::filesystem::path& sweep_folder, const std::string& family) {
  const std::filesystem::path file = sweep_folder / ".." / "runtime.json";
  std::error_code ec;  // a folder that cannot be looked into holds no runtime.json to show
  if (!std::filesystem::exists(file, ec)) return {};
  // Named by the GPU's folder, never by an absolute path: summary.md is a pure function of committed files.
  const std::string name = (file.lexically_normal().parent_path().filename() / "runtime.json").string();
  try {
    const nlohmann::json run = nlohmann::json::parse(read_text_file(file, "runtime benchmark"));
    FrameworkTimes times{fmt::format("{} (torch {})", name, run.at("torch").get<std::string>()), {}};
    const auto families = run.at("families");
    if (families.contains(family)) {
      for (const auto& row : families.at(family)) {
        times.eager_us[row.at("shape").get<std::string>()] = row.at("eager_graph_us").get<double>();
      }
    }
    return times;
  } catch (const nlohmann::json::exception& e) {
    throw input_error(fmt::format("{}: not what python/tools/runtime_bench.py writes: {}", name, e.what()));
  }
}

}  // namespace exactune
