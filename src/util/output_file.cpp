#include "headroom/util/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::util {
namespace {

std::string describe(const std::filesystem::path& p) { return p.empty() || p == "-" ? "standard output" : p.string(); }

[[noreturn]] void fail(const std::filesystem::path& target, std::string_view why) {
  throw input_error(fmt::format("cannot write {}: {}", describe(target), why));
}

// A stream buffer over a file descriptor that keeps the first error's errno, so a failed write is
// reported with its cause (std::ofstream keeps only a bit).
class fd_buffer final : public std::streambuf {
 public:
  explicit fd_buffer(int fd) : fd_(fd), buffer_(std::size_t{1} << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (drain() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain(); }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n >= static_cast<std::streamsize>(buffer_.size())) {
      if (drain() != 0 || !write_all(s, static_cast<std::size_t>(n))) return 0;
      return n;
    }
    return std::streambuf::xsputn(s, n);
  }

 private:
  int drain() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    const bool ok = write_all(pbase(), n);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok ? 0 : -1;
  }
  bool write_all(const char* p, std::size_t n) {
    if (error_ != 0) return false;
    while (n > 0) {
      const ssize_t k = ::write(fd_, p, n);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        error_ = k < 0 ? errno : EIO;
        return false;
      }
      p += k;
      n -= static_cast<std::size_t>(k);
    }
    return true;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

// Named temporary files that exist right now (only where O_TMPFILE is unavailable), removed by the
// handler of SIGINT, SIGTERM and SIGHUP before the signal takes its default course.
constexpr std::size_t max_named = 16;
std::array<std::array<char, 4096>, max_named> named_paths{};
std::array<std::atomic<bool>, max_named> named_used{};

extern "C" void remove_named_and_reraise(int sig) {
  for (std::size_t i = 0; i < max_named; ++i) {
    if (named_used[i].load()) ::unlink(named_paths[i].data());
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int register_named(const std::string& path) {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      // A handler someone else installed (or an ignored signal) stays as it is.
      if (old.sa_handler == SIG_DFL) std::signal(sig, remove_named_and_reraise);
    }
    return true;
  }();
  (void)installed;
  for (std::size_t i = 0; i < max_named; ++i) {
    if (named_used[i].load()) continue;
    std::snprintf(named_paths[i].data(), named_paths[i].size(), "%s", path.c_str());
    named_used[i].store(true);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_named(int slot) {
  if (slot >= 0) named_used[static_cast<std::size_t>(slot)].store(false);
}

std::string random_suffix() {
  std::random_device rd;
  return fmt::format("{:08x}", rd());
}

}  // namespace

struct output_file::state {
  enum class mode { standard_output, in_place, atomic } how = mode::atomic;
  std::filesystem::path target;
  std::filesystem::path folder;
  int fd = -1;
  bool unnamed = false;  // O_TMPFILE: the file has no name until commit
  std::string named;  // the named temporary file otherwise
  int named_slot = -1;
  mode_t keep_mode = 0;  // an existing target's permissions, kept by the new file
  bool committed = false;
  std::unique_ptr<fd_buffer> buffer;
  std::unique_ptr<std::ostream> out;

  ~state() {
    if (fd >= 0 && how != mode::standard_output) ::close(fd);
    if (!committed && !named.empty()) ::unlink(named.c_str());
    unregister_named(named_slot);
  }

  void open_temporary() {
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
      fail(target, errno == ENOENT ? fmt::format("folder {} does not exist", folder.string()) : std::strerror(errno));
    ::close(dir);
    fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      unnamed = true;
      return;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(target, std::strerror(errno));
    // No O_TMPFILE here: a hidden name beside the target.
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      named = (folder / fmt::format(".{}.tmp-{}", target.filename().string(), random_suffix())).string();
      fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) fail(target, std::strerror(errno));
    }
    if (fd < 0) fail(target, "no free temporary name in its folder");
    named_slot = register_named(named);
  }

  void publish() {
    if (keep_mode != 0 && ::fchmod(fd, keep_mode) != 0) fail(target, std::strerror(errno));
    if (::fsync(fd) != 0) fail(target, std::strerror(errno));
    if (unnamed) {
      // Linked under a hidden name first: linkat cannot replace the target, rename can.
      const std::string proc = fmt::format("/proc/self/fd/{}", fd);
      for (int attempt = 0; attempt < 16; ++attempt) {
        named = (folder / fmt::format(".{}.tmp-{}", target.filename().string(), random_suffix())).string();
        if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
        if (errno != EEXIST) fail(target, std::strerror(errno));
        named.clear();
      }
      if (named.empty()) fail(target, "no free temporary name in its folder");
    }
    if (::rename(named.c_str(), target.c_str()) != 0) fail(target, std::strerror(errno));
    named.clear();
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
};

