#pragma once
// Finds where a JSON value ends without parsing it: string and escape state, and bracket depth.
// Containers are scanned 64 bytes at a time and may read up to 63 bytes past end_of_data, so the
// caller keeps that much readable padding after its data.
// This is what lets the Kineto reader cut a multi-GB traceEvents array into complete events
// before simdjson sees them. It checks only what it needs to find the end (brackets balance
// as a count, not by kind); simdjson validates the content afterwards.
#include <cstddef>

namespace headroom::trace::detail {

enum class scan_status { complete, incomplete, invalid };

struct scan_result {
  scan_status status;
  std::size_t end;  // complete: one past the value; invalid: where the problem is
};

// The value starts at data[begin] (not whitespace); data[end_of_data] is not read.
scan_result scan_value(const char* data, std::size_t begin, std::size_t end_of_data);

inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace headroom::trace::detail
