#pragma once
// The pace of a run of evaluations for its progress lines: evaluations an hour over those finished
// in this process, and the time the rest would take at that pace.
#include <chrono>
#include <string>

namespace headroom::report {

class eval_pace {
 public:
  using clock = std::chrono::steady_clock;
  explicit eval_pace(clock::time_point start = clock::now()) : start_(start) {}

  // One more evaluation finished in this process, `done` of `total` in the run (a resumed run counts
  // the ones stored before it in `done`, not in the pace). Returns "297/h, about 9 min left", or ""
  // before the pace means anything (nothing finished yet, or no time passed).
  std::string finished(int done, int total, clock::time_point now = clock::now());

 private:
  clock::time_point start_;
  int finished_ = 0;
};

// "42 s", "9 min", "3.2 h": a duration rounded for a person.
std::string rough_duration(double seconds);

}  // namespace headroom::report
