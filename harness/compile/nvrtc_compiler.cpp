#include "compile/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>

#include <exactune/error.hpp>

#include "compile/cubin_resources.hpp"
#include "compile/nvrtc_library.hpp"
#include "compile/ptxas_report.hpp"
#include "compile/template_includes.hpp"
#include "util/content_hash.hpp"
#include "util/embedded_files.hpp"

namespace exactune {
namespace {

// Bit-exactness must not depend on compiler defaults: no contraction, IEEE
// division and square root, denormals kept.
const std::vector<std::string> kFixedOptions = {
    "-std=c++17",      "-default-device",  "--fmad=false",       "--ftz=false",
    "--prec-div=true", "--prec-sqrt=true", "--ptxas-options=-v",
};

void check_nvrtc(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) throw error(fmt::format("{} failed: {}", what, nvrtc().nvrtcGetErrorString(result)));
}

std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::vector<std::string> options_for(const CompileRequest& request) {
  std::vector<std::string> options = kFixedOptions;
  options.push_back("-arch=" + request.target);
  for (const std::string& d : request.defines) options.push_back("-D" + d);
  return options;
}

// The layout of an entry: "batch-cubin-v1" entries name a shared cubin, so
// they never meet the single-kernel entries of an older exactune.
constexpr std::string_view kEntryLayout = "batch-cubin-v1";

// The template sources a request's program includes, each with its path.
std::string program_sources(const CompileRequest& request) {
  std::string sources;
  for (const std::string& path : included_templates(request.main_file)) {
    sources += path;
    sources += '\0';
    sources += embedded_file(path);
  }
  return sources;
}

std::string cache_key(const CompileRequest& request, const std::vector<std::string>& options) {
  return content_hash({"nvrtc", kEntryLayout, nvrtc_version(), request.target, request.main_file,
                       request.name_expression, fmt::format("{}", fmt::join(options, " ")), program_sources(request)});
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtc().nvrtcDestroyProgram(p);
    delete p;
  }
};

// What one NVRTC program made of a batch: the log, and when it compiled, the
// cubin and each request's lowered name.
struct ProgramResult {
  bool compiled = false;
  std::string log;
  double compile_ms = 0;
  std::string cubin;  // a string, to become the kernels' shared Binary without a copy
  std::vector<std::string> entries;
  // Entry i's ptxas report, else what the cubin tells (cubin_resources.hpp);
  // none when neither knows.
  std::vector<std::optional<KernelResources>> resources;

  void find_resources() {
    resources.clear();
    for (const std::string& entry : entries) {
      std::optional<KernelResources> found = parse_ptxas_report(log, entry);
      if (!found) found = resources_from_cubin(cubin, entry);
      resources.push_back(found);
    }
  }

  bool every_resource_known() const {
    return std::all_of(resources.begin(), resources.end(),
                       [](const std::optional<KernelResources>& r) { return r.has_value(); });
  }
};

