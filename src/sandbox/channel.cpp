#include "headroom/sandbox/channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "headroom/util/parallel.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::sandbox {
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

// Large payloads (KernelBench tensors reach gigabytes) travel through the channel's shared region
// when it has one (the frame says so), else through a file in shared memory: one bulk copy on each
// side instead of a pipe's megabyte at a time. A file's frame carries its name; the reader unlinks
// it as soon as it is mapped.
constexpr std::uint64_t in_file_flag = 1ull << 63;
constexpr std::uint64_t in_region_flag = 1ull << 62;  // in the channel's shared_region
constexpr std::uint64_t file_threshold = 4u << 20;

const std::string& shm_dir() {
  static const std::string dir = [] {
    if (const char* d = std::getenv("HEADROOM_SHM_DIR")) return std::string(d);  // "" turns files off
    return access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string();
  }();
  return dir;
}

bool pwrite_all(int fd, std::span<const std::byte> data, std::uint64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data = data.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Writes the parts to a new file in shm_dir(); returns its path, or "" when that is not possible.
// pwrite, not a shared mapping: the kernel allocates the file's pages as it copies, where a
// mapping first faults each page in (0.3 s instead of 0.6 s per 512 MiB in a gVisor sandbox).
std::string write_payload_file(std::span<const std::span<const std::byte>> parts) {
  if (shm_dir().empty()) return "";
  util::phase_trace trace("write payload file");
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string path = shm_dir() + "/headroom-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                     std::to_string(rd());
  int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (f < 0) return "";
  bool ok = true;
  std::uint64_t at = 0;
  for (std::span<const std::byte> part : parts) {
    ok = ok && pwrite_all(f, part, at);
    at += part.size();
  }
  ::close(f);
  if (!ok) {
    unlink(path.c_str());
    return "";
  }
  return path;
}

// Bulk work on a payload goes in slices of 64 MiB shared among threads: page faults and copies
// both scale (two threads halve either on 512 MiB in a gVisor sandbox).
constexpr std::size_t slice_bytes = std::size_t{64} << 20;

void copy_bytes(std::byte* to, const std::byte* from, std::size_t size, unsigned threads) {
  util::copy_in_pieces(to, from, size, slice_bytes, threads);
}

// Copies `size` bytes of an open payload file (a /dev/shm file or the shared region) into `out`.
bool copy_out_of(int f, std::vector<std::byte>& out, std::uint64_t size, unsigned threads, int map_flags) {
  // Mapped beyond its end, a file shorter than the frame says would fault (SIGBUS) in the copy.
  struct stat st {};
  if (fstat(f, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < size) return false;
  // One thread maps the pages up front; several fault them in as they copy, which is faster.
  void* map = mmap(nullptr, size, PROT_READ, map_flags | (threads == 1 ? MAP_POPULATE : 0), f, 0);
  if (map == MAP_FAILED) return false;
  // A private copy: the writer could still change the file's pages after the answer arrived.
  if (out.capacity() < size) {  // fresh memory: populated before resize() zero-fills it
    out = {};
    out.reserve(size);
    prefault(out.data(), size, threads);
  }
  out.resize(size);
  copy_bytes(out.data(), static_cast<const std::byte*>(map), size, threads);
  munmap(map, size);
  return true;
}

bool read_payload_file(const std::string& path, std::vector<std::byte>& out, std::uint64_t size, unsigned threads) {
  util::phase_trace trace("read payload file");
  int f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f < 0) return false;
  unlink(path.c_str());
  bool ok = copy_out_of(f, out, size, threads, MAP_PRIVATE);
  ::close(f);
  return ok;
}

// Into the region's pages at offset 0; the region grows to the payload when smaller. Copied through
// a shared mapping, 64 MiB slices shared among threads: pwrite takes the file's lock, so threads
// writing the same memfd that way run one at a time (6 GiB took 1.5-3.4 s on the H200 host).
bool write_region(const shared_region& via, std::span<const std::span<const std::byte>> parts, std::uint64_t total,
                  unsigned threads) {
  util::phase_trace trace("write shared region");
  struct stat st {};
  if (fstat(via.fd, &st) != 0) return false;
  if (static_cast<std::uint64_t>(st.st_size) < total && ftruncate(via.fd, static_cast<off_t>(total)) != 0) return false;
  if (total == 0) return true;
  // The region is sealed against shrinking, so the mapping cannot lose its pages under the copy.
  void* map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, via.fd, 0);
  if (map == MAP_FAILED) return false;
  auto* to = static_cast<std::byte*>(map);
  std::uint64_t at = 0;
  for (std::span<const std::byte> part : parts) {
    copy_bytes(to + at, part.data(), part.size(), threads);
    at += part.size();
  }
  munmap(map, total);
  return true;
}

bool read_region(const shared_region& via, std::vector<std::byte>& out, std::uint64_t size, unsigned threads) {
  util::phase_trace trace("read shared region");
  return copy_out_of(via.fd, out, size, threads, MAP_SHARED);
}

}  // namespace

