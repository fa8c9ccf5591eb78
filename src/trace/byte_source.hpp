#pragma once
// A forward-only stream of bytes from a file or from memory, inflating gzip (recognised by its magic
// bytes, never by the name) on the way. Damage (a corrupt or cut gzip stream) ends the stream early
// and is reported by damage(), so the caller keeps what decoded.
//
// A file is opened once: its first bytes are peeked at (to recognise its format) and then read as
// part of the stream, so a pipe (a FIFO, `<(zcat trace.json.gz)`) reads like a regular file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "headroom/trace/kineto.hpp"
#include "headroom/trace/model.hpp"
#include "headroom/trace/reader.hpp"

namespace headroom::trace::detail {

// Where compressed or plain bytes come from.
class raw_input {
 public:
  virtual ~raw_input() = default;
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  virtual std::uint64_t total() const = 0;  // 0 when unknown (a pipe)
  // The first bytes, without consuming them.
  virtual std::string_view peek(std::size_t n) = 0;
  // True for a regular file, which can be opened again by its path (SQLite needs that).
  virtual bool regular() const = 0;
  virtual bool in_memory() const { return false; }
};

class byte_source {
 public:
  virtual ~byte_source() = default;
  // Copies up to n bytes into dst; 0 means the end (or damage).
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  // Bytes of the underlying input used so far, and in all (compressed bytes for gzip).
  virtual std::uint64_t consumed() const = 0;
  virtual std::uint64_t total() const = 0;
  virtual bool compressed() const = 0;
  const std::string& damage() const { return damage_; }

 protected:
  std::string damage_;
};

struct source_options {
  gzip_inflater inflater = gzip_inflater::isal;
  std::optional<bool> read_ahead;  // kineto_tuning::read_ahead
};

// Throws input_error when the path is missing, a directory or unreadable.
std::unique_ptr<raw_input> open_file(const std::filesystem::path& path);
// Inflates gzip when the input starts with its magic.
std::unique_ptr<byte_source> open_source(std::unique_ptr<raw_input> in, const source_options& options = {});
std::unique_ptr<byte_source> open_file_source(const std::filesystem::path& path, const source_options& options = {});
// `bytes` must outlive the source.
std::unique_ptr<byte_source> open_memory_source(std::string_view bytes, const source_options& options = {});

// The pieces open_source puts together (gzip_source.cpp, read_ahead_source.cpp).
std::unique_ptr<byte_source> make_isal_source(std::unique_ptr<raw_input> in);
std::unique_ptr<byte_source> make_zlib_source(std::unique_ptr<raw_input> in);
std::unique_ptr<byte_source> make_read_ahead_source(std::unique_ptr<byte_source> inner);

// The Kineto JSON reader over an input read_trace has opened; `origin` names it in messages.
trace read_kineto_source(byte_source& source, std::string origin, const read_options& options);

inline bool has_gzip_magic(std::string_view first_bytes) {
  return first_bytes.size() >= 2 && static_cast<unsigned char>(first_bytes[0]) == 0x1f &&
         static_cast<unsigned char>(first_bytes[1]) == 0x8b;
}

}  // namespace headroom::trace::detail
