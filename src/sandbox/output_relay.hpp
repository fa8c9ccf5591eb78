#pragma once
// The sandboxed program's stdout and stderr, relayed to its log by the supervisor with a cap: a
// candidate that prints gigabytes fills neither the disk nor the log (docs/eval.md, "Sandbox"). The
// first `cap` bytes are written as they come; beyond them the output is dropped and counted, and its
// last `keep_tail` bytes are kept, so that a crash's last words still reach the log.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::sandbox {

class output_relay {
 public:
  static constexpr std::size_t keep_tail = 64 << 10;
  output_relay(int log_fd, std::uint64_t cap) : fd_(log_fd), cap_(cap) {}
  void feed(std::string_view bytes);
  // Writes the note of what was dropped (when anything was) and the kept tail.
  void finish();
  std::uint64_t dropped() const { return dropped_; }

 private:
  void write_out(std::string_view bytes);
  int fd_;
  std::uint64_t cap_;
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  std::string tail_;  // a ring of the last keep_tail dropped bytes, oldest at tail_start_
  std::size_t tail_start_ = 0;
};

// The note output_relay::finish writes; the parent reads the count back from the log's tail.
std::string dropped_note(std::uint64_t dropped, std::uint64_t cap);
// The count in a log tail holding a note, 0 without one.
std::uint64_t dropped_from_log(std::string_view log_tail);

}  // namespace headroom::sandbox
