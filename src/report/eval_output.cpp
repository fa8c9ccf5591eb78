#include "headroom/report/eval_output.hpp"

#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <string>
#include <vector>

#include "headroom/eval/check.hpp"
#include "headroom/eval/kernelbench_results.hpp"

namespace headroom::report {
namespace {

std::string speedup_text(const record::evaluation& e) { return e.speedup ? fmt::format("{:.3f}x", *e.speedup) : "-"; }

std::string first_reason(const record::evaluation& e) {
  for (const auto& r : e.reasons)
    if (r.code != "trials_skipped") return r.code + ": " + r.detail;
  return "";
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

const char* mark(bool passes) { return passes ? "PASS" : "fail"; }

}  // namespace

std::string progress_line(const eval::eval_job& j, const record::evaluation& e, int done, int total,
                          const std::string& pace) {
  return fmt::format("[{}/{}] {}  {}  {}  {}  ({:.1f} s){}", done, total, j.problem.id,
                     j.candidate.path.filename().string(), record::verdict_name(e.result), speedup_text(e),
                     e.duration_s, pace.empty() ? "" : "  " + pace);
}

void write_evaluations(std::ostream& out, const std::vector<record::evaluation>& results) {
  fmt::print(out, "{:<36} {:<28} {:<15} {:>9}  {}\n", "problem", "candidate", "verdict", "speedup", "reason");
  for (const auto& e : results)
    fmt::print(out, "{:<36} {:<28} {:<15} {:>9}  {}\n", e.problem, file_name(e.candidate_path),
               record::verdict_name(e.result), speedup_text(e), first_reason(e).substr(0, 120));
}

void write_suite_outcomes(std::ostream& out, const std::vector<eval::case_outcome>& outcomes) {
  fmt::print(out, "{:<34} {:<16} {:<30} {}\n", "case", "verdict", "reasons", "expected");
  std::size_t met = 0;
  for (const auto& o : outcomes) {
    std::string codes;
    if (o.got)
      for (const auto& r : o.got->reasons) codes += (codes.empty() ? "" : ",") + r.code;
    fmt::print(out, "{:<34} {:<16} {:<30} {}\n", o.c->name,
               o.got ? std::string(record::verdict_name(o.got->result)) : "-", codes,
               o.ok ? "ok" : "MISMATCH: " + o.why);
    met += o.ok ? 1 : 0;
  }
  fmt::print(out, "{} of {} case(s) got the expected verdict\n", met, outcomes.size());
}

void write_verdict_changes(std::ostream& out, const std::vector<eval::verdict_change>& changes,
                           std::size_t reverified) {
  if (!changes.empty())
    fmt::print(out, "{:<36} {:<30} {:<15} {:<15} {}\n", "problem", "candidate", "was", "now", "reason");
  for (const auto& c : changes)
    fmt::print(out, "{:<36} {:<30} {:<15} {:<15} {}\n", c.after->problem, file_name(c.before->candidate_path),
               fmt::format("{} ({})", record::verdict_name(c.before->result),
                           c.before->checker == eval::imported_checker ? std::string("imported")
                                                                       : fmt::format("v{}", c.before->checker)),
               record::verdict_name(c.after->result), c.after->reasons.empty() ? "" : c.after->reasons.front().code);
  fmt::print(out, "{} evaluation(s) reverified under checker v{}; {} verdict(s) changed\n", reverified,
             eval::checker_version, changes.size());
}

void write_audit_header(std::ostream& out) {
  fmt::print(out, "{:<40} {:>6}  {:<17} {:<17} {:<17} {:<17} {}\n", "problem", "trials", "zeros", "constant", "mean",
             "passthrough", "ours rejects all");
  fmt::print(out, "{:<40} {:>6}  {}\n", "", "", "(ours / legacy 1e-2 / legacy 1e-4 for each fake)");
}

void write_audit_row(std::ostream& out, const eval::audit_result& r) {
  if (!r.error.empty()) {
    fmt::print(out, "{:<40} {:>6}  reference failed: {}\n", r.problem, 0, r.error.substr(0, 100));
    return;
  }
  std::string cells;
  for (const auto& f : r.fakes)
    cells += f.applicable ? fmt::format("{:<17} ", fmt::format("{}/{}/{}", mark(f.passes_ours),
                                                               mark(f.passes_legacy_1e2), mark(f.passes_legacy_1e4)))
                          : fmt::format("{:<17} ", f.equals_reference ? "n/a (= ref)" : "n/a");
  fmt::print(out, "{:<40} {:>6}  {}{}\n", r.problem, r.trials, cells,
             !r.degenerate.empty() ? "NO: degenerate"
             : r.discriminating()  ? "yes"
                                   : "NO");
  if (!r.degenerate.empty()) fmt::print(out, "{:<40} {:>6}  degenerate: {}\n", "", "", r.degenerate);
}

void write_audit_summary(std::ostream& out, const std::vector<eval::audit_result>& results) {
  std::size_t discriminating = 0, zeros_legacy = 0;
  std::vector<std::string> degenerate;
  for (const auto& r : results) {
    discriminating += r.discriminating() ? 1 : 0;
    if (!r.degenerate.empty()) degenerate.push_back(r.problem);
    for (const auto& f : r.fakes)
      if (f.name == "zeros" && f.passes_legacy_1e2) ++zeros_legacy;
  }
  fmt::print(out, "\n{} problem(s); our check rejects every fake on {}; zeros pass the legacy 1e-2 check on {}\n",
             results.size(), discriminating, zeros_legacy);
  // A degenerate problem cannot tell a kernel from a trivial output: its speedups measure nothing
  // (headroom eval flags them degenerate_problem, and stats leaves them out).
  if (!degenerate.empty())
    fmt::print(out, "degenerate (the output does not depend on the inputs, or a trivial output passes): {}: {}\n",
               degenerate.size(), fmt::join(degenerate, ", "));
}

void write_audit_json(std::ostream& out, const std::vector<eval::audit_result>& results) {
  out << R"({"schema_version":1,"problems":[)";
  for (std::size_t i = 0; i < results.size(); ++i) out << (i ? "," : "") << eval::audit_json(results[i]);
  out << "]}\n";
}

}  // namespace headroom::report
