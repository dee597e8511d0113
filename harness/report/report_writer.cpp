#include "report/report_writer.hpp"

#include "choose/heuristics.hpp"
#include "report/device_config_files.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/summary_report.hpp"
#include "store/sweep_file.hpp"
#include "util/text_file.hpp"

namespace exactune {

namespace fs = std::filesystem;

std::vector<fs::path> write_generated_tables(const fs::path& heuristics_yaml, const fs::path& directory,
                                            const std::optional<fs::path>& tables_dir) {
  FamilyTables tables = family_tables(load_heuristics_file(heuristics_yaml.string()));
  read_defaults_record(tables, tables_dir ? *tables_dir : tables_dir_of(heuristics_yaml));
  const std::vector<fs::path> files = {directory / kHeuristicsHeaderFile, directory / kHeuristicsJsonFile};
  write_text_file(files[0], emit_header(tables));
  write_text_file(files[1], emit_json(tables));
  return files;
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
  std::vector<fs::path> written;
  for (const GeneratedFile& f : tables_files(families)) {
    written.push_back(directory / f.path);
    write_text_file(written.back(), f.text);
  }
  return written;
}

std::vector<fs::path> write_reports(const SweepResults& results, const fs::path& directory, const Targets& targets,
                                    const FrameworkTimes& framework, ChooserPolicy policy,
                                    const std::optional<fs::path>& tables_dir) {
  std::vector<fs::path> files = {directory / "sweep.yaml", directory / "heuristics.yaml"};
  ChooserOptions chooser;
  chooser.policy = policy;
  // Chosen before anything is written: a policy the sweep cannot serve leaves the folder as it was.
  const Heuristics heuristics = choose_heuristics(results, chooser);
  write_sweep_file(results, files[0]);
  write_text_file(files[1], to_heuristics_yaml(heuristics));
  // The tables come from the file just written, exactly as emit-header makes them.
  for (const fs::path& f : write_generated_tables(files[1], directory, tables_dir)) files.push_back(f);
  files.push_back(directory / "summary.md");
  write_text_file(files.back(), summary_markdown(results, heuristics, targets, framework));
  for (const HeatmapFile& h : summary_heatmaps(results, policy_figure(policy))) {
    files.push_back(directory / h.file_name);
    write_text_file(files.back(), heatmap_svg(results, h.size, h.shape, policy_figure(policy)));
  }
  return files;
}

ChooserPolicy policy_beside(const fs::path& folder) {
  const fs::path file = folder / "heuristics.yaml";
  return fs::exists(file) ? load_heuristics_file(file.string()).policy : kDefaultPolicy;
}

}  // namespace exactune
