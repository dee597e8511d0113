#include "ptxas_report.hpp"

#include <regex>
#include <string>

#include "error.hpp"

namespace exactune {
namespace {

int last_match(const std::string& log, const std::regex& pattern, bool* found = nullptr) {
  int value = 0;
  bool any = false;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), pattern); it != std::sregex_iterator(); ++it) {
    value = std::stoi((*it)[1].str());
    any = true;
  }
  if (found) *found = any;
  return value;
}

}  // namespace

KernelResources parse_ptxas_report(std::string_view log_view) {
  const std::string log(log_view);
  KernelResources r;
  bool found = false;
  r.registers = last_match(log, std::regex(R"(Used (\d+) registers)"), &found);
  if (!found) throw error("the ptxas report has no 'Used N registers' line (was --ptxas-options=-v passed?)");
  r.stack_frame_bytes = last_match(log, std::regex(R"((\d+) bytes stack frame)"));
  r.spill_store_bytes = last_match(log, std::regex(R"((\d+) bytes spill stores)"));
  r.spill_load_bytes = last_match(log, std::regex(R"((\d+) bytes spill loads)"));
  r.shared_bytes = last_match(log, std::regex(R"((\d+) bytes smem)"));
  return r;
}

}  // namespace exactune
