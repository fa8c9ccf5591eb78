#include "byte_source.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::trace::detail {
namespace {

class file_input final : public raw_input {
 public:
  explicit file_input(const std::filesystem::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw input_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
      ::close(fd_);
      throw input_error(fmt::format("{}: is a directory, not a trace file", path.string()));
    }
    regular_ = S_ISREG(st.st_mode);
    total_ = regular_ ? static_cast<std::uint64_t>(st.st_size) : 0;
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~file_input() override { ::close(fd_); }

  std::size_t read(char* dst, std::size_t n) override {
    std::size_t done = 0;
    if (!peeked_.empty()) {
      done = std::min(n, peeked_.size());
      std::memcpy(dst, peeked_.data(), done);
      peeked_.erase(0, done);
    }
    while (done < n) {
      const ssize_t got = ::read(fd_, dst + done, n - done);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw input_error(fmt::format("{}: read failed: {}", path_.string(), std::strerror(errno)));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

  std::uint64_t total() const override { return total_; }
  bool regular() const override { return regular_; }

  std::string_view peek(std::size_t n) override {
    while (peeked_.size() < n) {
      char tmp[4096];
      const ssize_t got = ::read(fd_, tmp, std::min(sizeof tmp, n - peeked_.size()));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw input_error(fmt::format("{}: read failed: {}", path_.string(), std::strerror(errno)));
      if (got == 0) break;
      peeked_.append(tmp, static_cast<std::size_t>(got));
    }
    return std::string_view(peeked_).substr(0, n);
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t total_ = 0;
  std::string peeked_;
};

class memory_input final : public raw_input {
 public:
  explicit memory_input(std::string_view bytes) : bytes_(bytes) {}
  std::size_t read(char* dst, std::size_t n) override {
    const std::size_t k = std::min(n, bytes_.size() - pos_);
    std::memcpy(dst, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  std::uint64_t total() const override { return bytes_.size(); }
  std::string_view peek(std::size_t n) override { return bytes_.substr(pos_, n); }
  bool regular() const override { return false; }
  bool in_memory() const override { return true; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

class plain_source final : public byte_source {
 public:
  explicit plain_source(std::unique_ptr<raw_input> in) : in_(std::move(in)) {}
  std::size_t read(char* dst, std::size_t n) override {
    const std::size_t k = in_->read(dst, n);
    consumed_ += k;
    return k;
  }
  std::uint64_t consumed() const override { return consumed_; }
  std::uint64_t total() const override { return in_->total(); }
  bool compressed() const override { return false; }

 private:
  std::unique_ptr<raw_input> in_;
  std::uint64_t consumed_ = 0;
};

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

}  // namespace

std::unique_ptr<raw_input> open_file(const std::filesystem::path& path) { return std::make_unique<file_input>(path); }

std::unique_ptr<byte_source> open_source(std::unique_ptr<raw_input> in, const source_options& options) {
  if (!has_gzip_magic(in->peek(2))) return std::make_unique<plain_source>(std::move(in));
  const bool file = !in->in_memory();
  auto source =
      options.inflater == gzip_inflater::zlib ? make_zlib_source(std::move(in)) : make_isal_source(std::move(in));
  // A file's gzip is inflated on a thread ahead of the parser where a core is likely free for it.
  // Plain JSON is not: the thread would only add a copy of every byte to a read() the kernel does.
  const bool ahead = options.read_ahead.value_or(usable_cpus() >= 4);
  return ahead && file ? make_read_ahead_source(std::move(source)) : std::move(source);
}

std::unique_ptr<byte_source> open_file_source(const std::filesystem::path& path, const source_options& options) {
  return open_source(open_file(path), options);
}

std::unique_ptr<byte_source> open_memory_source(std::string_view bytes, const source_options& options) {
  return open_source(std::make_unique<memory_input>(bytes), options);
}

}  // namespace headroom::trace::detail
