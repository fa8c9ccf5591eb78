#pragma once
// The device work of one operator: the activities whose launch call ran inside a host range of a
// given name (an NVTX range or a record_function annotation around the operator), on the same host
// thread. Kernel names cannot say this when the operator launches generic kernels (elementwise,
// sort, index) that other code launches too; the range around the call can.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "headroom/analyze/intervals.hpp"
#include "headroom/trace/model.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::analyze {

// The host ranges (cpu annotations and NVTX, not device projections or instants) whose name `names`
// finds, as one union per host thread: (process, thread) -> spans.
using thread_spans = std::map<std::pair<std::uint16_t, std::uint32_t>, interval_union>;
thread_spans host_ranges_named(const trace::trace& t, const util::regex& names);

// One flag per trace activity: launched by a runtime or driver call that started inside a host range
// (cpu annotation or NVTX, not a device projection or an instant) whose name `names` finds, on the
// call's own process and thread. Needs the trace's api calls (read whole, as the replay reads
// them); a trace without them gives no activity.
std::vector<bool> launched_in_ranges(const trace::trace& t, const util::regex& names);

// One flag per trace api call: it started inside a host range whose name `names` finds, on its own
// process and thread (the operator's host calls: its launches, its synchronisations).
std::vector<bool> calls_in_ranges(const trace::trace& t, const util::regex& names);

}  // namespace headroom::analyze
