#include "headroom/util/read_file.hpp"

#include <fstream>
#include <sstream>

namespace headroom::util {

std::optional<std::string> read_file(const std::filesystem::path& path) {
  // A folder opens as a stream and reads as empty (the read's EISDIR is not reported): refuse it.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  // An empty file sets failbit on the copy above; only badbit says a read went wrong.
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

}  // namespace headroom::util
