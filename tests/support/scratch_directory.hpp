// A fresh folder of a test's own under the system's temporary one (mkdtemp:
// unique even when tests run in parallel), removed with everything in it when
// the test ends.
#pragma once
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "catch.hpp"

class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& tag) {
    std::string pattern = (std::filesystem::temp_directory_path() / fmt::format("exactune-{}-XXXXXX", tag)).string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};
