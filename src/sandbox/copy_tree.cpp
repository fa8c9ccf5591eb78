#include "copy_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

namespace headroom::sandbox {
namespace {

struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

bool copy_file(int from, int to, copy_report& r, std::uint64_t max_bytes) {
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(from, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.error = std::string("read: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    r.bytes += static_cast<std::uint64_t>(n);
    if (r.bytes > max_bytes) {
      r.error = "more than " + std::to_string(max_bytes) + " bytes";
      return false;
    }
    for (ssize_t at = 0; at < n;) {
      ssize_t w = ::write(to, buf.data() + at, static_cast<std::size_t>(n - at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        r.error = std::string("write: ") + std::strerror(errno);
        return false;
      }
      at += w;
    }
  }
}

bool copy_dir(int from, int to, copy_report& r, std::uint64_t max_bytes, int depth) {
  if (depth > 64) {
    r.error = "folders nested deeper than 64";
    return false;
  }
  int listing = ::dup(from);
  if (listing < 0) {
    r.error = std::string("dup: ") + std::strerror(errno);
    return false;
  }
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::fdopendir(listing), ::closedir);
  if (!dir) {
    ::close(listing);
    r.error = std::string("fdopendir: ") + std::strerror(errno);
    return false;
  }
  while (dirent* e = ::readdir(dir.get())) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    // O_NOFOLLOW and O_NONBLOCK: a link is not followed and a FIFO does not block; fstat on what was
    // opened decides, so an entry swapped between a check and the open cannot mislead the copy.
    fd_closer src{::openat(from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    struct stat st {};
    if (src.fd < 0 || ::fstat(src.fd, &st) != 0) {
      ++r.skipped;  // a link (ELOOP), a socket, or gone
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (::mkdirat(to, name.c_str(), 0755) != 0) {
        r.error = "mkdir " + name + ": " + std::strerror(errno);
        return false;
      }
      fd_closer dst{::openat(to, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
      if (dst.fd < 0 || !copy_dir(src.fd, dst.fd, r, max_bytes, depth + 1)) {
        if (r.error.empty()) r.error = "open " + name + ": " + std::strerror(errno);
        return false;
      }
    } else if (S_ISREG(st.st_mode)) {
      int flags = ::fcntl(src.fd, F_GETFL);
      ::fcntl(src.fd, F_SETFL, flags & ~O_NONBLOCK);
      mode_t mode = (st.st_mode & 0111) ? 0755 : 0644;  // no set-id bits, nothing writable by others
      fd_closer dst{::openat(to, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)};
      if (dst.fd < 0) {
        r.error = "create " + name + ": " + std::strerror(errno);
        return false;
      }
      if (!copy_file(src.fd, dst.fd, r, max_bytes)) return false;
      ::fchmod(dst.fd, mode);
      ++r.files;
    } else {
      ++r.skipped;
    }
  }
  return true;
}

}  // namespace

copy_report copy_tree(const std::string& from, const std::string& to, std::uint64_t max_bytes) {
  copy_report r;
  fd_closer src{::open(from.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (src.fd < 0) {
    r.error = "open " + from + ": " + std::strerror(errno);
    return r;
  }
  std::filesystem::path target(to);
  std::filesystem::path fresh =
      target.parent_path() / (target.filename().string() + ".partial-" + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::remove_all(fresh, ec);
  std::filesystem::create_directories(target.parent_path(), ec);
  if (::mkdir(fresh.c_str(), 0755) != 0) {
    r.error = "mkdir " + fresh.string() + ": " + std::strerror(errno);
    return r;
  }
  {
    fd_closer dst{::open(fresh.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    if (dst.fd < 0 || !copy_dir(src.fd, dst.fd, r, max_bytes, 0)) {
      if (r.error.empty()) r.error = "open " + fresh.string() + ": " + std::strerror(errno);
      std::filesystem::remove_all(fresh, ec);
      return r;
    }
  }
  std::filesystem::remove_all(target, ec);
  if (::rename(fresh.c_str(), target.c_str()) != 0) {
    r.error = "rename to " + target.string() + ": " + std::strerror(errno);
    std::filesystem::remove_all(fresh, ec);
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace headroom::sandbox