shared_region make_shared_region(const char* name) {
  shared_region r;
  r.fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  // Sealed against shrinking (and against further seals): a candidate holds its worker's regions
  // and could otherwise cut one short while the parent copies out of its mapping, which would kill
  // the parent with SIGBUS. Unsealable, it is not used.
  if (r.fd >= 0 && fcntl(r.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    ::close(r.fd);
    r.fd = -1;
  }
  return r;
}

void prefault(std::byte* data, std::size_t size, unsigned threads) {
#ifdef MADV_POPULATE_WRITE
  if (size == 0) return;
  // Huge pages where the kernel gives them on request (transparent_hugepage "madvise", as on the
  // H200 machine): one fault per 2 MiB instead of per 4 KiB. Single-threaded, 4 KiB pages were
  // mapped at 1.5-2.3 GB/s there (docs/device.md, "Memory traffic").
  if (size >= (std::size_t{2} << 20)) {
    const auto start = reinterpret_cast<std::uintptr_t>(data) & ~std::uintptr_t{4095};
    madvise(reinterpret_cast<void*>(start), reinterpret_cast<std::uintptr_t>(data) + size - start, MADV_HUGEPAGE);
  }
  util::for_each_piece(size, slice_bytes, threads, [&](std::size_t at, std::size_t n) {
    const auto start = reinterpret_cast<std::uintptr_t>(data + at);
    const auto end = reinterpret_cast<std::uintptr_t>(data + at + n);
    const auto page = start & ~std::uintptr_t{4095};
    madvise(reinterpret_cast<void*>(page), end - page, MADV_POPULATE_WRITE);
  });
#else
  (void)data, (void)size, (void)threads;
#endif
}

bool write_message(int fd, const message& m) {
  const std::span<const std::byte> payload(m.payload);
  return write_message(fd, m.header, std::span(&payload, 1));
}

bool write_message(int fd, std::string_view header, std::span<const std::span<const std::byte>> parts) {
  return write_message(fd, header, parts, shared_region{}, 1);
}

bool write_message(int fd, std::string_view header, std::span<const std::span<const std::byte>> parts,
                   const shared_region& via, unsigned threads) {
  char prefix[16];
  std::memcpy(prefix, magic, 4);
  auto header_bytes = static_cast<std::uint32_t>(header.size());
  std::uint64_t payload_bytes = 0;
  for (std::span<const std::byte> part : parts) payload_bytes += part.size();
  const bool big = payload_bytes >= file_threshold;
  const bool in_region = big && via.fd >= 0 && write_region(via, parts, payload_bytes, threads);
  std::string file = big && !in_region ? write_payload_file(parts) : std::string();
  std::uint64_t field = in_region      ? (payload_bytes | in_region_flag)
                        : file.empty() ? payload_bytes
                                       : (payload_bytes | in_file_flag);
  std::memcpy(prefix + 4, &header_bytes, 4);
  std::memcpy(prefix + 8, &field, 8);
  bool ok = write_all(fd, prefix, sizeof prefix) && write_all(fd, header.data(), header.size());
  if (in_region) return ok;
  if (file.empty()) {
    for (std::span<const std::byte> part : parts) ok = ok && write_all(fd, part.data(), part.size());
    return ok;
  }
  auto path_bytes = static_cast<std::uint32_t>(file.size());
  ok = ok && write_all(fd, &path_bytes, 4) && write_all(fd, file.data(), file.size());
  if (!ok) unlink(file.c_str());
  return ok;
}

read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
                         std::vector<std::byte> reuse, unsigned copy_threads, const shared_region& via) {
  return read_message(
      fd, deadline,
      [&](std::uint64_t bytes) { return reuse.capacity() >= bytes ? std::move(reuse) : std::vector<std::byte>(); },
      copy_threads, via);
}

read_result read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
                         const buffer_source& take, unsigned copy_threads, const shared_region& via) {
  read_result out;
  char prefix[16];
  out.status = read_all(fd, prefix, sizeof prefix, deadline);
  if (out.status != read_status::ok) return out;
  std::uint32_t header_bytes = 0;
  std::uint64_t payload_bytes = 0;
  std::memcpy(&header_bytes, prefix + 4, 4);
  std::memcpy(&payload_bytes, prefix + 8, 8);
  bool in_file = (payload_bytes & in_file_flag) != 0;
  bool in_region = (payload_bytes & in_region_flag) != 0;
  payload_bytes &= ~(in_file_flag | in_region_flag);
  if (std::memcmp(prefix, magic, 4) != 0 || header_bytes > max_header_bytes || payload_bytes > max_payload_bytes ||
      (in_file && in_region)) {
    out.status = read_status::malformed;
    out.problem = "bad frame prefix";
    return out;
  }
  out.msg.header.resize(header_bytes);
  out.status = read_all(fd, out.msg.header.data(), header_bytes, deadline);
  if (out.status != read_status::ok) return out;
  // Resized, not cleared: only what grows beyond the reused buffer's size is zero-filled. One too
  // small would be copied over on growing: it is not used.
  if (take) {
    std::vector<std::byte> reuse = take(payload_bytes);
    if (reuse.capacity() >= payload_bytes) out.msg.payload = std::move(reuse);
  }
  if (in_region) {
    if (via.fd < 0 || !read_region(via, out.msg.payload, payload_bytes, copy_threads)) {
      out.status = read_status::malformed;
      out.problem = via.fd < 0 ? "a payload in a shared region this channel does not have"
                               : "the shared region is shorter than the payload";
    }
    return out;
  }
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
  if (!read_payload_file(path, out.msg.payload, payload_bytes, copy_threads)) {
    out.status = read_status::malformed;
    out.problem = "payload file " + path + " could not be read";
  }
  return out;
}

}  // namespace headroom::sandbox
