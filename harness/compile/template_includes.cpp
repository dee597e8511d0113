#include "compile/template_includes.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#include "util/embedded_files.hpp"

namespace exactune {

namespace {

// The file named by a line `#include "name"` (spaces allowed around '#'), or "".
// No std::regex here: it crashes when a host process (PyTorch) brings another
// C++ runtime's locale facets, and the C ABI runs inside such processes.
std::string quoted_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return {};
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || line[i] != '"') return {};
  const std::size_t end = line.find('"', i + 1);
  return end == std::string::npos ? std::string() : line.substr(i + 1, end - i - 1);
}

}  // namespace

namespace {

bool is_embedded(const std::string& path) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) return true;
  }
  return false;
}

// Removes "dir/.." pairs and "./", so that one file has one path.
std::string normalised(const std::string& path) {
  std::vector<std::string> parts;
  std::istringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

// The embedded file `spelling` names from `includer`, or "" when none does
// (a header of the toolkit, say).
std::string resolve(const std::string& includer, const std::string& spelling) {
  const std::string beside = normalised(includer.substr(0, includer.find_last_of('/') + 1) + spelling);
  if (is_embedded(beside)) return beside;
  const std::string from_root = normalised(spelling);
  return is_embedded(from_root) ? from_root : std::string();
}

}  // namespace

std::vector<TemplateInclude> template_includes(const std::string& main_file) {
  std::vector<std::string> order{main_file};
  std::set<std::string> seen{main_file};
  std::set<std::pair<std::string, std::string>> edges;
  std::vector<TemplateInclude> includes;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::istringstream text{std::string(embedded_file(order[i]))};
    for (std::string line; std::getline(text, line);) {
      const std::string spelling = quoted_include(line);
      if (spelling.empty()) continue;
      const std::string path = resolve(order[i], spelling);
      if (path.empty()) continue;
      if (edges.insert({spelling, path}).second) includes.push_back({spelling, path});
      if (seen.insert(path).second) order.push_back(path);
    }
  }
  return includes;
}

std::vector<std::string> included_templates(const std::string& main_file) {
  std::vector<std::string> order{main_file};
  for (const TemplateInclude& include : template_includes(main_file)) {
    if (std::find(order.begin(), order.end(), include.path) == order.end()) order.push_back(include.path);
  }
  return order;
}

}  // namespace exactune
