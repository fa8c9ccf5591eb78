#pragma once
// What a child process's end looks like to a shell.

namespace headroom::util {

// The exit status of a process that exited, 128 + N for one that died of signal N (as a shell
// reports it), from a waitpid status.
int shell_status(int wait_status);

}  // namespace headroom::util
