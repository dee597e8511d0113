#include "store/report_inputs.hpp"

#include <system_error>

#include "store/family_tables.hpp"
#include "store/heuristics_file.hpp"
#include "util/text_file.hpp"

namespace exactune {

namespace fs = std::filesystem;

ChooserPolicy policy_beside(const fs::path& folder) {
  const fs::path file = folder / "heuristics.yaml";
  std::error_code ec;  // a folder that cannot be looked into holds no heuristics.yaml to keep the policy of
  return fs::exists(file, ec) ? load_heuristics_file(file.string()).policy : kDefaultPolicy;
}

ChooserPolicy policy_named_or_beside(const std::string& named, const fs::path& folder) {
  return named.empty() ? policy_beside(folder) : policy_named(named);
}

ReportInputs report_inputs_beside(const fs::path& folder, const std::string& family, ChooserPolicy policy,
                                  const std::optional<fs::path>& tables_dir) {
  ReportInputs inputs;
  inputs.policy = policy;
  inputs.targets = targets_beside(folder);
  inputs.framework = framework_times_beside(folder, family);
  inputs.defaults_record = defaults_record_of(family, tables_dir.value_or(tables_dir_of(folder / "heuristics.yaml")));
  // Checked against the sweep's GPU where the reports are made (write_reports).
  inputs.device_record = device_record_beside(folder / "heuristics.yaml", family, "");
  const fs::path speed = folder / "harness_speed.json";
  std::error_code ec;
  if (fs::exists(speed, ec))
    inputs.harness_speed = NamedText{speed.string(), read_text_file(speed, "harness speed record")};
  inputs.gate_power = gate_power_beside(folder);
  return inputs;
}

}  // namespace exactune
