#include "judged.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "device_gate.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::eval {

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

std::string joined(simdjson::dom::array arr) {
  std::string out;
  for (simdjson::dom::element e : arr) {
    std::string item = e.is_string() ? std::string(e.get_string().value()) : std::to_string(e.get_int64().value());
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

bool compare_outputs(judged& j, const std::vector<tensor>& ref, const std::vector<tensor>& got, const std::string& where,
                     const char* mismatch_code) {
  if (got.size() != ref.size()) {
    j.fail(verdict::incorrect, "wrong_output_count",
           fmt::format("{}: {} output(s), the reference has {}", where, got.size(), ref.size()));
    return false;
  }
  bool ok = true;
  auto quiet = host_work();  // on every core: not while another lane measures (device_gate.hpp)
  for (std::size_t i = 0; i < ref.size(); ++i) {
    util::phase_trace trace("compare");
    tensor_check c = compare(ref[i], got[i]);
    j.e.errors.normwise_error = std::max(j.e.errors.normwise_error, c.normwise_error);
    j.e.errors.max_abs_error = std::max(j.e.errors.max_abs_error, c.max_abs_error);
    j.e.errors.mismatched = std::max(j.e.errors.mismatched, c.mismatched);
    for (const reason& r : c.reasons) {
      std::string code = r.code == "mismatch" ? mismatch_code : r.code;
      j.fail(verdict::incorrect, code, fmt::format("{}, output {}: {}", where, i, r.detail));
      ok = false;
    }
  }
  return ok;
}

}  // namespace headroom::eval
