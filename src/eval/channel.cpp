#include "headroom/eval/channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "phase_trace.hpp"

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

// Large payloads (KernelBench tensors reach gigabytes) travel through a file in shared memory: one
// bulk copy on each side, pages populated in one call, instead of a pipe's megabyte at a time.
// The frame then carries the file's name; the reader unlinks it as soon as it is mapped.
constexpr std::uint64_t in_file_flag = 1ull << 63;
constexpr std::uint64_t file_threshold = 4u << 20;

const std::string& shm_dir() {
  static const std::string dir = [] {
    if (const char* d = std::getenv("HEADROOM_SHM_DIR")) return std::string(d);  // "" turns files off
    return access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string();
  }();
  return dir;
}

// Writes `data` to a new file in shm_dir(); returns its path, or "" when that is not possible.
std::string write_payload_file(const std::vector<std::byte>& data) {
  if (shm_dir().empty()) return "";
  phase_trace trace("write payload file");
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string path = shm_dir() + "/headroom-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                     std::to_string(rd());
  int f = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (f < 0) return "";
  bool ok = ftruncate(f, static_cast<off_t>(data.size())) == 0;
  void* map = ok ? mmap(nullptr, data.size(), PROT_WRITE, MAP_SHARED | MAP_POPULATE, f, 0) : MAP_FAILED;
  ::close(f);
  if (map == MAP_FAILED) {
    unlink(path.c_str());
    return "";
  }
  std::memcpy(map, data.data(), data.size());
  munmap(map, data.size());
  return path;
}

bool read_payload_file(const std::string& path, std::vector<std::byte>& out, std::uint64_t size) {
  phase_trace trace("read payload file");
  int f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f < 0) return false;
  unlink(path.c_str());
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f, 0);
  ::close(f);
  if (map == MAP_FAILED) return false;
  out.resize(size);
  std::memcpy(out.data(), map, size);
  munmap(map, size);
  return true;
}

}  // namespace

bool write_message(int fd, const message& m) {
  char prefix[16];
  std::memcpy(prefix, magic, 4);
  auto header_bytes = static_cast<std::uint32_t>(m.header.size());
  auto payload_bytes = static_cast<std::uint64_t>(m.payload.size());
  std::string file = payload_bytes >= file_threshold ? write_payload_file(m.payload) : std::string();
  std::uint64_t field = file.empty() ? payload_bytes : (payload_bytes | in_file_flag);
  std::memcpy(prefix + 4, &header_bytes, 4);
  std::memcpy(prefix + 8, &field, 8);
  bool ok = write_all(fd, prefix, sizeof prefix) && write_all(fd, m.header.data(), m.header.size());
  if (file.empty()) return ok && write_all(fd, m.payload.data(), m.payload.size());
  auto path_bytes = static_cast<std::uint32_t>(file.size());
  ok = ok && write_all(fd, &path_bytes, 4) && write_all(fd, file.data(), file.size());
  if (!ok) unlink(file.c_str());
  return ok;
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
  bool in_file = (payload_bytes & in_file_flag) != 0;
  payload_bytes &= ~in_file_flag;
  if (std::memcmp(prefix, magic, 4) != 0 || header_bytes > max_header_bytes || payload_bytes > max_payload_bytes) {
    out.status = read_status::malformed;
    out.problem = "bad frame prefix";
    return out;
  }
  out.msg.header.resize(header_bytes);
  out.status = read_all(fd, out.msg.header.data(), header_bytes, deadline);
  if (out.status != read_status::ok) return out;
  if (!in_file) {
    out.msg.payload.resize(payload_bytes);
    out.status = read_all(fd, out.msg.payload.data(), payload_bytes, deadline);
    return out;
  }
  std::uint32_t path_bytes = 0;
  out.status = read_all(fd, &path_bytes, 4, deadline);
  if (out.status != read_status::ok) return out;
  std::string path(path_bytes > 4096 ? 0 : path_bytes, '\0');
  if (path_bytes > 4096 || (out.status = read_all(fd, path.data(), path_bytes, deadline)) != read_status::ok ||
      path.rfind(shm_dir() + "/headroom-", 0) != 0 || shm_dir().empty()) {
    if (out.status == read_status::ok) {
      out.status = read_status::malformed;
      out.problem = "a payload file outside the shared-memory folder";
    }
    return out;
  }
  if (!read_payload_file(path, out.msg.payload, payload_bytes)) {
    out.status = read_status::malformed;
    out.problem = "payload file " + path + " could not be read";
  }
  return out;
}

}  // namespace headroom::eval
