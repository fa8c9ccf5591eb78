#include "headroom/generate/feedback.hpp"

#include <fmt/format.h>

namespace headroom::generate {

feedback feedback_for(const std::optional<record::evaluation>& e, std::size_t log_chars) {
  feedback f;
  if (!e) {
    f.evaluation =
        "Verdict: no_code. Your answer held no Python code block defining ModelNew, so there was nothing to evaluate.";
    f.request = "answer with the complete file in a fenced code block.";
    return f;
  }
  std::string out = fmt::format(
      "Your ModelNew ran in a process of its own on {}; its outputs were compared with Model's in float64 over "
      "several seeds and input distributions, and it was timed against PyTorch eager.\nVerdict: {}.",
      e->env.device.empty() ? "the evaluation's device" : e->env.device, record::verdict_name(e->result));
  for (const auto& r : e->reasons) out += fmt::format("\n- {}: {}", r.code, r.detail);
  if (e->result == record::verdict::correct) {
    if (e->speedup) {
      out += fmt::format("\nSpeedup over PyTorch eager: {:.3g}x", *e->speedup);
      if (e->candidate_timing) out += fmt::format(" ({:.4g} ms per call", e->candidate_timing->median_ms);
      if (e->eager_timing) out += fmt::format(" against {:.4g} ms", e->eager_timing->median_ms);
      if (e->candidate_timing) out += ")";
      out += ".";
    }
    if (e->speedup_compiled) out += fmt::format("\nSpeedup over torch.compile: {:.3g}x.", *e->speedup_compiled);
    if (e->speed_of_light_ms && e->candidate_timing && e->candidate_timing->median_ms > 0)
      out += fmt::format(
          "\nSpeed of light (the bytes every correct kernel moves, at this device's measured rate): {:.4g} ms, "
          "{:.0f}% of it reached{}.",
          *e->speed_of_light_ms, 100.0 * *e->speed_of_light_ms / e->candidate_timing->median_ms,
          e->sol_gap_closed
              ? fmt::format("; {:.0f}% of the gap from PyTorch eager to it closed", 100.0 * *e->sol_gap_closed)
              : std::string());
  } else if (e->result != record::verdict::incorrect || e->reasons.empty()) {
    if (!e->log.empty()) {
      std::string tail = e->log.size() > log_chars ? "...\n" + e->log.substr(e->log.size() - log_chars) : e->log;
      out += fmt::format("\nThe end of its log:\n```\n{}\n```", tail);
    }
  }
  if (e->errors.trials > 0)
    out +=
        fmt::format("\nErrors against the reference: normwise {:.3g}, largest absolute {:.3g}; {} of {} trials passed.",
                    e->errors.normwise_error, e->errors.max_abs_error, e->errors.trials_passed, e->errors.trials);
  f.evaluation = out;
  switch (e->result) {
    case record::verdict::correct:
      f.request = "keep it correct and make it faster.";
      break;
    case record::verdict::incorrect:
      f.request = "fix what makes its outputs differ from the reference's, and keep it fast.";
      break;
    case record::verdict::compile_error:
      f.request = "fix the build error.";
      break;
    case record::verdict::timeout:
      f.request = "make it finish well within the time limits.";
      break;
    default:
      f.request = "fix the failure.";
      break;
  }
  return f;
}

}  // namespace headroom::generate