ProgramResult run_nvrtc(const std::vector<CompileRequest>& batch, const std::vector<std::string>& options) {
  const CompileRequest& first = batch.front();
  // NVRTC finds a header by the name an #include writes: each spelling gets
  // the file it resolves to (compiler.hpp says how).
  std::vector<std::string> header_texts, header_names;
  for (const TemplateInclude& include : template_includes(first.main_file)) {
    if (std::find(header_names.begin(), header_names.end(), include.spelling) != header_names.end()) {
      throw error(
          fmt::format("{}: two templates include \"{}\" meaning different files; spell one from the "
                      "repository root",
                      first.main_file, include.spelling));
    }
    header_texts.emplace_back(embedded_file(include.path));
    header_names.push_back(include.spelling);
  }
  std::vector<const char*> texts, names;
  for (std::size_t i = 0; i < header_texts.size(); ++i) {
    texts.push_back(header_texts[i].c_str());
    names.push_back(header_names[i].c_str());
  }
  const std::string source(embedded_file(first.main_file));
  const std::string unit_name = file_name(first.main_file);

  ProgramResult result;
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  check_nvrtc(nvrtc().nvrtcCreateProgram(program.get(), source.c_str(), unit_name.c_str(),
                                         static_cast<int>(texts.size()), texts.data(), names.data()),
              "nvrtcCreateProgram");
  for (const CompileRequest& request : batch) {
    check_nvrtc(nvrtc().nvrtcAddNameExpression(*program, request.name_expression.c_str()), "nvrtcAddNameExpression");
  }
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtc().nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  nvrtc().nvrtcGetProgramLogSize(*program, &log_size);
  result.log.resize(log_size);
  nvrtc().nvrtcGetProgramLog(*program, result.log.data());
  while (!result.log.empty() && (result.log.back() == '\0' || result.log.back() == '\n')) result.log.pop_back();
  result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (compiled != NVRTC_SUCCESS) return result;

  for (const CompileRequest& request : batch) {
    const char* lowered = nullptr;
    check_nvrtc(nvrtc().nvrtcGetLoweredName(*program, request.name_expression.c_str(), &lowered),
                "nvrtcGetLoweredName");
    result.entries.emplace_back(lowered);
  }
  std::size_t cubin_size = 0;
  check_nvrtc(nvrtc().nvrtcGetCUBINSize(*program, &cubin_size), "nvrtcGetCUBINSize");
  result.cubin.resize(cubin_size);
  check_nvrtc(nvrtc().nvrtcGetCUBIN(*program, result.cubin.data()), "nvrtcGetCUBIN");
  result.find_resources();
  result.compiled = true;
  return result;
}

nlohmann::json resources_json(const KernelResources& r) {
  return {{"registers", r.registers},
          {"spill_store_bytes", r.spill_store_bytes},
          {"spill_load_bytes", r.spill_load_bytes},
          {"stack_frame_bytes", r.stack_frame_bytes},
          {"shared_bytes", r.shared_bytes}};
}

KernelResources resources_from(const nlohmann::json& j) {
  KernelResources r;
  r.registers = j.at("registers");
  r.spill_store_bytes = j.at("spill_store_bytes");
  r.spill_load_bytes = j.at("spill_load_bytes");
  r.stack_frame_bytes = j.at("stack_frame_bytes");
  r.shared_bytes = j.at("shared_bytes");
  return r;
}

std::shared_mutex& report_mutex() {
  static std::shared_mutex mutex;
  return mutex;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtc().nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("{}.{}", major, minor);
}

std::string nvrtc_build_key(const CompileRequest& request) {
  return content_hash({"nvrtc-build", request.target, request.main_file, request.name_expression,
                       fmt::format("{}", fmt::join(options_for(request), " ")), program_sources(request)});
}

bool same_nvrtc_program(const CompileRequest& a, const CompileRequest& b) {
  return a.main_file == b.main_file && a.target == b.target && a.defines == b.defines;
}

CachedBinaries::CachedBinaries(const CompileCache& cache) : cache_(cache) {}

std::shared_ptr<const Binary> CachedBinaries::get(const std::string& cubin_id) {
  std::promise<std::shared_ptr<const Binary>> promise;
  std::shared_future<std::shared_ptr<const Binary>> binary;
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = binaries_.try_emplace(cubin_id);
    if (inserted) it->second = promise.get_future().share();
    first = inserted;
    binary = it->second;
  }
  // The first asker reads outside the lock, so that other binaries are read
  // meanwhile; askers for this one wait for its answer.
  if (first) {
    std::shared_ptr<const Binary> read;
    try {
      std::string id;
      if (std::optional<std::string> bytes = cache_.read(cubin_id, ".cubin", &id)) {
        read = std::make_shared<const Binary>(
            Binary{std::move(id), std::move(*bytes), cache_.entry_path(cubin_id, ".cubin").string()});
      }
    } catch (const std::exception&) {
      // Unreadable: absent, so that its kernels are compiled again.
    }
    promise.set_value(std::move(read));
  }
  return binary.get();
}

