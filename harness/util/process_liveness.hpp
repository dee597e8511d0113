// Whether a process still runs: how files that carry their writer's pid (the
// compile cache's temporaries and build folders, a file set's temporaries) are
// told apart from what a killed run left behind.
#pragma once
#include <sys/types.h>

namespace exactune {

// Whether no process with this pid exists (a zombie counts as gone: it runs no more).
bool process_is_gone(pid_t pid);

}  // namespace exactune
