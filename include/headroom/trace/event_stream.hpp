#pragma once
// The per-process event stream: what the profiler's injection library appends while the host
// process runs, and what the launcher turns into a trace store once it exits. An append-only file
// of checksummed frames, so whatever was flushed survives a crash or a signal (docs/event-stream.md
// is the layout).
//
// The writer runs inside someone else's process: it never throws and never aborts. Errors are
// return values, and the first one is kept for the session to report.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "headroom/trace/model.hpp"
#include "headroom/trace/reader.hpp"

namespace headroom::trace {

inline constexpr std::uint16_t event_stream_version = 1;

// Who wrote the stream; becomes the trace's one process_info.
struct event_stream_header {
  std::uint32_t pid = 0;
  std::int32_t rank = -1;  // distributed rank when the environment says so
  time_ns start = 0;  // on the events' clock, when the stream was opened
  std::string process_name;
  std::string host;
};

// Counts the profiler reports as increments; the reader sums them.
enum class event_counter : std::uint32_t {
  dropped_records = 1,  // lost by the profiler (CUPTI out of buffer space)
  overhead_records = 2,  // CUPTI overhead records (instrumentation, buffer flushes, ...)
  overhead_ns = 3,  // their total duration
  unconverted_records = 4,  // records of kinds headroom does not convert
  untimed_records = 5,  // activities without timestamps, skipped
};

struct event_stream_counters {
  std::uint64_t dropped_records = 0;
  std::uint64_t overhead_records = 0;
  std::uint64_t overhead_ns = 0;
  std::uint64_t unconverted_records = 0;
  std::uint64_t untimed_records = 0;
};

// Buffers records and writes them as whole frames, one write(2) per flush. Thread-safe. Names in
// the records passed in are ids returned by this writer's intern(), not ids of any trace.
class event_stream_writer {
 public:
  static constexpr std::size_t default_buffer_bytes = std::size_t{1} << 20;

  // Creates (or truncates) `path` and writes the header. On failure ok() is false, error() says
  // why, and every later call does nothing but count the records it could not keep.
  event_stream_writer(const std::filesystem::path& path, const event_stream_header& header,
                      std::size_t buffer_bytes = default_buffer_bytes) noexcept;
  ~event_stream_writer();  // flushes and closes
  event_stream_writer(const event_stream_writer&) = delete;
  event_stream_writer& operator=(const event_stream_writer&) = delete;

  // The stream's id for `s`; its definition is written before the first record that uses it.
  string_id intern(std::string_view s) noexcept;

  bool add(const activity& a) noexcept;
  bool add(const activity& a, const launch_geometry& g) noexcept;  // a kernel with its launch
  bool add(const api_call& c) noexcept;
  bool add(const range& r) noexcept;
  bool add(const synchronization& y) noexcept;
  bool add(const device_info& d) noexcept;  // d.name is text; interned here
  bool add_warning(std::string_view what, std::uint64_t count = 1) noexcept;
  bool add_counter(event_counter which, std::uint64_t delta) noexcept;

  // Writes what is buffered as one frame. Called by the owner's flush thread and at exit; the
  // writer also flushes by itself when the buffer fills.
  bool flush() noexcept;
  bool close() noexcept;  // flush, then close the file; later adds count as lost

  bool ok() const noexcept;
  std::string error() const;  // the first error, or ""
  std::uint64_t lost_records() const noexcept;  // records not written because of an error
  std::uint64_t bytes_written() const noexcept;

 private:
  char* reserve_locked(std::uint8_t kind, std::size_t body_bytes) noexcept;  // where the body goes
  bool end_record_locked() noexcept;
  string_id intern_locked(std::string_view s) noexcept;
  bool flush_locked() noexcept;
  void fail(std::string what) noexcept;

  mutable std::mutex mutex_;
  int fd_ = -1;
  std::string error_;
  std::string buffer_;  // the open frame: 12-byte frame header, then records
  std::size_t capacity_;
  std::size_t records_in_frame_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t written_ = 0;
  string_table strings_;
};

// Reads a stream into a trace with one process. A torn or corrupt tail (the process was killed
// mid-write) keeps everything before it and adds a warning; a damaged frame in the middle is
// skipped with a warning. Throws input_error for a file that is empty, not an event stream, or
// written by a newer format version. `counters`, when given, receives the summed counters.
trace read_event_stream(const std::filesystem::path& path, const read_options& options = {},
                        event_stream_counters* counters = nullptr);

}  // namespace headroom::trace
