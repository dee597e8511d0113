// The sweep's timing steps' names and records, written and checked (timing_steps.hpp).
#include "sweep/timing_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

#include <exactune/error.hpp>

#include "util/strict_json.hpp"
#include "verify/verify_records.hpp"

namespace exactune {

namespace {

std::vector<std::string_view> regime_names() {
  std::vector<std::string_view> names;
  for (TimingRegime r : kTimingRegimes) names.push_back(regime_name(r));
  return names;
}

// {<regime>: T, ..} with every regime.
void check_every_regime_timed(const strict_json::Object& record, std::string_view key) {
  const strict_json::Object timings = record.object(key, regime_names());
  for (std::string_view regime : regime_names()) timing_from_json(timings[regime], timings.name_of(regime));
}

// {<regime>: [µs, ..], ..}: with every regime, or with at least one.
void check_samples_per_regime(const strict_json::Object& record, std::string_view key, bool every_regime) {
  const strict_json::Object samples = record.object(key, regime_names());
  bool any = false;
  for (std::string_view regime : regime_names()) {
    if (!samples.has(regime) && !every_regime) continue;
    strict_json::non_negative_numbers(samples[regime], samples.name_of(regime));
    any = true;
  }
  if (!any) samples.fail("it holds no regime's samples");
}

void check_noise(const strict_json::Object& record) {
  const strict_json::Object copies = record.object("copy", regime_names());
  const strict_json::Object variants = record.object("variants", regime_names());
  bool any = false;
  for (std::string_view regime : regime_names()) {
    if (copies.has(regime)) {
      strict_json::non_negative_number(copies[regime], copies.name_of(regime));
      any = true;
    }
    if (!variants.has(regime)) continue;
    const nlohmann::json& figures = variants[regime];
    if (!figures.is_object() || figures.empty()) {
      variants.fail(
          fmt::format("'{}' must map each variant to its figure, got {}", regime, strict_json::excerpt(figures)));
    }
    for (const auto& [variant, us] : figures.items()) {
      strict_json::non_negative_number(us, variants.name_of(fmt::format("{}.{}", regime, variant)));
    }
  }
  if (!any) copies.fail("it holds no regime's copy");
}

// A record's SM clock readings, where it has them: each a whole number of MHz from 1.
void check_sm_clocks(const strict_json::Object& fields) {
  if (!fields.has(kSmClockRecordKey)) return;
  const nlohmann::json& clocks = fields[kSmClockRecordKey];
  if (!clocks.is_object())
    fields.fail(fmt::format("{} must map each figure to its SM clock in MHz", kSmClockRecordKey));
  for (const auto& [figure, mhz] : clocks.items()) {
    strict_json::integer_in(mhz, fields.name_of(fmt::format("{}.{}", kSmClockRecordKey, figure)), 1, 1000000);
  }
}

bool whole_number_from_one(const std::string& text) {
  int n = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), n);
  return status == std::errc() && end == text.data() + text.size() && n >= 1;
}

}  // namespace

std::string baselines_step(const std::string& shape) { return fmt::format("time/{}/baselines", shape); }

std::string screen_step(const std::string& shape, int round, const std::string& variant) {
  return fmt::format("screen/{}/{}/{}", shape, round, variant);
}

std::string timing_step(const std::string& shape, const std::string& variant) {
  return fmt::format("time/{}/{}", shape, variant);
}

std::string retime_step(const std::string& shape, TimingRegime regime, const std::string& variant) {
  return fmt::format("retime/{}/{}/{}", shape, regime_name(regime), variant);
}

std::string noise_step(int pass, const std::string& shape) { return fmt::format("noise/{}/{}", pass, shape); }

nlohmann::json timing_json(const Timing& t) {
  nlohmann::json j = {t.median_us, t.min_us, t.max_us, t.samples};
  if (!t.samples_us.empty()) j.push_back(t.samples_us);
  return j;
}

Timing timing_from_json(const nlohmann::json& j, std::string_view name) {
  if (!j.is_array() || (j.size() != 4 && j.size() != 5)) {
    throw error(
        fmt::format("{} must be a timing [median_us, min_us, max_us, samples] or [median_us, min_us, max_us, "
                    "samples, [µs, ..]], got {}",
                    name, strict_json::excerpt(j)));
  }
  Timing t{strict_json::non_negative_number(j[0], fmt::format("{} median", name)),
           strict_json::non_negative_number(j[1], fmt::format("{} min", name)),
           strict_json::non_negative_number(j[2], fmt::format("{} max", name)),
           static_cast<int>(
               strict_json::integer_in(j[3], fmt::format("{} samples", name), 1, std::numeric_limits<int>::max()))};
  if (j.size() == 5) {
    t.samples_us = strict_json::non_negative_numbers(j[4], fmt::format("{} samples_us", name));
    if (t.samples_us.size() != static_cast<std::size_t>(t.samples)) {
      throw error(fmt::format("{} holds {} samples where it counts {}", name, t.samples_us.size(), t.samples));
    }
  }
  return t;
}

bool check_timing_step(const std::string& step, const nlohmann::json& record) {
  const std::vector<std::string> parts = journal_step_parts(step);
  const std::string& kind = parts.front();
  if (kind != "time" && kind != "screen" && kind != "retime" && kind != "noise") return false;
  const bool named = std::none_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
  const bool well_named = named && ((kind == "time" && parts.size() == 3) ||
                                    (kind == "screen" && parts.size() == 4 && whole_number_from_one(parts[2])) ||
                                    (kind == "retime" && parts.size() == 4 && regime_named(parts[2])) ||
                                    (kind == "noise" && parts.size() == 3 && whole_number_from_one(parts[1])));
  if (!well_named) {
    throw error(
        fmt::format("'{}' names no timing step of the sweep (time/<shape>/baselines, "
                    "screen/<shape>/<round>/<variant>, time/<shape>/<variant>, "
                    "retime/<shape>/<regime>/<variant> or noise/<pass>/<shape>)",
                    step));
  }
  if (is_failure_record(record)) {
    read_failure_record(record);
  } else if (kind == "time" && parts[2] == "baselines") {
    const strict_json::Object fields(record, "the record", {"copy", "reference_chain", kSmClockRecordKey});
    check_every_regime_timed(fields, "copy");
    check_every_regime_timed(fields, "reference_chain");
    check_sm_clocks(fields);
  } else if (kind == "time") {
    const strict_json::Object fields(record, "the record", {"timing", "samples", kSmClockRecordKey});
    check_every_regime_timed(fields, "timing");
    check_samples_per_regime(fields, "samples", true);
    check_sm_clocks(fields);
  } else if (kind == "screen") {
    check_samples_per_regime(strict_json::Object(record, "the record", {"samples"}), "samples", false);
  } else if (kind == "retime") {
    const strict_json::Object fields(record, "the record", {"samples", kSmClockRecordKey});
    strict_json::non_negative_numbers(fields["samples"], fields.name_of("samples"));
    check_sm_clocks(fields);
  } else {
    check_noise(strict_json::Object(record, "the record", {"copy", "variants"}));
  }
  return true;
}

RecordCheck sweep_journal_records() {
  return [](const std::string& step, const nlohmann::json& record) {
    if (!check_verify_step(step, record) && !check_timing_step(step, record)) {
      throw error(fmt::format("'{}' is no step of the sweep", step));
    }
  };
}

}  // namespace exactune
