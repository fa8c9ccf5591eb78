#pragma once
// The compile phase of a run (docs/eval.md, "Processes"): every distinct candidate that builds an
// extension is built once, several at a time, on the CPU, before any evaluation. Internal to src/eval.
#include <map>
#include <string>
#include <vector>

#include "headroom/eval/evaluation.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "session.hpp"

namespace headroom::eval {

// Builds the candidates of `jobs` (each once, options.jobs at a time); returns the worker's answer
// for every candidate, by hash, whose build failed or timed out. Rethrows a failure of the
// installation (a worker that cannot start).
std::map<std::string, answer> compile_candidates(const std::vector<const eval_job*>& jobs, const eval_options& o);

// The evaluation of a job whose candidate did not build: compile_error, or timeout.
evaluation compile_failure_evaluation(const eval_job& j, const answer& failure, const std::string& device);

}  // namespace headroom::eval
