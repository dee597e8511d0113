// Supervision on the CPU: host kernels that crash or never return become one
// failed or hung record each while every other variant keeps its own; a run
// killed with SIGKILL takes its worker with it and completes with --resume,
// with the records of an uninterrupted run; the journal keeps what it must and
// refuses what it must. The runs are the CLI's (supervision restarts the
// command's own process), on its default family (support/cli_family.hpp).
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/shapes.hpp>

#include "catch.hpp"
#include "supervise/journal.hpp"
#include "support/cli_family.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"
#include "verify/verify_stage.hpp"

namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t lines_of(const fs::path& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// `count` small shapes at two sizes, and the runs of one variant over them
// (one per input case): many runs, each quick on the CPU.
struct SmallShapes {
  fs::path file;
  std::size_t runs = 0;
};

SmallShapes small_shapes(const fs::path& folder, int count) {
  const exactune::KernelFamily& family = exactune_test::cli_family();
  std::vector<exactune::Shape> shapes;
  SmallShapes made;
  for (int i = 0; i < count; ++i) {
    const int size = i % 2 ? 128 : 64;
    shapes.push_back(exactune_test::cli_shape(fmt::format("iso-{}-{}", i, size), size));
    made.runs += family.input_cases(exactune::first_rows(family, shapes.back(), 1)).size();
  }
  made.file = exactune_test::write_cli_shapes(folder, shapes);
  return made;
}

// The table's lines, which name every (shape, variant) and its result.
std::vector<std::string> table_rows(const std::string& output) {
  std::vector<std::string> rows;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("iso-", 0) == 0) rows.push_back(line);
  }
  return rows;
}

// The journal's own mechanism, apart from what any command's records hold.
const exactune::RecordCheck any_record = [](const std::string&, const nlohmann::json&) {};

}  // namespace

TEST_CASE(
    "planted host kernels that trap, write out of bounds or spin get failed and hung records, the real "
    "variants keep their own") {
  ScratchDirectory folder("isolation-planted");
  const SmallShapes shapes = small_shapes(folder.path(), 2);
  const CliResult r = run_cli(
      fmt::format("verify --cpu --rows 1 --shapes {} --variants '{}' --plant-crash "
                  "trap,out-of-bounds,spin --deadline 2 --journal {}",
                  shapes.file.string(), exactune_test::cli_variant(), (folder.path() / "verify.journal").string()));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const std::vector<std::string> rows = table_rows(r.output);
  REQUIRE(rows.size() == 2 * 4);  // the real variant and 3 planted copies per shape
  for (const std::string& row : rows) {
    if (contains(row, ".planted-trap")) {
      CHECK(contains(row, "the worker died of SIGILL"));
    } else if (contains(row, ".planted-out-of-bounds")) {
      CHECK(contains(row, "the worker died of SIGSEGV"));
    } else if (contains(row, ".planted-spin")) {
      CHECK(contains(row, "hung: ran past its deadline of 2.0 s"));
    } else {
      CHECK(contains(row, "exact"));
    }
  }
  // A crashed variant runs no other case.
  CHECK(contains(r.output,
                 fmt::format("{} passed, 0 incorrect, 6 failed, {} not run", shapes.runs, 3 * shapes.runs - 6)));
  CHECK_FALSE(fs::exists(folder.path() / "verify.journal"));  // a finished run keeps no journal
}

TEST_CASE(
    "a verify --cpu killed with SIGKILL halfway leaves no worker behind and completes with --resume, with "
    "the records of an uninterrupted run") {
  ScratchDirectory folder("isolation-resume");
  const SmallShapes shapes = small_shapes(folder.path(), 8);
  const std::string selection = fmt::format("verify --cpu --rows 1 --shapes {} --variants '{}'", shapes.file.string(),
                                            exactune_test::cli_variant());
  const CliResult uninterrupted = run_cli(selection + " --journal " + (folder.path() / "whole.journal").string());
  REQUIRE(uninterrupted.exit_code == 0);
  const std::size_t runs = shapes.runs;

  const fs::path journal = folder.path() / "killed.journal";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl("/bin/sh", "sh", "-c",
            fmt::format("exec '{}' {} --journal {}", EXACTUNE_CLI, selection, journal.string()).c_str(), nullptr);
    ::_exit(127);
  }
  // Kill it once some runs, not all, are journaled (the header is line 1).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!(fs::exists(journal) && lines_of(journal) > 1 + runs / 3) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::size_t journaled = lines_of(journal) - 1;
  INFO("runs journaled before the kill: " << journaled);
  REQUIRE(journaled > 0);
  REQUIRE(journaled < runs);

  // The worker died with its supervisor: nothing holds the journal's lock.
  bool released = false;
  for (int attempt = 0; attempt < 500 && !released; ++attempt) {
    const int fd = ::open(journal.c_str(), O_RDONLY);
    released = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0) ::close(fd);
    if (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(released);

  const CliResult refused = run_cli(selection + " --journal " + journal.string());
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.output, "--resume continues it, --restart discards it"));

  const CliResult resumed = run_cli(selection + " --resume --journal " + journal.string());
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK(contains(resumed.output, fmt::format("{} steps already finished", journaled)));
  CHECK(table_rows(resumed.output) == table_rows(uninterrupted.output));
  CHECK_FALSE(fs::exists(journal));
}

