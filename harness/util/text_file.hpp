// Whole-file text: output written to a temporary name and renamed, so a reader
// (or a killed run) never sees half a file; input read in one piece, and only
// from a regular file of bounded size, so that a FIFO, a device or a huge file
// named by mistake (or on purpose) is refused instead of blocking or
// exhausting memory.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace exactune {

// The largest file exactune reads: every file it reads is written by exactune
// or by hand, and the largest (a sweep.yaml) is a few MiB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

void write_text_file(const std::filesystem::path& path, std::string_view text);
// The whole file. Throws exactune::input_error "<path>: cannot read the <what>:
// <why>" (what: "shape file", "sweep file", ...) when it cannot be opened, is
// not a regular file, or holds more than kMaxInputFileBytes.
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace exactune
