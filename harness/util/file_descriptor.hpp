// An owned file descriptor, closed when its owner goes, and a pipe of two: what
// a process keeps of the pipes and files it hands to a child process
// (child_process.hpp). Pipes are made close-on-exec, so that a child another
// thread starts meanwhile does not hold an end open: a reader would otherwise
// wait for that child too.
#pragma once

namespace exactune {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() { reset(); }
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  void reset();

 private:
  int fd_;
};

struct Pipe {
  FileDescriptor read_end, write_end;
};

// Both ends close-on-exec; throws exactune::error when no pipe can be made.
Pipe make_pipe();

}  // namespace exactune
