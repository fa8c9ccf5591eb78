#pragma once
// Nothing of a candidate runs while something else is measured (docs/eval.md, "Sandbox"): for the
// life of a freeze_others, every isolated worker of this process but the measured one is stopped,
// its whole sandbox with it (a candidate's background processes included). Workers started or ended
// meanwhile wait until it is over.
#include <vector>

#include "headroom/sandbox/worker_process.hpp"

namespace headroom::sandbox {

class freeze_others {
 public:
  // measured: the workers that go on running (one, or the two sides of alternating calls).
  explicit freeze_others(const std::vector<const worker_process*>& measured);
  ~freeze_others();
  freeze_others(const freeze_others&) = delete;
  freeze_others& operator=(const freeze_others&) = delete;
  // How many sandboxes were frozen.
  std::size_t count() const { return frozen_.size(); }

 private:
  std::vector<worker_process*> frozen_;
};

}  // namespace headroom::sandbox
