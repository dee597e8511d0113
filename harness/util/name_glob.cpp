#include "util/name_glob.hpp"

#include <fnmatch.h>

namespace exactune {

bool name_matches(const std::string& name, const std::string& glob) {
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

}  // namespace exactune
