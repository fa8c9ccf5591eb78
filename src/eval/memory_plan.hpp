#pragma once
// What one problem's evaluation holds in host memory, the parent and its workers together, and the
// plan that fits it into the memory budget (docs/eval.md, "Memory"). Internal to src/eval
// (reference.cpp).
//
// Everything is a multiple of one set's input bytes I and output bytes O (a set: the inputs of one
// call and the outputs it returns), plus each worker's own start-up (Python, PyTorch), taken at the
// fullest moment of each phase of a problem (preparing the reference, checking a candidate's
// trials, timing). The terms are named after what holds the bytes; bench/eval_memory.py measures
// them.
#include <cstdint>
#include <optional>
#include <string>

namespace headroom::eval {

struct set_bytes {
  std::uint64_t inputs = 0;
  std::uint64_t outputs = 0;
};

struct memory_plan {
  int trials = 0;
  int timing_sets = 0;  // 0: not timed
  bool keep_trials = true;  // the parent keeps every trial; else the reference's worker makes each again
  std::uint64_t parent = 0;  // the parent's own peak
  std::uint64_t peak = 0;  // the parent, the problem's workers and their payload regions at the fullest moment
  std::uint64_t idle = 0;  // the workers started ahead (the next candidate's, the next problem's reference)
  std::uint64_t total() const { return peak + idle; }
};

// A worker's own memory before it holds any tensor: the interpreter, PyTorch, the harness.
inline constexpr std::uint64_t worker_base_bytes = 512ull << 20;

memory_plan estimate_memory(set_bytes one_set, int trials, int timing_sets, bool keep_trials);

// The plan for `trials` trials and `timing_sets` sets (0 when not timing) within `budget`: the trials
// kept by the parent when that fits; else made again by the reference's worker for each candidate;
// then fewer timing sets, down to one. nullopt when even that does not fit: least_memory says what
// it needs.
std::optional<memory_plan> fit_memory(set_bytes one_set, int trials, int timing_sets, std::uint64_t budget);
memory_plan least_memory(set_bytes one_set, int trials, int timing_sets);

// "2.5 GiB"
std::string gib_text(std::uint64_t bytes);

}  // namespace headroom::eval
