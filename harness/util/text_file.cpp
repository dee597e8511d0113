#include "util/text_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <cerrno>
#include <cstring>
#include <iterator>

#include <exactune/error.hpp>

namespace exactune {

void write_text_file(const std::filesystem::path& path, std::string_view text) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path temporary = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw error(fmt::format("{}: cannot write the file", temporary.string()));
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw error(fmt::format("{}: cannot replace it: {}", path.string(), ec.message()));
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  const auto cannot_read = [&](std::string_view why) {
    return input_error(fmt::format("{}: cannot read the {}: {}", path.string(), what, why));
  };
  // Opening a directory succeeds and only the first read fails.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw cannot_read("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw cannot_read(std::strerror(errno));
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(in), {});
  } catch (const std::ios_base::failure& e) {
    throw cannot_read(e.what());
  }
  if (in.bad()) throw cannot_read(std::strerror(errno));
  return text;
}

}  // namespace exactune
