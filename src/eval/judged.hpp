#pragma once
// How an evaluation's verdict and reasons are set while a candidate is judged: the first failure
// sets the verdict, every reason is kept. Internal to src/eval (candidate.cpp, candidate_timing.cpp).
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/tensor.hpp"
#include "headroom/record/evaluation.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::evaluation;
using record::verdict;

struct judged {
  evaluation& e;
  void fail(verdict v, std::string code, std::string detail) {
    if (e.result == verdict::correct) e.result = v;
    e.reasons.push_back({std::move(code), std::move(detail)});
  }
  void flag(std::string code, std::string detail) { e.reasons.push_back({std::move(code), std::move(detail)}); }
  // The same, unless the evaluation carries the flag already.
  void flag_once(std::string code, std::string detail);
  bool failed() const { return e.result != verdict::correct; }
};

// Now, as an evaluation's started_at keeps it: "2026-01-31T12:00:00Z".
std::string iso_now();

// A failed request ends the evaluation with the verdict its manner of failure implies.
void fail_request(judged& j, const answer& a, const char* stage, session& s);

// A worker's answer that says a call's outputs lie where they cannot be judged (its "misplaced" and
// "why": output_aliases_input, stale_output or foreign_output; src/worker/output_memory.hpp) fails
// the evaluation with that reason, its detail prefixed by `where`; false when the outputs were placed.
bool fail_misplaced(judged& j, const answer& a, const std::string& where);
// The informative flag of outputs in memory the candidate keeps (persistent_output), once.
void flag_persistent_output(judged& j);

// "0, 2" or "time.perf_counter, torch.cuda.synchronize": a worker's list for a reason's detail.
std::string joined(simdjson::dom::array arr);

// Compares a call's outputs with the reference's; false when a reason was recorded.
bool compare_outputs(judged& j, const std::vector<tensor>& ref, const std::vector<tensor>& got,
                     const std::string& where, const char* mismatch_code);
// The same in two steps, so that the outputs can be let go before the reasons are recorded: the
// checks of each output (none when the counts differ), then their reasons.
struct output_checks {
  std::size_t outputs = 0;  // how many the call returned
  std::vector<tensor_check> checks;
};
output_checks check_outputs(const std::vector<tensor>& ref, const std::vector<tensor>& got);
bool record_checks(judged& j, const output_checks& c, std::size_t expected, const std::string& where,
                   const char* mismatch_code);

}  // namespace headroom::eval
