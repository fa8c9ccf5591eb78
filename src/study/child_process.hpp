#pragma once
// One command of a study, run to its end, its timeout or the user's interruption, whichever comes
// first, with its output in a log file and every process it started gone when it returns.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace headroom::study {

// While one lives, SIGINT, SIGTERM and SIGHUP sent to headroom set a flag instead of ending it, so
// the study can stop the run under way and leave the folder consistent; the old handlers come back
// on destruction. headroom also becomes the subreaper of what it starts: a run's grandchildren that
// outlive their parent (a profiled program whose launcher was killed) come back to it to be ended.
class interrupt_guard {
 public:
  interrupt_guard();
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;
  static int signal();  // the signal received, 0 when none
};

struct child_outcome {
  bool started = false;  // false: the command could not be run (message in `error`)
  int status = 0;  // shell status: exit status, or 128 + signal
  bool timed_out = false;
  bool interrupted = false;
  double seconds = 0.0;
  std::string error;
};

// Runs argv in a process group of its own with stdin from /dev/null, stdout and stderr appended to
// `log` (which starts with the command line), and `env` added. Past `timeout_s` or on an
// interruption the group gets SIGTERM, and SIGKILL `grace_s` later.
child_outcome run_logged(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, const std::filesystem::path& log,
                         int timeout_s, int grace_s = 20);

// The last non-empty line of a text file (at most its last 4 KiB read), for a failure's reason.
std::string last_line(const std::filesystem::path& file);

// A command line as a shell would take it back (arguments quoted where needed).
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace headroom::study
