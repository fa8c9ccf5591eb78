#pragma once
// The window: the span of wall clock an analysis measures (docs/method.md, "Windows").
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

using trace::time_ns;

enum class window_mode { steady_state, whole, explicit_bounds };

// How the window was chosen, in words a reader can check.
enum class window_source { step_markers, repeating_unit, whole_span, explicit_bounds };

// A step's edge on a timeline, as the activity that marks it: its start, or for `at_end` its end
// (the close of a window measured to its last activity). Trace replay reads steps from these.
struct step_boundary {
  std::uint32_t activity = 0;  // index into trace::activities
  bool at_end = false;
};

struct window {
  time_ns start = 0;
  time_ns end = 0;
  window_source source = window_source::whole_span;
  int steps = 0;  // steps or repeating units inside the window (0 for whole/explicit)
  int skipped_warmup = 0;  // steps or units skipped before it
  std::string description;  // "steps ProfilerStep#3..#7 (5 steps; 1 skipped as warm-up)"
  // Step i runs from boundaries[i] to boundaries[i + 1]; the first marks `start` and the last `end`.
  // A whole or explicit window is one step; empty when no activity marks the window.
  std::vector<step_boundary> boundaries;
  time_ns length() const { return end - start; }
};

std::string_view to_string(window_source s);
std::string_view to_string(window_mode m);

// The repeating unit of a kernel-name sequence: `units` whole repetitions of `period` kernels,
// the first starting at index `first`, each starting with the anchor name.
struct repeating_unit {
  trace::string_id anchor = 0;
  std::size_t period = 0;
  std::size_t first = 0;
  int units = 0;
  int skipped = 0;  // units skipped as warm-up
  double match = 0.0;  // share of positions i in the units with seq[i] == seq[i + period]
};

// Finds the step of a training or inference loop in its kernel sequence (names in launch order on
// one device). Returns nothing when no anchor repeats at a regular period that the whole sequence
// follows; docs/method.md describes the method. O(n log n).
std::optional<repeating_unit> find_repeating_unit(std::span<const trace::string_id> seq, int warmup_units);

}  // namespace headroom::analyze
