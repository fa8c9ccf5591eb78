#include "byte_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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

class gzip_source final : public byte_source {
 public:
  explicit gzip_source(std::unique_ptr<raw_input> in) : in_(std::move(in)), buffer_(std::size_t{1} << 20) {
    // 15 + 16: gzip wrapper only (the caller saw its magic).
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();
  }
  ~gzip_source() override { inflateEnd(&z_); }

  std::size_t read(char* dst, std::size_t n) override {
    std::size_t done = 0;
    while (done < n && !finished_) {
      if (z_.avail_in == 0) {
        const std::size_t k = in_->read(buffer_.data(), buffer_.size());
        consumed_ += k;
        if (k == 0) {
          // Input ended inside a member: the file was cut short.
          if (member_started_) damage_ = fmt::format("gzip stream ends early at compressed byte {}", consumed_);
          finished_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(buffer_.data());
        z_.avail_in = static_cast<uInt>(k);
      }
      if (!member_started_) {
        // A member after the first must start with the magic; anything else is trailing padding.
        if (members_ > 0 && !(z_.avail_in >= 1 && z_.next_in[0] == 0x1f)) {
          finished_ = true;
          break;
        }
        member_started_ = true;
      }
      z_.next_out = reinterpret_cast<Bytef*>(dst + done);
      z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n - done, 1u << 30));
      const std::size_t before = z_.avail_out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      done += before - z_.avail_out;
      if (rc == Z_STREAM_END) {
        // Concatenated gzip members are one stream (gzip -c a b > c).
        ++members_;
        member_started_ = false;
        inflateReset(&z_);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const std::uint64_t at = consumed_ - z_.avail_in;
        damage_ = fmt::format("corrupt gzip data near compressed byte {}: {}", at,
                              z_.msg != nullptr ? z_.msg : "inflate failed");
        finished_ = true;
      }
    }
    return done;
  }
  std::uint64_t consumed() const override { return consumed_ - z_.avail_in; }
  std::uint64_t total() const override { return in_->total(); }
  bool compressed() const override { return true; }

 private:
  std::unique_ptr<raw_input> in_;
  std::vector<char> buffer_;
  z_stream z_{};
  std::uint64_t consumed_ = 0;
  std::uint64_t members_ = 0;
  bool member_started_ = false;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<raw_input> open_file(const std::filesystem::path& path) { return std::make_unique<file_input>(path); }

std::unique_ptr<byte_source> open_source(std::unique_ptr<raw_input> in) {
  if (has_gzip_magic(in->peek(2))) return std::make_unique<gzip_source>(std::move(in));
  return std::make_unique<plain_source>(std::move(in));
}

std::unique_ptr<byte_source> open_file_source(const std::filesystem::path& path) { return open_source(open_file(path)); }

std::unique_ptr<byte_source> open_memory_source(std::string_view bytes) {
  return open_source(std::make_unique<memory_input>(bytes));
}

}  // namespace headroom::trace::detail