output_file::output_file(const std::filesystem::path& target, std::span<const std::filesystem::path> inputs)
    : s_(std::make_unique<state>()) {
  s_->target = target;
  if (target.empty() || target == "-") {
    s_->how = state::mode::standard_output;
    return;
  }
  struct stat own {};
  const bool exists = ::lstat(target.c_str(), &own) == 0;
  if (!exists && errno != ENOENT) fail(target, std::strerror(errno));
  if (exists && S_ISLNK(own.st_mode)) {
    // A link to a pipe or a device (/dev/stdout, /dev/null) is a stream; a link to a file is not
    // followed, since replacing the file it names is not what the link's owner meant.
    struct stat pointed {};
    if (::stat(target.c_str(), &pointed) != 0 || S_ISREG(pointed.st_mode) || S_ISDIR(pointed.st_mode)) {
      fail(target, "it is a symbolic link (headroom does not write through links; give the file it points to)");
    }
    own = pointed;
  }
  if (exists && S_ISDIR(own.st_mode)) fail(target, "it is a folder");
  if (exists) {
    for (const auto& in : inputs) {
      struct stat other {};
      if (::stat(in.c_str(), &other) == 0 && other.st_dev == own.st_dev && other.st_ino == own.st_ino) {
        fail(target, fmt::format("it is also an input ({}); write the output elsewhere", in.string()));
      }
    }
  }
  if (exists && !S_ISREG(own.st_mode)) {
    // A pipe or a device is written where it is; there is nothing to replace atomically.
    s_->how = state::mode::in_place;
    s_->fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (s_->fd < 0) fail(target, std::strerror(errno));
  } else {
    s_->folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    if (exists) s_->keep_mode = own.st_mode & 07777;
    s_->open_temporary();
  }
  s_->buffer = std::make_unique<fd_buffer>(s_->fd);
  s_->out = std::make_unique<std::ostream>(s_->buffer.get());
}

output_file::~output_file() = default;

std::ostream& output_file::stream() { return s_->how == state::mode::standard_output ? std::cout : *s_->out; }

std::string output_file::name() const { return describe(s_->target); }

void output_file::commit() {
  if (s_->committed) return;
  if (s_->how == state::mode::standard_output) {
    finish_standard_output();
    s_->committed = true;
    return;
  }
  s_->out->flush();
  if (s_->buffer->error() != 0) fail(s_->target, std::strerror(s_->buffer->error()));
  if (!*s_->out) fail(s_->target, "write failed");
  if (s_->how == state::mode::atomic) s_->publish();
  const int fd = std::exchange(s_->fd, -1);
  if (::close(fd) != 0 && s_->how == state::mode::in_place) fail(s_->target, std::strerror(errno));
  s_->committed = true;
}

void finish_standard_output() {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (failed) {
    const int e = errno;
    std::clearerr(stdout);
    std::cout.clear();
    throw input_error(fmt::format("cannot write standard output: {}", e != 0 ? std::strerror(e) : "write failed"));
  }
}

}  // namespace headroom::util
