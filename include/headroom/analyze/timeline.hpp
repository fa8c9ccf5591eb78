#pragma once
// A timeline is the work of one device as one process saw it (a rank's GPU). Activities whose
// device is unknown (-1) form their own timeline per process rather than being guessed onto a GPU.
#include <cstdint>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

struct timeline {
  std::uint16_t process = 0;
  std::int16_t device = -1;
  std::vector<std::uint32_t> activities;  // indices into trace::activities, by start time
};

// Timelines ordered by process, then device.
std::vector<timeline> split_timelines(const trace::trace& t);

}  // namespace headroom::analyze
