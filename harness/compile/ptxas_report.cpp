#include "compile/ptxas_report.hpp"

#include <cctype>
#include <string>

namespace exactune {
namespace {

// The number written just before `label` in `text` ("48 bytes smem" -> 48), or
// 0. Plain string search: std::regex crashes inside host processes that bring
// another C++ runtime's locale (PyTorch, through the C ABI).
int number_before(const std::string& text, const std::string& label) {
  const std::size_t at = text.find(label);
  if (at == std::string::npos || at == 0) return 0;
  std::size_t start = at;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(text[start - 1]))) --start;
  return start == at ? 0 : std::stoi(text.substr(start, at - start));
}

constexpr std::string_view kBlockOpening = "Compiling entry function '";

// The lines from "Compiling entry function '<entry>'" up to the next entry's.
std::string block_of(std::string_view log, std::string_view entry) {
  const std::string opening = std::string(kBlockOpening) + std::string(entry) + "'";
  const std::size_t start = log.find(opening);
  if (start == std::string_view::npos) return {};
  const std::size_t end = log.find(kBlockOpening, start + opening.size());
  return std::string(log.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

}  // namespace

std::optional<KernelResources> parse_ptxas_report(std::string_view log, std::string_view entry) {
  const std::string block = block_of(log, entry);
  const std::size_t used = block.find("Used ");
  if (used == std::string::npos || block.find(" registers", used) == std::string::npos) return std::nullopt;
  KernelResources r;
  r.registers = number_before(block.substr(used + 5), " registers");
  r.stack_frame_bytes = number_before(block, " bytes stack frame");
  r.spill_store_bytes = number_before(block, " bytes spill stores");
  r.spill_load_bytes = number_before(block, " bytes spill loads");
  r.shared_bytes = number_before(block, " bytes smem");
  return r;
}

std::string log_of_entry(std::string_view log, std::string_view entry) {
  const std::size_t first_block = log.find(kBlockOpening);
  if (first_block == std::string_view::npos) return std::string(log);
  // Back to the start of the line that opens the first block ("ptxas info    : Compiling ...").
  const std::size_t common_end = log.rfind('\n', first_block);
  std::string text(log.substr(0, common_end == std::string_view::npos ? 0 : common_end + 1));
  const std::size_t start = log.find(std::string(kBlockOpening) + std::string(entry) + "'");
  if (start != std::string_view::npos) {
    const std::size_t line_start = log.rfind('\n', start);
    const std::size_t from = line_start == std::string_view::npos ? 0 : line_start + 1;
    const std::size_t next = log.find(kBlockOpening, start + kBlockOpening.size());
    const std::size_t to = next == std::string_view::npos ? log.size() : log.rfind('\n', next) + 1;
    text += log.substr(from, to - from);
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace exactune
