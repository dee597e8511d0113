// What a sweep's reports are made from besides the sweep itself, all read from
// the files beside it in one place, so that writing the reports
// (report/report_writer.hpp) is a function of its arguments:
//   <folder>/heuristics.yaml    the policy the reports were chosen by, kept when regenerating
//   <folder>/targets.yaml       speed targets, written by hand (store/targets.hpp)
//   <folder>/../runtime.json    the framework's own eager times on the GPU (store/framework_times.hpp)
//   <folder>/harness_speed.json the harness's own speed there (ci/speed.sh)
//   <folder>/gate_power.json    the gate's false alarms and power there (store/gate_power.hpp)
//   <folder>/../../tables/<family>/verified_defaults.yaml
//                               where the family's defaults were proven (store/defaults_record.hpp)
// <folder> is reports/<gpu-slug>/<family>/, the folder of a sweep.yaml.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "store/chooser_policy.hpp"
#include "store/defaults_record.hpp"
#include "store/framework_times.hpp"
#include "store/gate_power.hpp"
#include "store/targets.hpp"

namespace exactune {

// A file's text with the path its errors name.
struct NamedText {
  std::string path;
  std::string text;
};

struct ReportInputs {
  ChooserPolicy policy = kDefaultPolicy;
  Targets targets;
  FrameworkTimes framework;
  // The family's record of verified defaults; none: its defaults serve no size.
  std::optional<DefaultsRecord> defaults_record;
  // The record this GPU made itself, beside its heuristics.yaml (FamilyTables::device_records).
  std::optional<DefaultsRecord> device_record;
  std::optional<NamedText> harness_speed;  // harness_speed.json, when there is one
  std::optional<GatePower> gate_power;     // gate_power.json, when there is one
};

// The policy of the heuristics.yaml in `folder`, so that regenerating reports
// keeps the policy they were chosen by; kDefaultPolicy when there is none.
// Throws exactune::input_error when the file is there and invalid.
ChooserPolicy policy_beside(const std::filesystem::path& folder);
// The policy `named` (policy_named), or when it is empty the one beside `folder`.
ChooserPolicy policy_named_or_beside(const std::string& named, const std::filesystem::path& folder);

// Every input beside `folder` for a sweep of `family`, the policy given (read
// it with policy_beside to keep the one there). `tables_dir`: where the
// records are (default: <folder>/../../tables, tables_dir_of its heuristics.yaml). Throws
// exactune::input_error naming the file that is not what it should be.
ReportInputs report_inputs_beside(const std::filesystem::path& folder, const std::string& family, ChooserPolicy policy,
                                  const std::optional<std::filesystem::path>& tables_dir = std::nullopt);

}  // namespace exactune
