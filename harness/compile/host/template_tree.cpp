#include "compile/host/template_tree.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <thread>

#include <exactune/error.hpp>

#include "util/content_hash.hpp"
#include "util/embedded_files.hpp"

namespace exactune::host_exec {

namespace fs = std::filesystem;

namespace {

// Kernel sources, shared (kernel_templates/) and the families' own; not the
// embedded shape files, nor the C++ that the generated headers paste (under
// harness/), which no kernel includes: an edit to it must not change the digest.
bool is_template(const EmbeddedFile& file) {
  return !file.path.starts_with("harness/") && (file.path.ends_with(".cuh") || file.path.ends_with(".hpp"));
}

std::string templates_digest() {
  std::string per_file;
  for (const EmbeddedFile& file : embedded_files()) {
    if (is_template(file)) per_file += content_hash({file.path, file.text});
  }
  return content_hash({"kernel_templates", per_file});
}

void write_file(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw error(fmt::format("cannot write {}", path.string()));
}

// Files go into a private directory that is then renamed into place, so a
// reader never sees a half-written tree; losing the race to another process
// is fine, its tree has the same content.
void write_tree(const fs::path& destination) {
  const fs::path staging = destination.string() + fmt::format(".tmp{}-{}", ::getpid(),
                                                              std::hash<std::thread::id>{}(std::this_thread::get_id()));
  fs::remove_all(staging);
  for (const EmbeddedFile& file : embedded_files()) {
    if (is_template(file)) write_file(staging / std::string(file.path), file.text);
  }
  std::error_code ec;
  fs::rename(staging, destination, ec);
  if (ec) {
    fs::remove_all(staging, ec);
    if (!fs::is_directory(destination)) {
      throw error(fmt::format("cannot place the kernel templates at {}", destination.string()));
    }
  }
}

}  // namespace

TemplateTree materialise_templates(const CompileCache& cache) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  TemplateTree tree;
  tree.digest = templates_digest();
  tree.root = cache.directory() / "host-templates" / tree.digest;
  if (!fs::is_directory(tree.root)) write_tree(tree.root);
  return tree;
}

}  // namespace exactune::host_exec
