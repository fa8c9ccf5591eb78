// The event stream's writer: records buffered into frames, one write(2) per flush, never throwing
// (it runs inside the profiled process).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "event_stream_format.hpp"
#include "headroom/trace/event_stream.hpp"

namespace headroom::trace {

using namespace stream_format;

namespace {

bool write_all(int fd, const char* data, std::size_t n, std::string& error) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      error = std::strerror(errno);
      return false;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

event_stream_writer::event_stream_writer(const std::filesystem::path& path, const event_stream_header& header,
                                         std::size_t buffer_bytes) noexcept
    : capacity_(std::max<std::size_t>(buffer_bytes, 4096)) {
  try {
    buffer_.reserve(capacity_ + 4096);
    buffer_.assign(frame_header_bytes, '\0');

    const auto name = std::string_view(header.process_name).substr(0, 4096);
    const auto host = std::string_view(header.host).substr(0, 4096);
    std::string h(header_fixed_bytes + 4 + name.size() + 4 + host.size() + 4, '\0');
    char* p = h.data();
    p = std::copy(std::begin(stream_magic), std::end(stream_magic), p);
    p = put<std::uint16_t>(p, event_stream_version);
    p = put<std::uint16_t>(p, 0);  // flags
    p = put<std::uint32_t>(p, static_cast<std::uint32_t>(h.size()));
    p = put<std::uint32_t>(p, header.pid);
    p = put<std::int32_t>(p, header.rank);
    p = put<std::int64_t>(p, header.start);
    p = put<std::uint32_t>(p, static_cast<std::uint32_t>(name.size()));
    p = std::copy(name.begin(), name.end(), p);
    p = put<std::uint32_t>(p, static_cast<std::uint32_t>(host.size()));
    p = std::copy(host.begin(), host.end(), p);
    const auto crc = header_crc(reinterpret_cast<const unsigned char*>(h.data()), h.size() - 4);
    put<std::uint32_t>(p, static_cast<std::uint32_t>(crc));

    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      fail(fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
      return;
    }
    std::string why;
    if (!write_all(fd_, h.data(), h.size(), why)) {
      fail(fmt::format("cannot write {}: {}", path.string(), why));
      return;
    }
    written_ = h.size();
  } catch (...) {
    fail("out of memory opening the event stream");
  }
}

event_stream_writer::~event_stream_writer() { close(); }

void event_stream_writer::fail(std::string what) noexcept {
  if (error_.empty()) error_ = std::move(what);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  lost_ += records_in_frame_;
  records_in_frame_ = 0;
  buffer_.resize(std::min(buffer_.size(), frame_header_bytes));
}

char* event_stream_writer::reserve_locked(std::uint8_t kind, std::size_t body_bytes) noexcept {
  if (fd_ < 0) {
    ++lost_;
    return nullptr;
  }
  const auto at = buffer_.size();
  try {
    buffer_.resize(at + 4 + body_bytes);
  } catch (...) {
    ++lost_;
    fail("out of memory buffering events");
    return nullptr;
  }
  ++records_in_frame_;
  char* p = buffer_.data() + at;
  return put<std::uint32_t>(p, static_cast<std::uint32_t>(kind) | static_cast<std::uint32_t>(body_bytes << 8));
}

bool event_stream_writer::end_record_locked() noexcept { return buffer_.size() < capacity_ || flush_locked(); }

string_id event_stream_writer::intern_locked(std::string_view s) noexcept {
  s = s.substr(0, max_record_body - 4);
  if (fd_ < 0) return 0;  // nothing more reaches the file; the records that use it count as lost
  try {
    const auto before = strings_.size();
    const string_id id = strings_.intern(s);
    if (id < before) return id;
    char* p = reserve_locked(rec_string, 4 + s.size());
    if (!p) return id;
    p = put<std::uint32_t>(p, id);
    std::copy(s.begin(), s.end(), p);
    return id;
  } catch (...) {
    fail("out of memory buffering events");
    return 0;
  }
}

string_id event_stream_writer::intern(std::string_view s) noexcept {
  std::lock_guard lock(mutex_);
  return intern_locked(s);
}

namespace {
char* put_activity(char* p, const activity& a) {
  p = put<std::int64_t>(p, a.start);
  p = put<std::int64_t>(p, a.end);
  p = put<std::uint64_t>(p, a.correlation);
  p = put<std::uint64_t>(p, a.bytes);
  p = put<std::uint32_t>(p, a.name);
  p = put<std::int32_t>(p, a.stream);
  p = put<std::int16_t>(p, a.device);
  p = put<std::uint8_t>(p, static_cast<std::uint8_t>(a.kind));
  p = put<std::uint8_t>(p, static_cast<std::uint8_t>(a.copy));
  return put<std::uint32_t>(p, a.graph_node);
}
}  // namespace

bool event_stream_writer::add(const activity& a) noexcept {
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_activity, activity_body);
  if (!p) return false;
  put_activity(p, a);
  return end_record_locked();
}

bool event_stream_writer::add(const activity& a, const launch_geometry& g) noexcept {
  // The geometry record describes the activity just before it: both are written under one lock,
  // and a frame closes only between adds, so they always share a frame.
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_activity, activity_body);
  if (!p) return false;
  put_activity(p, a);
  p = reserve_locked(rec_geometry, geometry_body);
  if (!p) return false;
  for (auto v : g.grid) p = put<std::uint32_t>(p, v);
  for (auto v : g.block) p = put<std::uint32_t>(p, v);
  p = put<std::uint32_t>(p, g.registers_per_thread);
  p = put<std::uint32_t>(p, g.static_shared_bytes);
  put<std::uint32_t>(p, g.dynamic_shared_bytes);
  return end_record_locked();
}

