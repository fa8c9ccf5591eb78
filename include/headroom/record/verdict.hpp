#pragma once
// Verdicts and their reasons (docs/eval.md, "Verdicts"). An evaluation ends in exactly one verdict;
// reasons say why, flags qualify a correct result (a flagged speedup is not a verified one).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::record {

enum class verdict {
  correct,
  incorrect,  // ran, but a check failed (mismatch, unwritten output, NaN, mutated input, ...)
  compile_error,  // the candidate's extension did not build
  load_error,  // the module did not import or ModelNew could not be constructed
  runtime_error,  // forward raised (including CUDA errors surfaced as exceptions, out of memory)
  crash,  // the worker died (signal, abort, exit without answering)
  timeout,  // compile, load or run took longer than its limit
  reference_error  // the problem itself failed; nothing is said about the candidate
};

std::string_view verdict_name(verdict v);
std::optional<verdict> parse_verdict(std::string_view name);

// Reason codes. Incorrect: mismatch, unwritten_output, nan_inf, mutated_input, wrong_shape,
// wrong_dtype, wrong_output_count, not_a_tensor, foreign_output (memory the candidate owns that no
// allocator of the harness handed out, or that it cannot check), output_aliases_input (an output in an
// input's memory), stale_output (memory an earlier call returned, left unwritten by this one),
// timed_output_mismatch, tampering, background_thread, gpu_left_busy (work the candidate's processes
// left on the GPU kept it busy while another measurement needed it). Errors: out_of_memory,
// illegal_address, signal, exit.
// Flags (the verdict stays `correct`): other_stream_work, below_speed_of_light, torch_fallback,
// timing_modes_differ, excessive_speedup, degenerate_problem (also listed after a failure's reasons:
// every evaluation of a degenerate problem carries it); informative (the speedup stays verified): timing_unconfirmed,
// timed_outputs_unchecked, timing_sets_reduced (fewer timing sets than asked, to fit the memory
// budget), trials_skipped (input distributions outside the problem's domain), persistent_output
// (outputs in memory the candidate keeps from call to call, proven rewritten by every call).
struct reason {
  std::string code;
  std::string detail;  // one line for people: which output, how large the error, which signal
};

// Flags that keep a correct result's speedup out of the verified set.
bool disqualifies_speedup(std::string_view flag_code);

}  // namespace headroom::record
