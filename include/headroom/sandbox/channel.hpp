#pragma once
// The framed messages between `headroom eval` and its workers (docs/eval.md, "Processes"):
//   "HRW1" | u32 header bytes | u64 payload bytes | header (JSON text) | payload (tensor bytes)
// Reads take a deadline, so a hung worker becomes a timeout, never a hung harness.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::sandbox {

struct message {
  std::string header;  // a JSON object
  std::vector<std::byte> payload;  // concatenated tensor bytes, described by the header
};

enum class read_status { ok, timeout, closed, malformed };

// A payload region both ends of a channel hold: a memfd the parent creates before it starts the
// worker, which inherits it. Payloads of 4 MiB and more are written into it at offset 0 (it grows
// when needed, never shrinks) and read from it, so its pages stay allocated from one message to the
// next; a new file in /dev/shm per message had every page allocated again (2.4-3 s per 6 GiB on the
// H200 host). A channel without one (fd -1) uses those files.
struct shared_region {
  int fd = -1;
};
// A new region (memfd, close-on-exec, sealed so that it can grow but never shrink), or fd -1 where
// memfd_create or sealing is refused.
shared_region make_shared_region(const char* name);

struct read_result {
  read_status status = read_status::closed;
  message msg;
  std::string problem;  // what was malformed
};

// Writes the whole message (retrying short writes and EINTR). False when the reader is gone.
bool write_message(int fd, const message& m);
// The same with the payload gathered from `parts` as it is written: tensors of gigabytes go out
// without first being copied into one buffer.
bool write_message(int fd, std::string_view header, std::span<const std::span<const std::byte>> parts);
// The same through `via` (when it has a region), the bulk copy shared among `threads` (0: the
// machine's cores). Only one message may be in flight on a region: the protocol's strict
// request-then-answer order guarantees that the reader is done before the next write.
bool write_message(int fd, std::string_view header, std::span<const std::span<const std::byte>> parts,
                   const shared_region& via, unsigned threads = 1);
// Blocks until a whole message arrived, the deadline passed, or the writer closed the pipe. The
// payload is read into `reuse`'s storage when it is large enough: the buffer of an earlier
// payload, whose pages are already mapped (faulting in fresh pages costs more than the copy).
// A payload in a file is copied out by `copy_threads` threads (0: the machine's cores; the threads
// of the process's installed chunk_pool where it has one, as the worker does: a thread of its own
// started and joined for a copy could hide a candidate's background thread from the count that
// detects it).
read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
                         std::vector<std::byte> reuse = {}, unsigned copy_threads = 1, const shared_region& via = {});
// The same with the buffer chosen once the payload's size is known: `take(bytes)` returns one to
// read into (used when its capacity holds the payload), e.g. from a buffer_pool.
using buffer_source = std::function<std::vector<std::byte>(std::uint64_t bytes)>;
read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
                         const buffer_source& take, unsigned copy_threads, const shared_region& via = {});

// Maps the pages of fresh memory (a buffer just reserved) before it is first written: one call per
// 64 MiB slice, over `threads` threads, instead of a page fault per page (Linux 5.14 and later;
// elsewhere nothing), asking for huge pages first. Gigabyte payloads cost more in faults than in
// copying.
void prefault(std::byte* data, std::size_t size, unsigned threads = 1);

inline constexpr std::uint64_t max_header_bytes = 64u << 20;
inline constexpr std::uint64_t max_payload_bytes = 64ull << 30;

}  // namespace headroom::sandbox
