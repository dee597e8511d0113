#include "compile/target_compiler.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include <exactune/error.hpp>

namespace exactune {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<TargetCompiler>> by_target;
};

// Built on first use: registrations run as static initialisers of other files.
Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

bool is_nvrtc_target(const std::string& target) { return target.rfind("sm_", 0) == 0; }

bool register_target_compiler(std::unique_ptr<TargetCompiler> compiler) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const std::string target = compiler->target();
  if (!r.by_target.try_emplace(target, std::move(compiler)).second) {
    throw error(fmt::format("two compilers registered for target '{}'", target));
  }
  return true;
}

const TargetCompiler* target_compiler(const std::string& target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto found = r.by_target.find(target);
  return found == r.by_target.end() ? nullptr : found->second.get();
}

}  // namespace exactune
