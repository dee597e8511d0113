// The sweep's timing steps in a journal (supervise/journal.hpp): the names it
// journals them under and their records, written and read back here alike.
// A timing T is [median_us, min_us, max_us, samples], or with the samples it is
// over [median_us, min_us, max_us, samples, [µs, ..]] (as many as it counts),
// so that a figure keeps its raw samples from worker to supervisor; a list of
// samples is [µs, ...]; each figure is a finite number >= 0.
//   time/<shape>/baselines             {"copy": {<regime>: T, ..}, "reference_chain": {<regime>: T, ..}}
//   screen/<shape>/<round>/<variant>   {"samples": {<regime>: [µs, ..], ..}}
//   time/<shape>/<variant>             {"timing": {<regime>: T, ..}, "samples": {<regime>: [µs, ..], ..}}
//   retime/<shape>/<regime>/<variant>  {"samples": [µs, ..]}
//   noise/<pass>/<shape>               {"copy": {<regime>: µs, ..}, "variants": {<regime>: {<variant>: µs, ..}, ..}}
// Baselines, a full timing and a re-time may also hold "sm_clock_mhz": {"<what> <regime>": MHz, ..}, the SM
// clock read after each of their figures (ShapeResult::note_sm_clock), where the timer could read it.
// Baselines and a full timing hold every regime; a step that failed holds
// {"failure": why} instead (verify_records.hpp). Reading a record back checks
// every type and value, so that a damaged journal is refused where it is read.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include <exactune/results.hpp>

#include "supervise/journal.hpp"

namespace exactune {

std::string baselines_step(const std::string& shape);
std::string screen_step(const std::string& shape, int round, const std::string& variant);
std::string timing_step(const std::string& shape, const std::string& variant);
std::string retime_step(const std::string& shape, TimingRegime regime, const std::string& variant);
std::string noise_step(int pass, const std::string& shape);

// The key of a step record's SM clock readings.
inline constexpr const char* kSmClockRecordKey = "sm_clock_mhz";

nlohmann::json timing_json(const Timing& t);
// A timing written by timing_json; throws exactune::error naming it `name` when it is not one.
Timing timing_from_json(const nlohmann::json& j, std::string_view name);

// Whether `step` is one of the sweep's timing steps; when it is, throws
// exactune::error saying what is wrong with its record.
bool check_timing_step(const std::string& step, const nlohmann::json& record);

// The records of a sweep's journal on a GPU: its verify steps and its timing steps.
RecordCheck sweep_journal_records();

}  // namespace exactune
