#include "util/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include <exactune/error.hpp>

#include "util/file_descriptor.hpp"

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

namespace {

// Why a file of this mode is no input; empty for a regular file.
std::string not_regular(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "it is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

std::string too_large(std::uint64_t bytes) {
  return fmt::format("it holds {} bytes, more than the {} MiB exactune reads", bytes, kMaxInputFileBytes >> 20);
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  const auto cannot_read = [&](std::string_view why) {
    return input_error(fmt::format("{}: cannot read the {}: {}", path.string(), what, why));
  };
  // Checked before opening, since opening a FIFO blocks until a writer comes;
  // and again on what was opened, in case the path changed in between
  // (O_NONBLOCK keeps that open from blocking too).
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) throw cannot_read(std::strerror(errno));
  if (std::string why = not_regular(status.st_mode); !why.empty()) throw cannot_read(why);
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (file.get() < 0) throw cannot_read(std::strerror(errno));
  if (::fstat(file.get(), &status) != 0) throw cannot_read(std::strerror(errno));
  if (std::string why = not_regular(status.st_mode); !why.empty()) throw cannot_read(why);
  if (static_cast<std::uint64_t>(status.st_size) > kMaxInputFileBytes) throw cannot_read(too_large(status.st_size));

  // Read until the end, never past the limit: the file may grow while it is read.
  std::string text(static_cast<std::size_t>(status.st_size), '\0');
  std::size_t length = 0;
  while (true) {
    if (length == text.size()) text.resize(std::min(kMaxInputFileBytes + 1, std::max<std::size_t>(4096, 2 * length)));
    const ssize_t n = ::read(file.get(), text.data() + length, text.size() - length);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw cannot_read(std::strerror(errno));
    if (n == 0) break;
    length += static_cast<std::size_t>(n);
    if (length > kMaxInputFileBytes) throw cannot_read(too_large(length));
  }
  text.resize(length);
  return text;
}

}  // namespace exactune