bool event_stream_writer::add(const api_call& c) noexcept {
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_api_call, api_call_body);
  if (!p) return false;
  p = put<std::int64_t>(p, c.start);
  p = put<std::int64_t>(p, c.end);
  p = put<std::uint64_t>(p, c.correlation);
  p = put<std::uint32_t>(p, c.name);
  p = put<std::uint32_t>(p, c.thread);
  p = put<std::uint8_t>(p, static_cast<std::uint8_t>(c.kind));
  std::fill_n(p, 3, '\0');
  return end_record_locked();
}

bool event_stream_writer::add(const range& r) noexcept {
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_range, range_body);
  if (!p) return false;
  p = put<std::int64_t>(p, r.start);
  p = put<std::int64_t>(p, r.end);
  p = put<std::uint32_t>(p, r.name);
  p = put<std::uint32_t>(p, r.thread);
  p = put<std::int16_t>(p, r.device);
  p = put<std::uint8_t>(p, static_cast<std::uint8_t>(r.kind));
  put<std::uint8_t>(p, 0);
  return end_record_locked();
}

bool event_stream_writer::add(const synchronization& y) noexcept {
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_synchronization, synchronization_body_with_record);
  if (!p) return false;
  p = put<std::int64_t>(p, y.start);
  p = put<std::int64_t>(p, y.end);
  p = put<std::uint64_t>(p, y.correlation);
  p = put<std::int64_t>(p, y.event);
  p = put<std::uint32_t>(p, y.context);
  p = put<std::uint32_t>(p, y.thread);
  p = put<std::int32_t>(p, y.stream);
  p = put<std::int16_t>(p, y.device);
  p = put<std::uint8_t>(p, static_cast<std::uint8_t>(y.kind));
  p = put<std::uint8_t>(p, 0);
  put<std::uint64_t>(p, y.record_correlation);
  return end_record_locked();
}

bool event_stream_writer::add(const device_info& d) noexcept {
  std::lock_guard lock(mutex_);
  const string_id name = intern_locked(d.name);
  char* p = reserve_locked(rec_device, device_body);
  if (!p) return false;
  p = put<std::int16_t>(p, d.id);
  p = put<std::uint16_t>(p, 0);
  p = put<std::int32_t>(p, d.compute_major);
  p = put<std::int32_t>(p, d.compute_minor);
  p = put<std::int32_t>(p, d.sm_count);
  p = put<std::uint64_t>(p, d.memory_bytes);
  put<std::uint32_t>(p, name);
  return end_record_locked();
}

bool event_stream_writer::add_warning(std::string_view what, std::uint64_t count) noexcept {
  what = what.substr(0, max_record_body - 8);
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_warning, 8 + what.size());
  if (!p) return false;
  p = put<std::uint64_t>(p, count);
  std::copy(what.begin(), what.end(), p);
  return end_record_locked();
}

bool event_stream_writer::add_counter(event_counter which, std::uint64_t delta) noexcept {
  std::lock_guard lock(mutex_);
  char* p = reserve_locked(rec_counter, counter_body);
  if (!p) return false;
  p = put<std::uint32_t>(p, static_cast<std::uint32_t>(which));
  put<std::uint64_t>(p, delta);
  return end_record_locked();
}

bool event_stream_writer::flush_locked() noexcept {
  if (fd_ < 0) return false;
  if (records_in_frame_ == 0) return true;
  const auto payload = buffer_.size() - frame_header_bytes;
  char* p = buffer_.data();
  p = std::copy(std::begin(frame_sync), std::end(frame_sync), p);
  p = put<std::uint32_t>(p, static_cast<std::uint32_t>(payload));
  const auto* bytes = reinterpret_cast<const unsigned char*>(buffer_.data());
  put<std::uint32_t>(p, frame_crc(bytes + 4, bytes + frame_header_bytes, payload));
  std::string why;
  if (!write_all(fd_, buffer_.data(), buffer_.size(), why)) {
    fail(fmt::format("cannot write the event stream: {}", why));
    return false;
  }
  written_ += buffer_.size();
  records_in_frame_ = 0;
  buffer_.resize(frame_header_bytes);
  return true;
}

bool event_stream_writer::flush() noexcept {
  std::lock_guard lock(mutex_);
  return flush_locked();
}

bool event_stream_writer::close() noexcept {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) return error_.empty();
  const bool flushed = flush_locked();
  if (fd_ >= 0 && ::close(fd_) != 0 && error_.empty()) error_ = std::strerror(errno);
  fd_ = -1;
  return flushed && error_.empty();
}

bool event_stream_writer::ok() const noexcept {
  std::lock_guard lock(mutex_);
  return error_.empty();
}

std::string event_stream_writer::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

std::uint64_t event_stream_writer::lost_records() const noexcept {
  std::lock_guard lock(mutex_);
  return lost_;
}

std::uint64_t event_stream_writer::bytes_written() const noexcept {
  std::lock_guard lock(mutex_);
  return written_;
}

}  // namespace headroom::trace
