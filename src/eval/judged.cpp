#include "judged.hpp"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "device_gate.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::eval {

using record::reason;
using record::verdict;

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void fail_request(judged& j, const answer& a, const char* stage, session& s) {
  if (a.failure == worker_failure::timeout) return j.fail(verdict::timeout, stage, a.detail);
  if (a.failure == worker_failure::died) {
    j.e.log = s.log_tail();
    return j.fail(verdict::crash, "signal", fmt::format("the worker died during {}: {}", stage, a.detail));
  }
  if (a.failure == worker_failure::tampering) return j.fail(verdict::incorrect, "tampering", a.detail);
  std::string msg = a.message;
  if (!a.traceback.empty()) j.e.log = a.traceback;
  if (a.error == "compile_error") return j.fail(verdict::compile_error, "compile_error", msg);
  if (a.error == "load_error") return j.fail(verdict::load_error, a.kind.empty() ? "load_error" : a.kind, msg);
  j.fail(verdict::runtime_error, a.kind.empty() ? "exception" : a.kind, msg);
}

void judged::flag_once(std::string code, std::string detail) {
  for (const reason& r : e.reasons)
    if (r.code == code) return;
  flag(std::move(code), std::move(detail));
}

bool fail_misplaced(judged& j, const answer& a, const std::string& where) {
  std::string_view code, why;
  if (a.doc["misplaced"].get_string().get(code)) return false;
  if (a.doc["why"].get_string().get(why)) why = "";
  // The worker runs the candidate's code: only the codes it has are believed.
  std::string reason = code == "output_aliases_input" || code == "stale_output" ? std::string(code) : "foreign_output";
  j.fail(verdict::incorrect, reason, fmt::format("{}: {}", where, why));
  return true;
}

void flag_persistent_output(judged& j) {
  j.flag_once("persistent_output",
              "outputs returned in memory the candidate keeps from call to call (an out= buffer, a CUDA graph's "
              "static output): judged on each call's values, the memory filled with a NaN pattern by the harness "
              "before every call after the first that returned it, and found rewritten");
}

std::string joined(simdjson::dom::array arr) {
  std::string out;
  for (simdjson::dom::element e : arr) {
    std::string item = e.is_string() ? std::string(e.get_string().value()) : std::to_string(e.get_int64().value());
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

output_checks check_outputs(const std::vector<tensor>& ref, const std::vector<tensor>& got) {
  output_checks c;
  c.outputs = got.size();
  if (got.size() != ref.size()) return c;
  auto quiet = host_work();  // on every core: not while another lane measures (device_gate.hpp)
  for (std::size_t i = 0; i < ref.size(); ++i) {
    util::phase_trace trace("compare");
    c.checks.push_back(compare(ref[i], got[i]));
  }
  return c;
}

bool record_checks(judged& j, const output_checks& c, std::size_t expected, const std::string& where,
                   const char* mismatch_code) {
  if (c.outputs != expected) {
    j.fail(verdict::incorrect, "wrong_output_count",
           fmt::format("{}: {} output(s), the reference has {}", where, c.outputs, expected));
    return false;
  }
  bool ok = true;
  for (std::size_t i = 0; i < c.checks.size(); ++i) {
    const tensor_check& t = c.checks[i];
    j.e.errors.normwise_error = std::max(j.e.errors.normwise_error, t.normwise_error);
    j.e.errors.max_abs_error = std::max(j.e.errors.max_abs_error, t.max_abs_error);
    j.e.errors.mismatched = std::max(j.e.errors.mismatched, t.mismatched);
    for (const reason& r : t.reasons) {
      std::string code = r.code == "mismatch" ? mismatch_code : r.code;
      j.fail(verdict::incorrect, code, fmt::format("{}, output {}: {}", where, i, r.detail));
      ok = false;
    }
  }
  return ok;
}

bool compare_outputs(judged& j, const std::vector<tensor>& ref, const std::vector<tensor>& got,
                     const std::string& where, const char* mismatch_code) {
  return record_checks(j, check_outputs(ref, got), ref.size(), where, mismatch_code);
}

}  // namespace headroom::eval
