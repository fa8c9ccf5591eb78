// Picks the reader from a file's first bytes (never its name): gzip or '{' is Kineto JSON, SQLite
// is an Nsight Systems export or our store, told apart by their tables. The file is opened once
// and its first bytes are read as part of the stream, so a pipe reads like a file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "byte_source.hpp"
#include "headroom/trace/reader.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "json_scan.hpp"
#include "headroom/store/sqlite.hpp"

namespace headroom::trace {
namespace sqlite = headroom::store::sqlite;
namespace {

constexpr std::size_t sniff_bytes = 4096;
constexpr std::string_view sqlite_magic{"SQLite format 3\0", 16};

enum class byte_kind { gzip, sqlite, json, unknown };

byte_kind kind_of(std::string_view head) {
  if (detail::has_gzip_magic(head)) return byte_kind::gzip;
  if (head.starts_with(sqlite_magic)) return byte_kind::sqlite;
  std::size_t i = 0;
  if (head.starts_with("\xEF\xBB\xBF")) i = 3;  // UTF-8 byte order mark
  while (i < head.size() && detail::is_json_space(head[i])) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[')) return byte_kind::json;
  return byte_kind::unknown;
}

file_format sqlite_format(const std::filesystem::path& path) {
  sqlite::database db(path, sqlite::open_mode::read_only);
  if (db.has_table("headroom_meta")) return file_format::sqlite_headroom;
  if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL") || db.has_table("StringIds")) return file_format::sqlite_nsys;
  return file_format::unknown;
}

// SQLite reads a file by its path; a database arriving through a pipe is copied into a private
// temporary folder first (named after the input, so messages still say which), removed afterwards.
class spooled_copy {
 public:
  spooled_copy(detail::raw_input& in, const std::filesystem::path& origin) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/headroom-XXXXXX", tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw input_error(fmt::format("{}: cannot make a temporary copy of a piped database: {}", origin.string(),
                                    std::strerror(errno)));
    }
    folder_ = pattern;
    path_ = folder_ / (origin.filename().empty() ? std::filesystem::path("input.sqlite") : origin.filename());
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail(origin, std::strerror(errno));
    std::string buffer(std::size_t{1} << 20, '\0');
    for (;;) {
      const std::size_t got = in.read(buffer.data(), buffer.size());
      if (got == 0) break;
      for (std::size_t done = 0; done < got;) {
        const ssize_t k = ::write(fd, buffer.data() + done, got - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
          const int e = errno;
          ::close(fd);
          fail(origin, std::strerror(e));
        }
        done += static_cast<std::size_t>(k);
      }
    }
    if (::close(fd) != 0) fail(origin, std::strerror(errno));
  }
  ~spooled_copy() {
    std::error_code ec;
    std::filesystem::remove_all(folder_, ec);
  }
  spooled_copy(const spooled_copy&) = delete;
  spooled_copy& operator=(const spooled_copy&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::filesystem::path& origin, std::string_view why) {
    std::error_code ec;
    std::filesystem::remove_all(folder_, ec);
    throw input_error(fmt::format("{}: cannot make a temporary copy of a piped database in {}: {}", origin.string(),
                                  folder_.parent_path().string(), why));
  }
  std::filesystem::path folder_;
  std::filesystem::path path_;
};

[[noreturn]] void not_a_trace(const std::filesystem::path& path) {
  throw input_error(
      fmt::format("{}: not a trace headroom reads (expected Kineto JSON, .json.gz, an Nsight Systems SQLite export "
                  "or a headroom trace store)",
                  path.string()));
}

trace read_sqlite(const std::filesystem::path& path, file_format format, const read_options& options,
                  const std::filesystem::path& origin) {
  switch (format) {
    case file_format::sqlite_headroom:
      return read_store(path);
    case file_format::sqlite_nsys:
      return read_nsys_sqlite(path, options);
    default:
      not_a_trace(origin);
  }
}

}  // namespace

file_format detect_format(const std::filesystem::path& path) {
  auto in = detail::open_file(path);
  switch (kind_of(in->peek(sniff_bytes))) {
    case byte_kind::gzip:
      return file_format::kineto_json_gz;
    case byte_kind::json:
      return file_format::kineto_json;
    case byte_kind::sqlite:
      return in->regular() ? sqlite_format(path) : file_format::unknown;
    case byte_kind::unknown:
      break;
  }
  return file_format::unknown;
}

trace read_trace(const std::filesystem::path& path, const read_options& options) {
  auto in = detail::open_file(path);
  switch (kind_of(in->peek(sniff_bytes))) {
    case byte_kind::gzip:
    case byte_kind::json: {
      read_options o = options;
      if (o.launch_pairs_for_json) {
        // A multi-GB Kineto trace holds about one API call per kernel: keep only the launch pairs.
        o.api_calls = false;
        o.launch_calls = true;
      }
      auto source = detail::open_source(std::move(in));
      return detail::read_kineto_source(*source, path.string(), o);
    }
    case byte_kind::sqlite: {
      if (in->regular()) {
        in.reset();
        return read_sqlite(path, sqlite_format(path), options, path);
      }
      const spooled_copy copy(*in, path);
      return read_sqlite(copy.path(), sqlite_format(copy.path()), options, path);
    }
    case byte_kind::unknown:
      break;
  }
  not_a_trace(path);
}

}  // namespace headroom::trace
