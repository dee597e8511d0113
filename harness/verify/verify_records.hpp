// The verifier's steps in a journal (supervise/journal.hpp): the names it
// journals them under and their records, written and read back here alike.
//   verify/<shape>/<case>            a case's setup (its reference): journaled
//                                    only when it failed, {"failure": why}
//   verify/<shape>/<case>/<variant>  a variant's run on it: {"disposition": ..,
//                                    "mismatches": .., "message": .., and, when
//                                    an element differs, "first_mismatch":
//                                    [row, column, expected, actual, ulps],
//                                    and its output's name after them where
//                                    the workload names its outputs}
// Reading a record back checks every type and value (a disposition the
// verifier writes, counts >= 0, a passed run without mismatches), so that a
// damaged journal is refused where it is read, and never taken for results.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

#include "supervise/journal.hpp"
#include "verify/verifier.hpp"

namespace exactune {

std::string verify_setup_step(const std::string& shape, const std::string& input_case);
std::string verify_run_step(const std::string& shape, const std::string& input_case, const std::string& variant);

nlohmann::json run_record_json(const VerifyRecord& r);
// The disposition, mismatches, message and first mismatch of a run's record,
// into `r`; throws exactune::error saying what is wrong with it.
void read_run_record(const nlohmann::json& record, VerifyRecord& r);

// The record of a step that failed, of any stage: {"failure": why}.
nlohmann::json failure_record_json(const std::string& why);
bool is_failure_record(const nlohmann::json& record);
// Its why; throws exactune::error when the record is not one.
std::string read_failure_record(const nlohmann::json& record);

// Whether `step` is one of the verifier's; when it is, throws exactune::error
// saying what is wrong with its record.
bool check_verify_step(const std::string& step, const nlohmann::json& record);

// The records of a journal of verify steps only (exactune verify, and a sweep without a GPU).
RecordCheck verify_journal_records();

}  // namespace exactune