TEST_CASE("a journal resumes only its own run, drops a torn last line and refuses damage with its line") {
  ScratchDirectory folder("isolation-journal");
  const fs::path path = folder.path() / "run.journal";
  const exactune::RunIdentity identity = {{"seed", "1"}, {"backend", "CPU"}};
  {
    exactune::Journal journal = exactune::Journal::open(path, "verify", identity, false, false, any_record);
    journal.append("step/a", {{"disposition", "passed"}});
    journal.append("step/b", {{"disposition", "incorrect"}});
  }
  SECTION("the same run continues, with its steps") {
    exactune::Journal journal = exactune::Journal::open(path, "verify", identity, true, false, any_record);
    CHECK(journal.steps() == 2);
    REQUIRE(journal.find("step/b") != nullptr);
    CHECK(journal.find("step/b")->record["disposition"] == "incorrect");
    CHECK(journal.find("step/c") == nullptr);
  }
  SECTION("another seed is refused, naming the difference") {
    try {
      exactune::Journal::open(path, "verify", {{"seed", "2"}, {"backend", "CPU"}}, true, false, any_record);
      FAIL("resumed a run with another seed");
    } catch (const exactune::input_error& e) {
      CHECK(contains(e.what(), "seed was 1, now 2"));
    }
  }
  SECTION("another command's journal is refused") {
    CHECK_THROWS_AS(exactune::Journal::open(path, "sweep", identity, true, false, any_record), exactune::input_error);
  }
  SECTION("without --resume an unfinished journal is refused; --restart discards it") {
    CHECK_THROWS_AS(exactune::Journal::open(path, "verify", identity, false, false, any_record), exactune::input_error);
    exactune::Journal journal = exactune::Journal::open(path, "verify", identity, false, true, any_record);
    CHECK(journal.steps() == 0);
  }
  SECTION("a torn last line (a kill mid-write) is dropped, and the crash of a dead worker is kept") {
    { std::ofstream(path, std::ios::app) << R"({"step": "step/c", "rec)"; }
    exactune::Journal::append_crash(path, "step/c", "hung", "ran past its deadline of 1.0 s and was killed");
    exactune::Journal journal = exactune::Journal::open(path, "verify", identity, true, false, any_record);
    CHECK(journal.steps() == 3);
    REQUIRE(journal.find("step/c") != nullptr);
    CHECK(journal.find("step/c")->crash == "hung");
  }
  SECTION("a resumed run writes its next step where the dropped torn line began") {
    { std::ofstream(path, std::ios::app) << R"({"step": "step/c", "rec)"; }
    {
      exactune::Journal journal = exactune::Journal::open(path, "verify", identity, true, false, any_record);
      journal.append("step/c", {{"disposition", "passed"}});
    }
    exactune::Journal journal = exactune::Journal::open(path, "verify", identity, true, false, any_record);
    CHECK(journal.steps() == 3);
    REQUIRE(journal.find("step/c") != nullptr);
    CHECK(journal.find("step/c")->record["disposition"] == "passed");
  }
  SECTION("a damaged line in the middle is refused with its line number") {
    std::string text = read_file(path);
    text.replace(text.find("step/a") - 9, 1, "#");
    write_file(path, text);
    try {
      exactune::Journal::open(path, "verify", identity, true, false, any_record);
      FAIL("read a damaged journal");
    } catch (const exactune::input_error& e) {
      CHECK(contains(e.what(), path.string() + ":2:"));
    }
  }
  SECTION("--resume without a journal says so") {
    CHECK_THROWS_AS(
        exactune::Journal::open(folder.path() / "none.journal", "verify", identity, true, false, any_record),
        exactune::input_error);
  }
  SECTION("a second run cannot write a journal that a live run holds") {
    exactune::Journal holder = exactune::Journal::open(path, "verify", identity, true, false, any_record);
    CHECK_THROWS_AS(exactune::Journal::open(path, "verify", identity, true, false, any_record), exactune::input_error);
  }
}
