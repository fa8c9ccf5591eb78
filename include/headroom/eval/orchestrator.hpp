#pragma once
// `headroom eval`'s driver (docs/eval.md): compiles candidates in parallel, prepares each problem's
// reference data once, evaluates every candidate in a fresh worker, and stores every result. The
// jobs are job.hpp's, what the user asked for options.hpp's, what the run derives run_state.hpp's.
#include <functional>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/eval/options.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::store {
class results_store;
}

namespace headroom::eval {

using store::results_store;

// One line per finished evaluation, for progress display and the suite's expectations.
using eval_callback = std::function<void(const eval_job&, const record::evaluation&, int done, int total)>;

// Runs every job; results go to `store` as they finish. Returns the evaluations of this run
// (including those the store already had, unless `force`). With a shared store (PostgreSQL), no
// shard and no `force`, the jobs are claimed from the store's work queue together with every other
// process given them, and this returns once all of them are done, wherever they ran.
std::vector<record::evaluation> run_evaluations(const std::vector<eval_job>& jobs, results_store& store,
                                                const eval_options& options, const eval_callback& on_done);

}  // namespace headroom::eval
