#pragma once
// Reading traces: PyTorch profiler / Kineto JSON (plain or gzip, streamed), Nsight Systems SQLite
// exports, and our own trace store. read_trace picks the reader from the file's first bytes, and
// reads a pipe (a FIFO, `<(zcat trace.json.gz)`) as it reads a file; read_traces reads the files of
// one job (one per rank) into one trace.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "headroom/trace/model.hpp"
#include "headroom/util/progress.hpp"

namespace headroom::trace {

struct read_options {
  bool api_calls = true;  // keep runtime/driver calls whole (analysis needs launch_calls only)
  bool launch_calls = false;  // without api_calls: keep their launch pairs in trace::launches
      // (Kineto JSON only; other readers ignore it)
  bool ranges = true;  // keep annotations, NVTX ranges and marks
  bool launch_geometry = false;  // fill trace::geometry
  // Kineto JSON: keep launch pairs instead of whole API calls (api_calls off, launch_calls on): what
  // analysis needs, at a fraction of the memory. Other formats keep their calls.
  bool launch_pairs_for_json = false;
  util::progress_fn progress;  // bytes read so far, of the file's size
};

enum class file_format { kineto_json, kineto_json_gz, sqlite_nsys, sqlite_headroom, unknown };

// Looks at the file's first bytes (gzip magic, "SQLite format 3", '{') and, for SQLite, at its
// tables. Throws input_error when the file cannot be opened. (Of a pipe it consumes those bytes.)
file_format detect_format(const std::filesystem::path& path);

// Throws input_error with the file name and, where it applies, the byte offset of the problem. A
// file cut short or partly unreadable is read as far as it goes, with a lost warning saying what
// was lost (trace::partial()).
trace read_trace(const std::filesystem::path& path, const read_options& options = {});

struct inputs_options {
  read_options read;  // for every file (its progress is drawn on a terminal)
  bool allow_partial = false;  // accept a file cut short or partly unreadable (its losses stay as warnings)
};

// Reads every file and merges them (trace::append): one process entry per traced process, so one
// file per rank gives one timeline per rank. Throws input_error when a file cannot be read, when
// two arguments are the same file or files of the same bytes (one rank given twice), and, unless
// allow_partial, when a file is partial: the message names the file and what was lost. The lost
// warnings of the merged trace name their file.
trace read_traces(const std::vector<std::filesystem::path>& files, const inputs_options& options = {});

trace read_kineto_json(const std::filesystem::path& path, const read_options& options = {});
trace read_nsys_sqlite(const std::filesystem::path& path, const read_options& options = {});

}  // namespace headroom::trace
