// Closing owned descriptors and making close-on-exec pipes (file_descriptor.hpp).
#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <exactune/error.hpp>

namespace exactune {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void FileDescriptor::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  Pipe pipe;
  pipe.read_end = FileDescriptor(fds[0]);
  pipe.write_end = FileDescriptor(fds[1]);
  return pipe;
}

}  // namespace exactune
