// The builds of a verify stage as their compile outcomes arrive (arriving_builds.hpp).
#include "verify/arriving_builds.hpp"

#include <fmt/format.h>

#include <exactune/error.hpp>

namespace exactune {

ArrivingBuilds::ArrivingBuilds(std::vector<VariantBuild>& builds) : builds_(builds), arrived_(builds.size(), false) {}

void ArrivingBuilds::arrive(std::size_t index, const CompileOutcome& outcome) {
  {
    std::lock_guard lock(mutex_);
    if (index >= builds_.size()) {
      throw error(fmt::format("ArrivingBuilds: an outcome for build {} of {}", index, builds_.size()));
    }
    builds_[index].outcome = outcome;
    arrived_[index] = true;
  }
  changed_.notify_all();
}

void ArrivingBuilds::fail(std::exception_ptr why) {
  {
    std::lock_guard lock(mutex_);
    failed_ = why;
  }
  changed_.notify_all();
}

void ArrivingBuilds::await(std::size_t index) {
  std::unique_lock lock(mutex_);
  if (index >= builds_.size()) throw error(fmt::format("ArrivingBuilds: no build {} of {}", index, builds_.size()));
  changed_.wait(lock, [&] { return arrived_[index] || failed_; });
  if (!arrived_[index]) std::rethrow_exception(failed_);
}

}  // namespace exactune
