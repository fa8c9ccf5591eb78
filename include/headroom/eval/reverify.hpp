#pragma once
// `headroom reverify`: the candidates a results store holds, rerun from their stored texts under
// the current checker (docs/eval-results.md, "Identity and versions"). A rerun's row replaces a
// stored one only when both have the same key (candidate, problem, checker version, device); under
// a newer checker it is a new row beside the old.
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/eval/options.hpp"
#include "headroom/eval/results_store.hpp"

namespace headroom::eval {

struct reverify_plan {
  std::vector<eval_job> jobs;  // the stored texts, written under the plan's folder
  std::vector<record::evaluation> before;  // per job, the stored row it reruns
  std::vector<std::string> skipped;  // rows not rerun (their source text is missing), as messages
};

// The stored rows `f` selects (the latest per candidate, problem and device; reference errors left
// out), each as a job whose problem and candidate files are written from the store under `folder`:
// the original files may have moved or changed since.
reverify_plan plan_reverify(results_store& store, const evaluation_filter& f, const std::filesystem::path& folder);

// The stored rows a rerun with `options` would replace (same checker version, on one of the run's
// devices) that hold timing the rerun would not measure (options.timing off): their speedups would
// be lost.
std::vector<const record::evaluation*> timing_lost(const reverify_plan& plan, const eval_options& options);

struct verdict_change {
  const record::evaluation* before;
  const record::evaluation* after;
};
// The rerun evaluations whose verdict differs from the stored row they rerun.
std::vector<verdict_change> changed_verdicts(const reverify_plan& plan, const std::vector<record::evaluation>& after);

}  // namespace headroom::eval
