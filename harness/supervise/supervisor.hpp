// Supervision: a command that runs kernels (sweep, verify) runs them in a
// worker process, its own command line started again, while this process
// watches it. The worker announces each step and its deadline over a pipe
// (worker_channel.hpp) and journals each finished step (journal.hpp).
//   - A step that runs past its deadline is killed: the supervisor journals it
//     "hung" and starts a fresh worker, which continues after it.
//   - A worker that dies in a step (a host kernel's SIGSEGV, an abort) gets the
//     step journaled "failed: the worker died of <signal>", and a fresh worker.
//   - A worker whose GPU context is lost (a trap, an illegal address: sticky)
//     journals the step itself and exits kExitFreshWorker: a fresh worker, in a
//     fresh context.
// The worker dies with the supervisor (PR_SET_PDEATHSIG), so killing the
// command kills its kernels too; `--resume` continues from the journal.
#pragma once
#include <string>
#include <vector>

namespace exactune {

// This process's command line, as it was started (/proc/self/cmdline);
// throws exactune::error when it cannot be read.
std::vector<std::string> own_command_line();

// Runs this process's own command line as a worker until it ends, restarting
// it after each crash or hang, and returns the worker's exit code.
int supervise_this_command();

}  // namespace exactune
