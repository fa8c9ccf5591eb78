#pragma once
// Recording one run of a study into its folder.
#include <optional>

#include "headroom/study/folder.hpp"
#include "headroom/study/runs.hpp"

namespace headroom::study {

struct execution {
  std::optional<run_record> record;  // nothing when interrupted: the run stays undone
  bool interrupted = false;
};

// Empties the run's folder, runs its command (logging to log.txt) and judges what it left: ok
// when it exited 0 with its trace written, else failed or timed out with the reason. The record is
// returned, not written: the caller writes it last.
execution execute_run(const planned_run& run, const run_settings& s, const study_folder& folder);

}  // namespace headroom::study
