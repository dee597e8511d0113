// Shell-style globs on names (*, ?, [..]): how --variants narrows a run to some
// variants, and gate mode and shards select theirs.
#pragma once
#include <string>

namespace exactune {

bool name_matches(const std::string& name, const std::string& glob);

}  // namespace exactune
