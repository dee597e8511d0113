// Whole-file text output: written to a temporary name and renamed, so a reader
// (or a killed run) never sees half a file.
#pragma once
#include <filesystem>
#include <string_view>

namespace exactune {

void write_text_file(const std::filesystem::path& path, std::string_view text);

}  // namespace exactune
