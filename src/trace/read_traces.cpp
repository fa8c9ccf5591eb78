// The files of one job read into one trace: duplicates refused, partial files refused unless asked.
#include <sys/stat.h>

#include <fstream>
#include <string>

#include <fmt/format.h>

#include "headroom/trace/reader.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/progress.hpp"

namespace headroom::trace {
namespace {

struct identity {
  bool regular = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
};

identity identify(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return {true, st.st_dev, st.st_ino, st.st_size};
}

bool same_bytes(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  std::string p(std::size_t{1} << 16, '\0'), q(p.size(), '\0');
  while (x && y) {
    x.read(p.data(), static_cast<std::streamsize>(p.size()));
    y.read(q.data(), static_cast<std::streamsize>(q.size()));
    if (x.gcount() != y.gcount() ||
        p.compare(0, static_cast<std::size_t>(x.gcount()), q, 0, static_cast<std::size_t>(y.gcount())) != 0) {
      return false;
    }
  }
  return x.eof() && y.eof();
}

// Two arguments naming one file, or two files of the same bytes, would count one rank twice.
void refuse_duplicates(const std::vector<std::filesystem::path>& files) {
  std::vector<identity> ids;
  for (const auto& f : files) ids.push_back(identify(f));
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!ids[i].regular || !ids[j].regular) continue;
      if (ids[i].device == ids[j].device && ids[i].inode == ids[j].inode) {
        throw input_error(fmt::format("{} and {} are the same file: each trace counts once (one file per rank)",
                                      files[j].string(), files[i].string()));
      }
      if (ids[i].size == ids[j].size && same_bytes(files[i], files[j])) {
        throw input_error(fmt::format("{} and {} hold the same bytes: one trace given twice would count as two ranks",
                                      files[j].string(), files[i].string()));
      }
    }
  }
}

}  // namespace

trace read_traces(const std::vector<std::filesystem::path>& files, const inputs_options& options) {
  refuse_duplicates(files);
  trace merged;
  for (const auto& f : files) {
    util::terminal_progress progress("reading " + f.filename().string());
    read_options o = options.read;
    o.progress = progress.fn();
    auto t = read_trace(f, o);
    std::string lost;
    for (auto& w : t.warnings) {
      if (!w.lost) continue;
      lost += (lost.empty() ? "" : "; ") + w.what;
      w.what = fmt::format("{}: {}", f.string(), w.what);
    }
    if (!lost.empty() && !options.allow_partial) {
      throw input_error(fmt::format("{}: {} (--allow-partial uses what was read)", f.string(), lost));
    }
    if (t.processes.empty()) t.processes.push_back({0, f.filename().string(), -1, ""});
    append(merged, std::move(t));
  }
  return merged;
}

}  // namespace headroom::trace
