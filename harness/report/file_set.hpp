// Files written as one set: all of them replaced, or none. The reports of a
// sweep, the generated header and JSON, and the tables each belong together (the
// header serves what heuristics.yaml chose), so a run that fails half way must
// not leave a new file beside an old one. Every text is made before the first
// byte is written; each file then goes to a temporary beside its target
// (".<name>.tmp<pid>"), flushed to disk; only then are they renamed into
// place, and a rename that fails puts back the files renamed before it. A run
// killed before its renames leaves only temporaries, which the next set written
// in that folder removes once their process is gone.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace exactune {

struct GeneratedFile {
  std::filesystem::path path;  // relative to the folder it is written to
  std::string text;
};

// Writes `files` under `directory` (folders created as needed); returns their
// paths, in order. Throws exactune::input_error when a path is not relative or
// steps out of `directory` ("..", "."), and exactune::error naming the target
// when one cannot be written or replaced (e.g. it is a folder); either way
// every target is as it was before the call.
std::vector<std::filesystem::path> write_file_set(const std::filesystem::path& directory,
                                                  const std::vector<GeneratedFile>& files);

// One file written the same way: replaced whole or left as it was, and named
// in any error (never its temporary). Throws exactune::error when `path` names
// a folder.
std::filesystem::path write_file_whole(const std::filesystem::path& path, std::string text);

// The temporary a set written by process `pid` writes `target` through.
std::filesystem::path temporary_of(const std::filesystem::path& target, pid_t pid);

}  // namespace exactune
