// Whole-file text: output written to a temporary name and renamed, so a reader
// (or a killed run) never sees half a file; input read in one piece.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace exactune {

void write_text_file(const std::filesystem::path& path, std::string_view text);
// The whole file. Throws exactune::input_error "<path>: cannot read the <what>:
// <why>" (what: "shape file", "sweep file", ...).
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace exactune
