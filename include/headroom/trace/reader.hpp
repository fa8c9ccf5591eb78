#pragma once
// Reading traces: PyTorch profiler / Kineto JSON (plain or gzip, streamed), Nsight Systems SQLite
// exports, and our own trace store. read_trace picks the reader from the file's first bytes.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "headroom/trace/model.hpp"
#include "headroom/util/progress.hpp"

namespace headroom::trace {

struct read_options {
  bool api_calls = true;         // keep runtime/driver calls whole (analysis needs launch_calls only)
  bool launch_calls = false;     // without api_calls: keep their launch pairs in trace::launches
                                 // (Kineto JSON only; other readers ignore it)
  bool ranges = true;            // keep annotations, NVTX ranges and marks
  bool launch_geometry = false;  // fill trace::geometry
  util::progress_fn progress;    // bytes read so far, of the file's size
};

enum class file_format { kineto_json, kineto_json_gz, sqlite_nsys, sqlite_headroom, unknown };

// Looks at the file's first bytes (gzip magic, "SQLite format 3", '{') and, for SQLite, at its
// tables. Throws input_error when the file cannot be opened.
file_format detect_format(const std::filesystem::path& path);

// Throws input_error with the file name and, where it applies, the byte offset of the problem.
trace read_trace(const std::filesystem::path& path, const read_options& options = {});

trace read_kineto_json(const std::filesystem::path& path, const read_options& options = {});
trace read_nsys_sqlite(const std::filesystem::path& path, const read_options& options = {});

}  // namespace headroom::trace
