// The report sets: each made whole in memory, then written by write_file_set.
#include "report/report_writer.hpp"

#include <fmt/format.h>

#include <exactune/error.hpp>

#include "choose/chooser.hpp"
#include "report/device_config_files.hpp"
#include "report/gate_power_section.hpp"
#include "report/harness_speed.hpp"
#include "report/heatmap_svg.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/summary_report.hpp"
#include "report/table_buys.hpp"
#include "store/chooser_policy.hpp"
#include "store/family_tables.hpp"
#include "store/framework_times.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "store/targets.hpp"

namespace exactune {

namespace fs = std::filesystem;

std::vector<GeneratedFile> generated_tables_files(const Heuristics& heuristics,
                                                  const std::optional<DefaultsRecord>& defaults_record,
                                                  const std::optional<DefaultsRecord>& device_record) {
  FamilyTables tables = family_tables(heuristics);
  tables.defaults_record = defaults_record;
  if (device_record) tables.device_records.push_back(*device_record);
  return {{kHeuristicsHeaderFile, emit_header(tables)}, {kHeuristicsJsonFile, emit_json(tables)}};
}

std::vector<fs::path> write_generated_tables(const Heuristics& heuristics,
                                             const std::optional<DefaultsRecord>& defaults_record,
                                             const std::optional<DefaultsRecord>& device_record,
                                             const fs::path& directory) {
  return write_file_set(directory, generated_tables_files(heuristics, defaults_record, device_record));
}

std::vector<GeneratedFile> tables_files(const std::vector<FamilyTables>& families,
                                        const std::vector<SweptFamily>& sweeps) {
  std::vector<GeneratedFile> files = {{kTablesHeaderFile, emit_tables_header(families)},
                                      {kTablesJsonFile, emit_tables_json(families)}};
  for (const FamilyTables& tables : families) {
    for (DeviceConfigFile& f : device_config_files(tables)) {
      files.push_back({fs::path(tables.family) / f.name, std::move(f.text)});
    }
  }
  files.push_back({kTableVsRuleFile, table_vs_rule_page(sweeps)});
  return files;
}

std::vector<fs::path> write_tables(const std::vector<FamilyTables>& families, const std::vector<SweptFamily>& sweeps,
                                   const fs::path& directory) {
  return write_file_set(directory, tables_files(families, sweeps));
}

std::vector<fs::path> write_reports(const SweepResults& results, const fs::path& directory,
                                    const ReportInputs& inputs) {
  ChooserOptions chooser;
  chooser.policy = inputs.policy;
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
  if (inputs.device_record && inputs.device_record->device != results.device.name) {
    throw input_error(
        fmt::format("{}: the record beside it was made on {}, this sweep on {}: a GPU's record is its "
                    "own evidence alone",
                    heuristics_yaml.string(), inputs.device_record->device, results.device.name));
  }
  for (GeneratedFile& f : generated_tables_files(read_back, inputs.defaults_record, inputs.device_record))
    files.push_back(std::move(f));
  // The harness's own speed on this GPU, when ci/speed.sh measured it beside the sweep.
  const std::string speed = inputs.harness_speed ? harness_speed_section(*inputs.harness_speed) : std::string();
  // How far the gate can be trusted on this GPU, when ci/gpu.sh gate-power measured it.
  const std::string power = inputs.gate_power ? gate_power_section(*inputs.gate_power) : std::string();
  files.push_back({"summary.md", summary_markdown(results, heuristics, inputs.targets, inputs.framework) +
                                     (speed.empty() ? "" : "\n" + speed) + (power.empty() ? "" : "\n" + power)});
  const TimingRegime figure = policy_figure(inputs.policy);
  for (const HeatmapFile& h : summary_heatmaps(results, figure)) {
    files.push_back({h.file_name, heatmap_svg(results, h.size, h.shape, figure)});
  }
  return write_file_set(directory, files);
}

}  // namespace exactune
