#pragma once
// The console output of `headroom eval`, `reverify` and `audit`: the evaluations of a run, a suite's
// cases against their expectations, the verdicts a reverify changed, and the discrimination audit
// (a table row per problem as each is audited, or JSON).
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "headroom/eval/audit.hpp"
#include "headroom/eval/job.hpp"
#include "headroom/eval/reverify.hpp"
#include "headroom/eval/suite.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::report {

// The progress line of one finished evaluation: "[done/total] problem  candidate  verdict  speedup
// (seconds)", then the run's pace when given (eval_pace.hpp).
std::string progress_line(const eval::eval_job& j, const record::evaluation& e, int done, int total,
                          const std::string& pace = "");

// One row per evaluation: problem, candidate file, verdict, speedup, the first reason.
void write_evaluations(std::ostream& out, const std::vector<record::evaluation>& results);

// One row per case (verdict, reason codes, ok or MISMATCH with why), then how many met theirs.
void write_suite_outcomes(std::ostream& out, const std::vector<eval::case_outcome>& outcomes);

// The changed verdicts (was, with its checker version; now; the first reason), then the count of
// evaluations reverified and of verdicts changed.
void write_verdict_changes(std::ostream& out, const std::vector<eval::verdict_change>& changes, std::size_t reverified);

// The audit's table: its header, one row per problem (ours / legacy 1e-2 / legacy 1e-4 per fake),
// and the closing count.
void write_audit_header(std::ostream& out);
void write_audit_row(std::ostream& out, const eval::audit_result& r);
void write_audit_summary(std::ostream& out, const std::vector<eval::audit_result>& results);
// {"schema_version":1,"problems":[...]} with eval::audit_json per problem.
void write_audit_json(std::ostream& out, const std::vector<eval::audit_result>& results);

}  // namespace headroom::report
