#include "cli/device_fleet.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <exactune/error.hpp>
#include <exactune/results.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "cli/commands.hpp"
#include "cli/merge_command.hpp"
#include "store/chooser_policy.hpp"
#include "supervise/supervisor.hpp"
#include "util/child_process.hpp"
#include "util/file_descriptor.hpp"

namespace exactune::cli {
namespace fs = std::filesystem;
namespace {

int visible_gpus() {
  if (const auto why = why_no_gpu()) {
    throw error(
        fmt::format("--devices: no usable GPU ({}); without --devices, exactune sweep verifies on the CPU", *why));
  }
  int count = 0;
  check(cuda_driver().cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

// One GPU model of the host and the ordinals of its GPUs, in the order given.
struct DeviceGroup {
  GpuDescription model;
  std::vector<int> ordinals;
};

std::vector<DeviceGroup> group_by_model(const std::vector<int>& ordinals) {
  std::vector<DeviceGroup> groups;
  for (int ordinal : ordinals) {
    const GpuDescription gpu = describe_gpu(ordinal);
    const auto same = [&](const DeviceGroup& g) {
      return g.model.name == gpu.name && g.model.arch() == gpu.arch() && g.model.sm_count == gpu.sm_count;
    };
    if (auto it = std::find_if(groups.begin(), groups.end(), same); it != groups.end()) {
      it->ordinals.push_back(ordinal);
    } else {
      groups.push_back({gpu, {ordinal}});
    }
  }
  return groups;
}

// The arguments of this command as given, less the options each child gets its own value of.
std::vector<std::string> arguments_for_children() {
  const std::set<std::string> replaced = {"--devices", "--device", "--shard", "--out"};
  std::vector<std::string> kept;
  const std::vector<std::string> own = own_command_line();
  for (std::size_t i = 0; i < own.size(); ++i) {
    const std::string& arg = own[i];
    const std::size_t equals = arg.find('=');
    if (replaced.count(arg.substr(0, equals))) {
      if (equals == std::string::npos) ++i;  // its value is the next argument
      continue;
    }
    kept.push_back(arg);
  }
  return kept;
}

struct Child {
  int ordinal = 0;
  Shard shard;
  fs::path folder;
  pid_t pid = -1;
};

// A killed command leaves no sweep running on its GPUs: the child dies with this process.
pid_t start_child(const std::vector<std::string>& args, const fs::path& log) {
  const FileDescriptor output(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (output.get() < 0) throw error(fmt::format("cannot write {}: {}", log.string(), std::strerror(errno)));
  return start_child_process({.argv = args, .program = "/proc/self/exe", .output = output.get()});
}

}  // namespace

std::vector<int> parse_devices(const std::string& devices) {
  const int count = visible_gpus();
  std::vector<int> ordinals;
  if (devices == "all") {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
    return ordinals;
  }
  std::istringstream in(devices);
  for (std::string item; std::getline(in, item, ',');) {
    int ordinal = -1;
    const auto [stop, status] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (item.empty() || status != std::errc() || stop != item.data() + item.size() || ordinal < 0) {
      throw input_error(
          fmt::format("--devices {}: must be 'all' or GPU ordinals separated by commas, e.g. 0,1", devices));
    }
    if (ordinal >= count) {
      throw input_error(fmt::format("--devices {}: there is no GPU {}: {} visible (ordinals 0 to {})", devices, ordinal,
                                    count, count - 1));
    }
    if (std::find(ordinals.begin(), ordinals.end(), ordinal) != ordinals.end()) {
      throw input_error(fmt::format("--devices {}: GPU {} is named twice", devices, ordinal));
    }
    ordinals.push_back(ordinal);
  }
  if (ordinals.empty()) throw input_error(fmt::format("--devices {}: names no GPU", devices));
  return ordinals;
}

int sweep_on_devices(const std::string& devices, const std::string& out, const std::string& family,
                     ChooserPolicy policy) {
  const std::vector<DeviceGroup> groups = group_by_model(parse_devices(devices));
  const std::vector<std::string> args = arguments_for_children();
  std::map<std::string, std::vector<Child>> children;  // by model slug
  std::map<std::string, fs::path> merged_into;
  for (const DeviceGroup& group : groups) {
    const std::string slug = group.model.slug();
    const fs::path reports = out.empty() ? fs::path("reports") / slug / family : fs::path(out) / slug;
    const fs::path shards = out.empty() ? reports / "shards" : fs::path(out) / "shards" / slug;
    merged_into[slug] = reports;
    const int k = static_cast<int>(group.ordinals.size());
    fmt::print("{}: {} GPU(s) ({}), {} shard(s) merged into {}\n", group.model.summary(), k,
               fmt::join(group.ordinals, ","), k, reports.string());
    for (int i = 1; i <= k; ++i) {
      Child child{group.ordinals[i - 1], Shard{i, k}, shards / std::to_string(i)};
      fs::create_directories(child.folder);
      fs::remove(child.folder / "sweep.yaml");  // a sweep.yaml there afterwards is this run's
      std::vector<std::string> child_args = args;
      for (const std::string& extra : {std::string("--device"), std::to_string(child.ordinal), std::string("--shard"),
                                       fmt::format("{}/{}", i, k), std::string("--out"), child.folder.string()}) {
        child_args.push_back(extra);
      }
      child.pid = start_child(child_args, child.folder / "sweep.log");
      fmt::print("[gpu {}] shard {}/{}: log {}\n", child.ordinal, i, k, (child.folder / "sweep.log").string());
      children[slug].push_back(child);
    }
  }
  std::fflush(stdout);
  int exit_code = 0;
  for (auto& [slug, group] : children) {
    std::vector<std::string> sweeps;
    bool complete = true;
    for (Child& child : group) {
      const int code = exit_code_of(wait_for_child(child.pid));
      const fs::path sweep = child.folder / "sweep.yaml";
      const fs::path log = child.folder / "sweep.log";
      // Exit 1 with a sweep.yaml: the sweep ran and found a variant that is not exact; its records say which.
      if (fs::exists(sweep)) {
        sweeps.push_back(sweep.string());
        fmt::print("[gpu {}] shard {}/{} finished, exit {}: {}\n", child.ordinal, child.shard.index, child.shard.count,
                   code, sweep.string());
        exit_code = std::max(exit_code, code);
      } else {
        complete = false;
        exit_code = std::max(exit_code, kExitFailure);
        fmt::print("[gpu {}] shard {}/{} FAILED (exit {}) without a sweep.yaml: see {}\n", child.ordinal,
                   child.shard.index, child.shard.count, code, log.string());
      }
    }
    if (!complete) {
      fmt::print("{}: not merged: a shard failed (rerun with --resume to continue its journal)\n", slug);
      continue;
    }
    try {
      write_merged_sweep(sweeps, merged_into[slug], {}, policy);
    } catch (const error& e) {
      fmt::print("{}: the merge failed: {}\n", slug, e.what());
      exit_code = std::max(exit_code, kExitFailure);
    }
  }
  return exit_code;
}

}  // namespace exactune::cli
