#include "writer_lock.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "headroom/util/error.hpp"

namespace headroom::store {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, std::string_view why) {
  throw input_error(fmt::format("{}: {}", path.string(), why));
}

}  // namespace

writer_lock::writer_lock(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) refuse(path, fmt::format("cannot open: {}", std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      refuse(path,
             "another headroom process is writing this results store (a second `headroom eval` or "
             "`headroom reverify` with the same --db); wait for it to end, give another --db, or share "
             "a PostgreSQL store (docs/scale.md)");
    }
    refuse(path, fmt::format("cannot lock: {}", std::strerror(err)));
  }
}

writer_lock::~writer_lock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace headroom::store