std::optional<CompileOutcome> cached_nvrtc_outcome(const CompileRequest& request, const CompileCache& cache,
                                                   CachedBinaries& binaries) {
  try {
    const std::string key = cache_key(request, options_for(request));
    const auto meta = cache.read(key, ".json");
    if (!meta) return std::nullopt;
    const nlohmann::json m = nlohmann::json::parse(*meta);
    const std::string cubin_id = m.at("cubin");
    std::shared_ptr<const Binary> cubin = binaries.get(cubin_id);
    if (!cubin) return std::nullopt;
    CompileOutcome outcome;
    outcome.request = request;
    outcome.ok = true;
    outcome.cache_hit = true;
    outcome.log = m.at("log");
    outcome.kernel.name = request.name;
    outcome.kernel.target = request.target;
    outcome.kernel.entry = m.at("entry");
    outcome.kernel.resources = resources_from(m.at("resources"));
    outcome.kernel.binary = std::move(cubin);
    return outcome;
  } catch (const std::exception&) {
    // A damaged entry is compiled again; a request that cannot be keyed (a
    // template that is missing) fails there, with its reason as its log.
    return std::nullopt;
  }
}

std::vector<CompileOutcome> compile_nvrtc_batch(const std::vector<CompileRequest>& batch, const CompileCache& cache) {
  if (batch.empty()) return {};
  const std::vector<std::string> options = options_for(batch.front());
  std::vector<CompileOutcome> outcomes(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    outcomes[i].request = batch[i];
    outcomes[i].kernel.name = batch[i].name;
    outcomes[i].kernel.target = batch[i].target;
  }
  try {
    ProgramResult program;
    {
      std::shared_lock shared(report_mutex());
      program = run_nvrtc(batch, options);
    }
    if (program.compiled && !program.every_resource_known()) {
      // Seen on the H200 machine's NVRTC: a ptxas report sometimes goes
      // missing, and the cubin cannot stand in for a kernel with a stack
      // frame. Compile again with no other compile running; a kernel whose
      // resources are still unknown is not cached.
      std::unique_lock exclusive(report_mutex());
      program = run_nvrtc(batch, options);
    }
    if (!program.compiled) {
      if (batch.size() == 1) {
        outcomes[0].log = program.log;
        outcomes[0].compile_ms = program.compile_ms;
        return outcomes;
      }
      // Which name expression broke the program, its log says in words only:
      // compiling each alone gives every kernel its own verdict and log.
      for (std::size_t i = 0; i < batch.size(); ++i) outcomes[i] = compile_nvrtc_batch({batch[i]}, cache).front();
      return outcomes;
    }

    const std::string cubin_id = content_hash({program.cubin});
    // One Binary for the batch's kernels, made of the program's cubin without a copy.
    const auto cubin = std::make_shared<const Binary>(
        Binary{cubin_id, std::move(program.cubin), cache.entry_path(cubin_id, ".cubin").string()});
    bool cubin_stored = false;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      CompileOutcome& outcome = outcomes[i];
      outcome.ok = true;
      outcome.log = log_of_entry(program.log, program.entries[i]);
      outcome.compile_ms = program.compile_ms / static_cast<double>(batch.size());
      outcome.kernel.entry = program.entries[i];
      outcome.kernel.binary = cubin;
      // A kernel that compiled stays usable when its resources are unknown:
      // they are then recorded as such, and the log is kept to look at.
      outcome.kernel.resources = program.resources[i].value_or(KernelResources{-1, 0, 0, 0, 0});
      if (outcome.kernel.resources.registers < 0) continue;
      if (!cubin_stored) {
        cache.write(cubin_id, ".cubin", cubin->bytes);
        cubin_stored = true;
      }
      const nlohmann::json m = {{"name", batch[i].name},
                                {"entry", outcome.kernel.entry},
                                {"cubin", cubin_id},
                                {"log", outcome.log},
                                {"compile_ms", outcome.compile_ms},
                                {"resources", resources_json(outcome.kernel.resources)}};
      cache.write(cache_key(batch[i], options), ".json", m.dump(1));
    }
  } catch (const std::exception& e) {
    for (CompileOutcome& outcome : outcomes) {
      outcome.ok = false;
      outcome.log = e.what();
      outcome.kernel.binary.reset();
    }
  }
  return outcomes;
}

std::vector<int> nvrtc_supported_archs() {
  int count = 0;
  if (nvrtc().nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) {
    throw error("NVRTC cannot say which GPU architectures it compiles for");
  }
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtc().nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) {
    throw error("NVRTC cannot say which GPU architectures it compiles for");
  }
  std::sort(archs.begin(), archs.end());
  return archs;
}

}  // namespace exactune
