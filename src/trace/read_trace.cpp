// Picks the reader from a file's first bytes (never its name): gzip or '{' is Kineto JSON, SQLite
// is an Nsight Systems export or our store, told apart by their tables.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "byte_source.hpp"
#include "headroom/trace/kineto.hpp"
#include "headroom/trace/reader.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/error.hpp"
#include "json_scan.hpp"
#include "headroom/store/sqlite.hpp"

namespace headroom::trace {
namespace sqlite = headroom::store::sqlite;
namespace {

std::string first_bytes(const std::filesystem::path& path, std::size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw input_error(fmt::format("{}: is a directory, not a trace file", path.string()));
  }
  std::string bytes(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::read(fd, bytes.data() + got, n - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += static_cast<std::size_t>(k);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace

file_format detect_format(const std::filesystem::path& path) {
  const std::string head = first_bytes(path, 4096);
  if (detail::has_gzip_magic(head)) return file_format::kineto_json_gz;
  static constexpr std::string_view sqlite_magic{"SQLite format 3\0", 16};
  if (std::string_view(head).starts_with(sqlite_magic)) {
    sqlite::database db(path, sqlite::open_mode::read_only);
    if (db.has_table("headroom_meta")) return file_format::sqlite_headroom;
    if (db.has_table("CUPTI_ACTIVITY_KIND_KERNEL") || db.has_table("StringIds")) return file_format::sqlite_nsys;
    return file_format::unknown;
  }
  std::size_t i = 0;
  if (std::string_view(head).starts_with("\xEF\xBB\xBF")) i = 3;  // UTF-8 byte order mark
  while (i < head.size() && detail::is_json_space(head[i])) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[')) return file_format::kineto_json;
  return file_format::unknown;
}

trace read_trace(const std::filesystem::path& path, const read_options& options) {
  switch (detect_format(path)) {
    case file_format::kineto_json:
    case file_format::kineto_json_gz:
      return read_kineto_json(path, options);
    case file_format::sqlite_nsys:
      return read_nsys_sqlite(path, options);
    case file_format::sqlite_headroom:
      return read_store(path);
    case file_format::unknown:
      break;
  }
  throw input_error(fmt::format(
      "{}: not a trace headroom reads (expected Kineto JSON, .json.gz, an Nsight Systems SQLite export "
      "or a headroom trace store)",
      path.string()));
}

}  // namespace headroom::trace
