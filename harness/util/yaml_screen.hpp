// The bounds a YAML file must keep before it is loaded: one document, no
// anchors or aliases (no file exactune reads has them, and yaml-cpp shares an
// aliased node, so a few lines can stand for billions of nodes), collections
// nested at most kMaxYamlDepth deep and at most kMaxYamlNodes nodes in all.
// The screen walks the file's parse events without building anything, so a
// hostile file costs no more than its length; only then is the tree built.
#pragma once
#include <cstddef>
#include <string_view>

namespace exactune {
namespace strict_yaml {
class Source;
}

// The deepest any file of exactune nests is 4; the bound leaves room for
// files written by hand while keeping yaml-cpp's recursion far from the stack's end.
inline constexpr int kMaxYamlDepth = 32;
// A sweep.yaml holds about 60 nodes per variant record: room for 17 000
// records (the H200 sweep of the largest family holds 2 600, 160 000 nodes),
// while a tree of this many nodes stays far under a GiB in yaml-cpp, and
// screening it takes about two seconds.
inline constexpr std::size_t kMaxYamlNodes = std::size_t{1} << 20;

// Throws exactune::input_error "<source>:<line>: <what>" when `text` breaks one
// of the bounds or is no YAML. Returns false when it holds no document at all.
bool screen_yaml_document(std::string_view text, const strict_yaml::Source& source);

}  // namespace exactune
