// gzip as a byte_source: concatenated members read as one stream (gzip -c a b > c), padding after
// the last member ignored, a cut or corrupt stream ending the bytes early with damage() saying
// where. Two inflaters share that logic: ISA-L's igzip (the default, 2.7x zlib's speed on trace
// JSON) and zlib (the baseline of bench/gzip_throughput.sh).
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "byte_source.hpp"

namespace headroom::trace::detail {
namespace {

class gzip_source : public byte_source {
 public:
  explicit gzip_source(std::unique_ptr<raw_input> in) : in_(std::move(in)), buffer_(std::size_t{1} << 20) {}

  std::size_t read(char* dst, std::size_t n) override {
    std::size_t done = 0;
    while (done < n && !finished_) {
      if (avail_in_ == 0) {
        const std::size_t k = in_->read(buffer_.data(), buffer_.size());
        consumed_ += k;
        if (k == 0) {
          // Input ended inside a member: the file was cut short.
          if (member_started_) damage_ = fmt::format("gzip stream ends early at compressed byte {}", consumed_);
          finished_ = true;
          break;
        }
        next_in_ = reinterpret_cast<const unsigned char*>(buffer_.data());
        avail_in_ = k;
      }
      if (!member_started_) {
        // A member after the first must start with the magic; anything else is trailing padding.
        if (members_ > 0 && next_in_[0] != 0x1f) {
          finished_ = true;
          break;
        }
        member_started_ = true;
      }
      const std::size_t room = std::min<std::size_t>(n - done, std::size_t{1} << 30);
      const step s = inflate_into(dst + done, room);
      done += s.produced;
      if (s.result == outcome::member_end) {
        ++members_;
        member_started_ = false;
        reset_member();
      } else if (s.result == outcome::corrupt) {
        damage_ = fmt::format("corrupt gzip data near compressed byte {}: {}", consumed(), s.error);
        finished_ = true;
      }
    }
    return done;
  }
  std::uint64_t consumed() const override { return consumed_ - avail_in_; }
  std::uint64_t total() const override { return in_->total(); }
  bool compressed() const override { return true; }

 protected:
  enum class outcome { more, member_end, corrupt };
  struct step {
    std::size_t produced;
    outcome result;
    std::string error;
  };
  // Inflates from next_in_/avail_in_ (advancing them) into dst, at most n bytes.
  virtual step inflate_into(char* dst, std::size_t n) = 0;
  virtual void reset_member() = 0;

  const unsigned char* next_in_ = nullptr;
  std::size_t avail_in_ = 0;

 private:
  std::unique_ptr<raw_input> in_;
  std::vector<char> buffer_;
  std::uint64_t consumed_ = 0;
  std::uint64_t members_ = 0;
  bool member_started_ = false;
  bool finished_ = false;
};

class isal_source final : public gzip_source {
 public:
  explicit isal_source(std::unique_ptr<raw_input> in)
      : gzip_source(std::move(in)), state_(std::make_unique<inflate_state>()) {
    reset_member();
  }

 private:
  step inflate_into(char* dst, std::size_t n) override {
    state_->next_in = const_cast<std::uint8_t*>(next_in_);
    state_->avail_in = static_cast<std::uint32_t>(std::min<std::size_t>(avail_in_, UINT32_MAX));
    const std::size_t offered = state_->avail_in;
    state_->next_out = reinterpret_cast<std::uint8_t*>(dst);
    state_->avail_out = static_cast<std::uint32_t>(n);
    const int rc = isal_inflate(state_.get());
    next_in_ += offered - state_->avail_in;
    avail_in_ -= offered - state_->avail_in;
    const std::size_t produced = n - state_->avail_out;
    if (rc < 0) return {produced, outcome::corrupt, error_text(rc)};
    if (state_->block_state == ISAL_BLOCK_FINISH) return {produced, outcome::member_end, {}};
    return {produced, outcome::more, {}};
  }

  void reset_member() override {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;  // parses the gzip header and checks the trailer's CRC and size
  }

  static std::string error_text(int rc) {
    switch (rc) {
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER:
        return "incorrect header check";
      case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
      default:
        return fmt::format("inflate failed ({})", rc);
    }
  }

  std::unique_ptr<inflate_state> state_;
};

class zlib_source final : public gzip_source {
 public:
  explicit zlib_source(std::unique_ptr<raw_input> in) : gzip_source(std::move(in)) {
    // 15 + 16: gzip wrapper only (the caller saw its magic).
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();
  }
  ~zlib_source() override { inflateEnd(&z_); }

 private:
  step inflate_into(char* dst, std::size_t n) override {
    z_.next_in = const_cast<Bytef*>(next_in_);
    z_.avail_in = static_cast<uInt>(std::min<std::size_t>(avail_in_, UINT32_MAX));
    const std::size_t offered = z_.avail_in;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(n);
    const int rc = inflate(&z_, Z_NO_FLUSH);
    next_in_ += offered - z_.avail_in;
    avail_in_ -= offered - z_.avail_in;
    const std::size_t produced = n - z_.avail_out;
    if (rc == Z_STREAM_END) return {produced, outcome::member_end, {}};
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      return {produced, outcome::corrupt, z_.msg != nullptr ? z_.msg : "inflate failed"};
    return {produced, outcome::more, {}};
  }

  void reset_member() override { inflateReset(&z_); }

  z_stream z_{};
};

}  // namespace

std::unique_ptr<byte_source> make_isal_source(std::unique_ptr<raw_input> in) {
  return std::make_unique<isal_source>(std::move(in));
}

std::unique_ptr<byte_source> make_zlib_source(std::unique_ptr<raw_input> in) {
  return std::make_unique<zlib_source>(std::move(in));
}

}  // namespace headroom::trace::detail
