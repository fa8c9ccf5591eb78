// A measurement refused because the GPU was busy, and what it means (gpu_busy.hpp).
#include "gpu_busy.hpp"

#include <fmt/format.h>

namespace headroom::eval {

namespace {

double number(simdjson::dom::element doc, const char* key) {
  double x = 0;
  if (doc[key].get_double().get(x)) x = 0;
  return x;
}

// "before timed call 3 an empty kernel's round trip took 1.9 ms (busy above 0.5 ms) for 2.0 s"
std::string what_was_seen(const busy_report& seen) {
  return fmt::format(
      "{} found the GPU busy: before timed call {} an empty kernel's round trip took {:.3g} ms "
      "(busy above {:.3g} ms), and it stayed busy for the {:.1f} s the worker waited",
      seen.measurement, seen.call, seen.probe_ms, seen.threshold_ms, seen.waited_ms / 1000);
}

std::string pid_list(const idle_proof& after) {
  if (after.pids.empty()) return "NVML listed none, or could not be asked";
  std::string out;
  for (std::uint64_t pid : after.pids) out += fmt::format("{}{}", out.empty() ? "" : ", ", pid);
  return out + " (the harness's other workers on this GPU among them)";
}

}  // namespace

std::optional<busy_report> busy_report_of(const answer& a, const std::string& measurement) {
  if (a.failure != worker_failure::none || a.ok || a.error != "gpu_busy") return std::nullopt;
  busy_report r;
  r.measurement = measurement;
  if (a.doc["call"].get_int64().get(r.call)) r.call = -1;
  r.probe_ms = number(a.doc, "probe_ms");
  r.threshold_ms = number(a.doc, "threshold_ms");
  r.waited_ms = number(a.doc, "waited_ms");
  return r;
}

gpu_busy_seen::gpu_busy_seen(busy_report r) : std::runtime_error(what_was_seen(r)), report_(std::move(r)) {}

void throw_if_busy(const answer& a, const std::string& measurement) {
  if (std::optional<busy_report> r = busy_report_of(a, measurement)) throw gpu_busy_seen(std::move(*r));
}

idle_proof idle_proof_of(const answer& a) {
  idle_proof p;
  if (a.failure != worker_failure::none || !a.ok) {
    p.failure = a.failure != worker_failure::none ? a.detail : a.message;
    return p;
  }
  p.answered = true;
  if (a.doc["quiet"].get_bool().get(p.quiet)) p.quiet = false;
  p.probe_ms = number(a.doc, "probe_ms");
  p.threshold_ms = number(a.doc, "threshold_ms");
  p.waited_ms = number(a.doc, "waited_ms");
  simdjson::dom::array pids;
  if (!a.doc["pids"].get_array().get(pids))
    for (simdjson::dom::element pid : pids) {
      std::uint64_t n = 0;
      if (!pid.get_uint64().get(n)) p.pids.push_back(n);
    }
  return p;
}

idle_proof probe_gpu(session& trusted, double settle_ms, std::chrono::seconds timeout) {
  return idle_proof_of(trusted.ask(fmt::format(R"("op":"probe","settle_ms":{})", settle_ms), {}, timeout));
}

busy_judgment judge_busy_gpu(const busy_report& seen, const idle_proof& after) {
  if (!after.answered || !after.quiet) return {false, busy_gpu_error(seen, after, true)};
  return {true, fmt::format("{}. Once the candidate's processes were ended the GPU was idle (a round trip of {:.3g} "
                            "ms): work they had left on it kept running while another measurement needed the GPU. "
                            "Every kernel a candidate launches must be done when forward returns, and no process it "
                            "starts may keep using the GPU",
                            what_was_seen(seen), after.probe_ms)};
}

std::string busy_gpu_error(const busy_report& seen, const idle_proof& after, bool sandbox_ended) {
  const std::string when = sandbox_ended ? "once the candidate's processes were ended" : "when probed again";
  const char* ruled_out = sandbox_ended ? "the candidate" : "the problem's reference";
  const char* others =
      "another process on the machine or, with --lanes, another lane's candidate, whose kernels "
      "run on while its processes are frozen";
  std::string then;
  if (!after.answered)
    then = fmt::format(
        "whether it was idle {} is not known: the reference's worker could not probe it ({}). What "
        "kept it busy is not known either: {}, {}",
        when, after.failure, sandbox_ended ? "the candidate's processes" : "this problem's reference", others);
  else if (after.quiet)
    then = fmt::format(
        "it was idle again {} (a round trip of {:.3g} ms), too late for this measurement. "
        "Something other than {} had work on it: {}",
        when, after.probe_ms, ruled_out, others);
  else
    then = fmt::format(
        "it was still busy {} (a round trip of {:.3g} ms after {:.1f} s more). Something other "
        "than {} keeps work on it: {}",
        when, after.probe_ms, after.waited_ms / 1000, ruled_out, others);
  return fmt::format(
      "refusing to time: {}; {}. Processes with a context on the GPU: {}. Nothing of this evaluation was stored: "
      "run headroom eval again once the GPU is idle, and it goes on from there",
      what_was_seen(seen), then, pid_list(after));
}

}  // namespace headroom::eval
