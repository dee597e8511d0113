// The verifier's journal records, written and read back (verify_records.hpp).
#include "verify/verify_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include <exactune/error.hpp>

#include "util/strict_json.hpp"

namespace exactune {

namespace {

constexpr std::array<Disposition, 4> kDispositions = {Disposition::passed, Disposition::incorrect, Disposition::failed,
                                                      Disposition::not_run};

Mismatch read_mismatch(const nlohmann::json& m) {
  const std::string name = "the record's 'first_mismatch'";
  const bool named = m.is_array() && m.size() == 6 && m[5].is_string() && !m[5].get<std::string>().empty();
  if (!m.is_array() || (m.size() != 5 && !named)) {
    throw error(fmt::format("{} must be [row, column, expected, actual, ulps] or [..., ulps, output name], got {}",
                            name, strict_json::excerpt(m)));
  }
  constexpr std::int64_t kBits = std::numeric_limits<std::uint16_t>::max();
  return Mismatch{strict_json::integer_in(m[0], name + " row", 0),
                  strict_json::integer_in(m[1], name + " column", 0),
                  static_cast<std::uint16_t>(strict_json::integer_in(m[2], name + " expected", 0, kBits)),
                  static_cast<std::uint16_t>(strict_json::integer_in(m[3], name + " actual", 0, kBits)),
                  strict_json::integer_in(m[4], name + " ulps", -1),  // -1: either is NaN
                  named ? m[5].get<std::string>() : std::string()};
}

}  // namespace

std::string verify_setup_step(const std::string& shape, const std::string& input_case) {
  return fmt::format("verify/{}/{}", shape, input_case);
}

std::string verify_run_step(const std::string& shape, const std::string& input_case, const std::string& variant) {
  return fmt::format("{}/{}", verify_setup_step(shape, input_case), variant);
}

nlohmann::json run_record_json(const VerifyRecord& r) {
  nlohmann::json j = {{"disposition", to_string(r.disposition)}, {"mismatches", r.mismatches}, {"message", r.message}};
  if (r.first_mismatch) {
    const Mismatch& m = *r.first_mismatch;
    j["first_mismatch"] = {m.row, m.column, m.expected, m.actual, m.ulps};
    if (!m.output.empty()) j["first_mismatch"].push_back(m.output);
  }
  return j;
}

void read_run_record(const nlohmann::json& record, VerifyRecord& r) {
  const strict_json::Object fields(record, "the record", {"disposition", "mismatches", "message", "first_mismatch"});
  const std::string disposition = fields.one_of("disposition", {"passed", "incorrect", "failed", "not run"});
  for (Disposition d : kDispositions) {
    if (disposition == to_string(d)) r.disposition = d;
  }
  r.mismatches = fields.integer_in("mismatches", 0);
  r.message = fields.text("message");
  r.first_mismatch.reset();
  if (fields.has("first_mismatch")) r.first_mismatch = read_mismatch(fields["first_mismatch"]);
  if (r.disposition == Disposition::passed && (r.mismatches != 0 || r.first_mismatch)) {
    fields.fail(fmt::format("a passed run has no mismatches, but it records {}", r.mismatches));
  }
  if (r.disposition == Disposition::incorrect && r.mismatches == 0) {
    fields.fail("an incorrect run has mismatches, but it records none");
  }
}

nlohmann::json failure_record_json(const std::string& why) { return {{"failure", why}}; }

bool is_failure_record(const nlohmann::json& record) { return record.is_object() && record.contains("failure"); }

std::string read_failure_record(const nlohmann::json& record) {
  return strict_json::Object(record, "the record", {"failure"}).text("failure");
}

bool check_verify_step(const std::string& step, const nlohmann::json& record) {
  const std::vector<std::string> parts = journal_step_parts(step);
  if (parts.front() != "verify") return false;
  const bool named = std::none_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
  if (named && parts.size() == 3) {
    read_failure_record(record);
  } else if (named && parts.size() == 4) {
    VerifyRecord r;
    read_run_record(record, r);
  } else {
    throw error(
        fmt::format("'{}' names no step of the verifier (verify/<shape>/<case>, or "
                    "verify/<shape>/<case>/<variant>)",
                    step));
  }
  return true;
}

RecordCheck verify_journal_records() {
  return [](const std::string& step, const nlohmann::json& record) {
    if (!check_verify_step(step, record)) throw error(fmt::format("'{}' is no step of the verifier", step));
  };
}

}  // namespace exactune
