#include "compile/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <nlohmann/json.hpp>

#include "compile/compiler.hpp"
#include "util/embedded_files.hpp"
#include <exactune/error.hpp>
#include "compile/ptxas_report.hpp"

namespace exactune {
namespace {

// Bit-exactness must not depend on compiler defaults: no contraction, IEEE
// division and square root, denormals kept.
const std::vector<std::string> kFixedOptions = {
    "-std=c++17", "-default-device", "--fmad=false", "--ftz=false",
    "--prec-div=true", "--prec-sqrt=true", "--ptxas-options=-v",
};

void check_nvrtc(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) throw error(fmt::format("{} failed: {}", what, nvrtcGetErrorString(result)));
}

std::string file_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::vector<std::string> options_for(const CompileRequest& request) {
  std::vector<std::string> options = kFixedOptions;
  options.push_back("-arch=" + request.target);
  for (const std::string& d : request.defines) options.push_back("-D" + d);
  return options;
}

std::string cache_key(const CompileRequest& request, const std::vector<std::string>& options) {
  std::string sources;
  for (const std::string& path : included_templates(request.main_file)) {
    sources += path;
    sources += '\0';
    sources += embedded_file(path);
  }
  return content_hash({"nvrtc", nvrtc_version(), request.target, request.main_file, request.name_expression,
                       fmt::format("{}", fmt::join(options, " ")), sources});
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

CompileOutcome run_nvrtc(const CompileRequest& request, const std::vector<std::string>& options) {
  CompileOutcome outcome;
  outcome.request = request;
  // NVRTC finds a header by the name an #include writes: each spelling gets
  // the file it resolves to (compiler.hpp says how).
  std::vector<std::string> header_texts, header_names;
  for (const TemplateInclude& include : template_includes(request.main_file)) {
    if (std::find(header_names.begin(), header_names.end(), include.spelling) != header_names.end()) {
      throw error(fmt::format("{}: two templates include \"{}\" meaning different files; spell one from the "
                              "repository root", request.main_file, include.spelling));
    }
    header_texts.emplace_back(embedded_file(include.path));
    header_names.push_back(include.spelling);
  }
  std::vector<const char*> texts, names;
  for (std::size_t i = 0; i < header_texts.size(); ++i) {
    texts.push_back(header_texts[i].c_str());
    names.push_back(header_names[i].c_str());
  }
  const std::string source(embedded_file(request.main_file));
  const std::string unit_name = file_name(request.main_file);

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  check_nvrtc(nvrtcCreateProgram(program.get(), source.c_str(), unit_name.c_str(), static_cast<int>(texts.size()),
                                 texts.data(), names.data()),
              "nvrtcCreateProgram");
  check_nvrtc(nvrtcAddNameExpression(*program, request.name_expression.c_str()), "nvrtcAddNameExpression");
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(*program, &log_size);
  outcome.log.resize(log_size);
  nvrtcGetProgramLog(*program, outcome.log.data());
  while (!outcome.log.empty() && (outcome.log.back() == '\0' || outcome.log.back() == '\n')) outcome.log.pop_back();
  outcome.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (compiled != NVRTC_SUCCESS) return outcome;

  const char* lowered = nullptr;
  check_nvrtc(nvrtcGetLoweredName(*program, request.name_expression.c_str(), &lowered), "nvrtcGetLoweredName");
  std::size_t cubin_size = 0;
  check_nvrtc(nvrtcGetCUBINSize(*program, &cubin_size), "nvrtcGetCUBINSize");
  outcome.kernel.binary.resize(cubin_size);
  check_nvrtc(nvrtcGetCUBIN(*program, outcome.kernel.binary.data()), "nvrtcGetCUBIN");
  outcome.kernel.entry = lowered;
  // A kernel that compiled stays usable when its report is missing: its
  // resources are then recorded as unknown, and the log is kept to look at.
  const auto resources = parse_ptxas_report(outcome.log, outcome.kernel.entry);
  outcome.kernel.resources = resources.value_or(KernelResources{-1, 0, 0, 0, 0});
  outcome.ok = true;
  return outcome;
}

nlohmann::json resources_json(const KernelResources& r) {
  return {{"registers", r.registers},     {"spill_store_bytes", r.spill_store_bytes},
          {"spill_load_bytes", r.spill_load_bytes}, {"stack_frame_bytes", r.stack_frame_bytes},
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
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("{}.{}", major, minor);
}

CompileOutcome compile_with_nvrtc(const CompileRequest& request, const CompileCache& cache) {
  const std::vector<std::string> options = options_for(request);
  CompileOutcome outcome;
  outcome.request = request;
  try {
    const std::string key = cache_key(request, options);
    const auto cubin = cache.read(key, ".cubin");
    const auto meta = cache.read(key, ".json");
    if (cubin && meta) {
      try {
        const nlohmann::json m = nlohmann::json::parse(*meta);
        outcome.ok = true;
        outcome.cache_hit = true;
        outcome.log = m.at("log");
        outcome.kernel.entry = m.at("entry");
        outcome.kernel.resources = resources_from(m.at("resources"));
        outcome.kernel.binary.assign(cubin->begin(), cubin->end());
      } catch (const nlohmann::json::exception&) {
        outcome = CompileOutcome();  // a damaged entry is compiled again
        outcome.request = request;
      }
    }
    if (!outcome.cache_hit) {
      {
        std::shared_lock shared(report_mutex());
        outcome = run_nvrtc(request, options);
      }
      if (outcome.ok && outcome.kernel.resources.registers < 0) {
        // Seen on the H200 machine's NVRTC: under concurrent compiles a ptxas
        // report sometimes goes missing. Compile again with no other compile
        // running; a kernel still without its report is not cached.
        std::unique_lock exclusive(report_mutex());
        outcome = run_nvrtc(request, options);
      }
      if (outcome.ok && outcome.kernel.resources.registers >= 0) {
        const nlohmann::json m = {{"name", request.name},
                                  {"entry", outcome.kernel.entry},
                                  {"log", outcome.log},
                                  {"compile_ms", outcome.compile_ms},
                                  {"resources", resources_json(outcome.kernel.resources)}};
        cache.write(key, ".cubin", std::string_view(outcome.kernel.binary.data(), outcome.kernel.binary.size()));
        cache.write(key, ".json", m.dump(1));
      }
    }
    outcome.kernel.binary_path = outcome.ok ? cache.entry_path(key, ".cubin").string() : std::string();
  } catch (const std::exception& e) {
    outcome.ok = false;
    outcome.log = e.what();
  }
  outcome.kernel.name = request.name;
  outcome.kernel.target = request.target;
  return outcome;
}

}  // namespace exactune
