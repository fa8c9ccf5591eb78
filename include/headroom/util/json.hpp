#pragma once
// Writing JSON strings: every output of ours (analysis JSON, Chrome traces, classify --json) goes
// through here, so a kernel name with control characters or invalid UTF-8 never breaks a file.
#include <string>
#include <string_view>

namespace headroom::util {

// Appends s as a quoted JSON string; invalid UTF-8 bytes become U+FFFD.
void append_json_string(std::string& out, std::string_view s);
std::string json_string(std::string_view s);

}  // namespace headroom::util
