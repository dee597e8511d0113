// The report sets: each made whole in memory, then written by write_file_set.
#include "report/report_writer.hpp"

#include <fmt/format.h>

#include <exactune/error.hpp>

#include "choose/heuristics.hpp"
#include "report/device_config_files.hpp"
#include "report/harness_speed.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/summary_report.hpp"
#include "store/sweep_file.hpp"

namespace exactune {

namespace fs = std::filesystem;

std::vector<GeneratedFile> generated_tables_files(const Heuristics& heuristics, const fs::path& heuristics_yaml,
                                                  const std::optional<fs::path>& tables_dir) {
  FamilyTables tables = family_tables(heuristics);
  read_defaults_record(tables, tables_dir ? *tables_dir : tables_dir_of(heuristics_yaml));
  return {{kHeuristicsHeaderFile, emit_header(tables)}, {kHeuristicsJsonFile, emit_json(tables)}};
}

std::vector<fs::path> write_generated_tables(const fs::path& heuristics_yaml, const fs::path& directory,
                                            const std::optional<fs::path>& tables_dir) {
  const Heuristics heuristics = load_heuristics_file(heuristics_yaml.string());
  return write_file_set(directory, generated_tables_files(heuristics, heuristics_yaml, tables_dir));
}

std::vector<GeneratedFile> tables_files(const std::vector<FamilyTables>& families) {
  std::vector<GeneratedFile> files = {{kTablesHeaderFile, emit_tables_header(families)},
                                      {kTablesJsonFile, emit_tables_json(families)}};
  for (const FamilyTables& tables : families) {
    for (DeviceConfigFile& f : device_config_files(tables)) {
      files.push_back({fs::path(tables.family) / f.name, std::move(f.text)});
    }
  }
  return files;
}

std::vector<fs::path> write_tables(const std::vector<FamilyTables>& families, const fs::path& directory) {
  return write_file_set(directory, tables_files(families));
}

std::vector<fs::path> write_reports(const SweepResults& results, const fs::path& directory, const Targets& targets,
                                    const FrameworkTimes& framework, ChooserPolicy policy,
                                    const std::optional<fs::path>& tables_dir,
                                    const std::optional<fs::path>& sweep_folder) {
  ChooserOptions chooser;
  chooser.policy = policy;
  const Heuristics heuristics = choose_heuristics(results, chooser);
  std::vector<GeneratedFile> files = {{"sweep.yaml", to_sweep_yaml(results)},
                                      {"heuristics.yaml", to_heuristics_yaml(heuristics)}};
  // The tables come from heuristics.yaml as it reads back, exactly as emit-header
  // makes them from the file; one that would not read back stops the set here.
  const fs::path heuristics_yaml = directory / files[1].path;
  const Heuristics read_back = [&] {
    try {
      return parse_heuristics_yaml(files[1].text, heuristics_yaml.string());
    } catch (const input_error& e) {
      throw input_error(fmt::format("the heuristics.yaml made from this sweep would not read back: {}", e.what()));
    }
  }();
  for (GeneratedFile& f : generated_tables_files(read_back, heuristics_yaml, tables_dir)) files.push_back(std::move(f));
  // The harness's own speed on this GPU, when ci/speed.sh measured it beside the sweep.
  const std::string speed = harness_speed_section(sweep_folder.value_or(directory));
  files.push_back({"summary.md", summary_markdown(results, heuristics, targets, framework) +
                                     (speed.empty() ? "" : "\n" + speed)});
  for (const HeatmapFile& h : summary_heatmaps(results, policy_figure(policy))) {
    files.push_back({h.file_name, heatmap_svg(results, h.size, h.shape, policy_figure(policy))});
  }
  return write_file_set(directory, files);
}

ChooserPolicy policy_beside(const fs::path& folder) {
  const fs::path file = folder / "heuristics.yaml";
  std::error_code ec;  // a folder that cannot be looked into holds no heuristics.yaml to keep the policy of
  return fs::exists(file, ec) ? load_heuristics_file(file.string()).policy : kDefaultPolicy;
}

}  // namespace exactune
