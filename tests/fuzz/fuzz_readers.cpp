// exactune_fuzz_readers: the bounded fuzz run of every reader of a user's
// file, for CI (ci/fuzz.sh) and by hand. Each reader runs in a child process
// of its own under a memory limit, with a time limit on every input; the
// child first reads every seed, then mutations of them (mutator.hpp) until its
// share of the time is spent. An input that the reader mishandles
// (reader_checks.hpp), that crashes it or that runs past the limit is saved
// under --findings and the run fails.
//
//   exactune_fuzz_readers --corpus tests/data/fuzz [--corpus DIR]... [--seconds 45] [--jobs 2]
//                         [--seed 1] [--reader NAME]... [--findings DIR] [--replay] [--verbose]
//
// --replay reads the seeds only: a quick, deterministic check of the corpus;
// --verbose says of each seed whether it was read or refused.
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fuzz/mutator.hpp"
#include "fuzz/reader_checks.hpp"
#include "fuzz/seed_corpus.hpp"

namespace fs = std::filesystem;
using namespace exactune::fuzz;

namespace {

// The most memory one reader's child may map, and the longest one input may take.
constexpr rlim_t kMemoryLimitBytes = rlim_t{4} << 30;
constexpr int kSecondsPerInput = 10;
constexpr int kExitHang = 3;
constexpr int kExitFinding = 1;

struct Options {
  std::vector<fs::path> corpora;
  double seconds = 45;
  int jobs = 1;
  std::uint64_t seed = 1;
  std::vector<std::string> only;
  fs::path findings = "fuzz-findings";
  bool replay = false;
  bool verbose = false;
};

// The input being read, where the parent finds it after a crash or a hang.
struct SharedInput {
  std::size_t length = 0;
  char text[kMaxMutatedBytes + 4096];  // seeds may be a little longer than mutations
};

SharedInput* g_current = nullptr;

void on_alarm(int) {
  constexpr char kMessage[] = "an input ran past its time limit\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(kExitHang);
}

void save_finding(const Options& options, const std::string& reader, std::string_view text, std::string_view why) {
  fs::create_directories(options.findings);
  const fs::path file = options.findings / fmt::format("{}-{}.yaml", reader, ::getpid());
  std::ofstream(file, std::ios::binary) << text;
  fmt::print(stderr, "fuzz {}: FINDING, saved as {}: {}\n", reader, file.string(), why);
}

// The child's work: every seed, then mutations until `deadline`.
int run_reader(const Reader& reader, const std::vector<Seed>& seeds, const Options& options, double seconds) {
  const rlimit memory{kMemoryLimitBytes, kMemoryLimitBytes};
  ::setrlimit(RLIMIT_AS, &memory);
  ::signal(SIGALRM, on_alarm);
  const auto started = std::chrono::steady_clock::now();
  std::size_t inputs = 0, accepted = 0;
  const auto read = [&](std::string_view text, std::string_view name = {}) {
    const std::size_t length = std::min(text.size(), sizeof g_current->text);
    std::memcpy(g_current->text, text.data(), length);
    g_current->length = length;
    const itimerval limit{{0, 0}, {kSecondsPerInput, 0}};
    ::setitimer(ITIMER_REAL, &limit, nullptr);
    const Verdict verdict = reader.check(text.substr(0, length));
    const itimerval off{};
    ::setitimer(ITIMER_REAL, &off, nullptr);
    ++inputs;
    accepted += verdict.accepted ? 1 : 0;
    if (!verdict.ok()) save_finding(options, reader.name, text.substr(0, length), verdict.problem);
    if (options.verbose && !name.empty()) {
      fmt::print("  {} {}: {}\n", reader.name, name, verdict.accepted ? "read" : "refused, with its line");
    }
    return verdict.ok();
  };
  std::vector<std::string> texts;
  for (const Seed& seed : seeds) {
    if (!read(seed.text, seed.name)) return kExitFinding;
    texts.push_back(seed.text);
  }
  if (!options.replay && !texts.empty()) {
    // One random stream per reader, so that each reader's inputs are the same on every run.
    Mutator mutator(texts, options.seed * 1000003 + std::hash<std::string>{}(reader.name));
    const auto deadline = started + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!read(mutator.next())) return kExitFinding;
    }
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("fuzz {}: {} inputs ({} seeds), {} accepted, the rest refused with their line, in {:.1f} s\n", reader.name,
             inputs, seeds.size(), accepted, took);
  return 0;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--corpus") {
      o.corpora.emplace_back(value());
    } else if (arg == "--seconds") {
      o.seconds = std::stod(value());
    } else if (arg == "--jobs") {
      o.jobs = std::max(1, std::stoi(value()));
    } else if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--reader") {
      o.only.push_back(value());
    } else if (arg == "--findings") {
      o.findings = value();
    } else if (arg == "--replay") {
      o.replay = true;
    } else if (arg == "--verbose") {
      o.verbose = true;
    } else {
      throw std::runtime_error("unknown argument " + arg + " (see the head of tests/fuzz/fuzz_readers.cpp)");
    }
  }
  for (const std::string& name : o.only) {
    if (find_reader(name) == nullptr) throw std::runtime_error("no reader named " + name);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "exactune_fuzz_readers: {}\n", e.what());
    return 2;
  }
  std::map<std::string, std::vector<Seed>> seeds;
  for (const fs::path& corpus : options.corpora) {
    for (Seed& s : seed_files(corpus)) seeds[s.reader].push_back(std::move(s));
  }
  for (Seed& s : generated_seeds()) seeds[s.reader].push_back(std::move(s));

  std::vector<const Reader*> chosen;
  for (const Reader& r : readers()) {
    if (options.only.empty() || std::find(options.only.begin(), options.only.end(), r.name) != options.only.end()) {
      chosen.push_back(&r);
    }
  }
  // Every reader gets the same share of the jobs' time.
  const double seconds_each = options.seconds * options.jobs / static_cast<double>(chosen.size());
  std::map<pid_t, std::pair<const Reader*, SharedInput*>> running;
  int failures = 0;
  const auto wait_one = [&] {
    int status = 0;
    const pid_t pid = ::wait(&status);
    const auto [reader, input] = running.at(pid);
    running.erase(pid);
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (clean) return;
    ++failures;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitFinding) return;  // saved by the child
    const std::string why =
        WIFSIGNALED(status) ? fmt::format("killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)))
        : WEXITSTATUS(status) == kExitHang ? std::string("ran past the time limit")
                                           : fmt::format("exited with {}", WEXITSTATUS(status));
    save_finding(options, reader->name, std::string_view(input->text, input->length), why);
  };
  for (const Reader* reader : chosen) {
    if (running.size() >= static_cast<std::size_t>(options.jobs)) wait_one();
    void* shared = ::mmap(nullptr, sizeof(SharedInput), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
      fmt::print(stderr, "exactune_fuzz_readers: mmap: {}\n", std::strerror(errno));
      return 2;
    }
    auto* input = new (shared) SharedInput;
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
      g_current = input;
      const int code = run_reader(*reader, seeds[reader->name], options, seconds_each);
      std::fflush(stdout);
      ::_exit(code);
    }
    running.emplace(pid, std::pair{reader, input});
  }
  while (!running.empty()) wait_one();
  if (failures > 0) {
    fmt::print(stderr, "fuzz: {} reader(s) mishandled an input; see above and {}\n", failures,
               options.findings.string());
    return 1;
  }
  return 0;
}
