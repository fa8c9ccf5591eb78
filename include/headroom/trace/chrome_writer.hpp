#pragma once
// Writes a trace as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open. Layout: one Chrome process per (process, device) for device work, with one thread per
// stream; one Chrome process per traced process for its host threads (API calls, annotations,
// NVTX ranges). Times are written in microseconds with nanosecond precision.
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::trace {

struct chrome_options {
  // Class name of activity i (a classification, say); device events are coloured by it with
  // Chrome's reserved colour names, the same label always getting the same colour in one file.
  // Empty: no class, no colour.
  std::function<std::string_view(std::size_t activity_index)> label;
  // Extra args of activity i, as (key, value) strings ("category", "gemm").
  std::function<std::vector<std::pair<std::string_view, std::string_view>>(std::size_t activity_index)> args;
};

// A trace read with lost input (trace::partial) lists what was lost in otherData.partial_input.
void write_chrome_trace(const trace& t, std::ostream& out, const chrome_options& options = {});

// The JSON string literal of `s`, quotes included; bytes that are not UTF-8 become U+FFFD.
std::string json_quote(std::string_view s);

}  // namespace headroom::trace
