#pragma once
// The framed messages between `headroom eval` and its workers (docs/eval.md, "Processes"):
//   "HRW1" | u32 header bytes | u64 payload bytes | header (JSON text) | payload (tensor bytes)
// Reads take a deadline, so a hung worker becomes a timeout, never a hung harness.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::eval {

struct message {
  std::string header;              // a JSON object
  std::vector<std::byte> payload;  // concatenated tensor bytes, described by the header
};

enum class read_status { ok, timeout, closed, malformed };

struct read_result {
  read_status status = read_status::closed;
  message msg;
  std::string problem;  // what was malformed
};

// Writes the whole message (retrying short writes and EINTR). False when the reader is gone.
bool write_message(int fd, const message& m);
// Blocks until a whole message arrived, the deadline passed, or the writer closed the pipe.
read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline);

inline constexpr std::uint64_t max_header_bytes = 64u << 20;
inline constexpr std::uint64_t max_payload_bytes = 64ull << 30;

}  // namespace headroom::eval
