#pragma once
// A timeline is the work of one device as one process saw it (a rank's GPU). Activities whose
// device is unknown (-1) form their own timeline per process rather than being guessed onto a GPU.
#include <cstdint>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

using trace::time_ns;

struct timeline {
  std::uint16_t process = 0;
  std::int16_t device = -1;
  std::vector<std::uint32_t> activities;  // indices into trace::activities, by start time
};

// Timelines ordered by process, then device.
std::vector<timeline> split_timelines(const trace::trace& t);

// The activity (index into trace::activities) that starts first at or after `at` on the timeline,
// or the timeline's last one when none does; the timeline must not be empty.
std::uint32_t first_starting_at(const trace::trace& t, const timeline& tl, time_ns at);
// The activity of the timeline that ends last at or before `at` (the last ending one when none does).
std::uint32_t last_ending_by(const trace::trace& t, const timeline& tl, time_ns at);

}  // namespace headroom::analyze
