#include "headroom/eval/channel.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace headroom::eval {
namespace {

constexpr char magic[4] = {'H', 'R', 'W', '1'};

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes; waits with poll so the deadline holds between chunks.
read_status read_all(int fd, void* data, std::size_t size,
                     const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return read_status::timeout;
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 1 << 30));
    }
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return read_status::closed;
    }
    if (r == 0) return read_status::timeout;
    ssize_t n = ::read(fd, p, size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return read_status::closed;
    }
    if (n == 0) return read_status::closed;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return read_status::ok;
}

}  // namespace

bool write_message(int fd, const message& m) {
  char prefix[16];
  std::memcpy(prefix, magic, 4);
  auto header_bytes = static_cast<std::uint32_t>(m.header.size());
  auto payload_bytes = static_cast<std::uint64_t>(m.payload.size());
  std::memcpy(prefix + 4, &header_bytes, 4);
  std::memcpy(prefix + 8, &payload_bytes, 8);
  return write_all(fd, prefix, sizeof prefix) && write_all(fd, m.header.data(), m.header.size()) &&
         write_all(fd, m.payload.data(), m.payload.size());
}

read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
  read_result out;
  char prefix[16];
  out.status = read_all(fd, prefix, sizeof prefix, deadline);
  if (out.status != read_status::ok) return out;
  std::uint32_t header_bytes = 0;
  std::uint64_t payload_bytes = 0;
  std::memcpy(&header_bytes, prefix + 4, 4);
  std::memcpy(&payload_bytes, prefix + 8, 8);
  if (std::memcmp(prefix, magic, 4) != 0 || header_bytes > max_header_bytes || payload_bytes > max_payload_bytes) {
    out.status = read_status::malformed;
    out.problem = "bad frame prefix";
    return out;
  }
  out.msg.header.resize(header_bytes);
  out.msg.payload.resize(payload_bytes);
  out.status = read_all(fd, out.msg.header.data(), header_bytes, deadline);
  if (out.status == read_status::ok) out.status = read_all(fd, out.msg.payload.data(), payload_bytes, deadline);
  return out;
}

}  // namespace headroom::eval
