#pragma once
// `headroom profile`: runs a command with the CUPTI injection library loaded into every CUDA process
// it starts, then merges the per-process event streams they leave into one trace store. The
// launcher itself needs no CUDA: the driver loads the library through CUDA_INJECTION64_PATH.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/trace/event_stream.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::profile {

struct profile_options {
  std::vector<std::string> command;  // argv; command[0] is looked up on PATH
  std::filesystem::path output;  // empty: headroom-<YYYYmmdd-HHMMSS>.sqlite in the working directory
  std::string kinds;  // HEADROOM_PROFILE_KINDS; empty: the library's default (all)
  std::string api;  // HEADROOM_PROFILE_API: "" or "launches", or "all"
  std::string capture;  // HEADROOM_PROFILE_CAPTURE: "" or "whole", or "cudaProfilerApi"
  std::string capture_end;  // HEADROOM_PROFILE_CAPTURE_END: "" or "repeat", or "stop" (needs cudaProfilerApi)
  bool nvtx = true;  // route NVTX through CUPTI (NVTX_INJECTION64_PATH)
  bool keep_streams = false;
};

// The injection library: $HEADROOM_INJECT_LIB, else <dir of this executable>/../lib/libheadroom_inject.so.
// Throws input_error when neither exists.
std::filesystem::path find_inject_library();

// Checks a comma list of kernel,memcpy,memset,runtime,driver,nvtx,overhead,sync; throws input_error.
void check_kinds(const std::string& kinds);

struct merged_streams {
  trace::trace trace;
  std::size_t streams = 0;  // streams that contributed (one per profiled process)
  trace::event_stream_counters counters;  // summed over the streams
};

// Reads every *.hrs in `folder` (one per process) into one trace, ordered by rank then pid, with
// each stream's process, rank and devices kept. A torn stream keeps what was flushed (with the
// reader's warning); one that cannot be read at all becomes a warning, never an exception.
merged_streams merge_streams(const std::filesystem::path& folder);

// The whole of `headroom profile`: runs the command, waits, merges, writes the store, prints the
// summary line to stderr. Returns the command's shell status (127 when it could not be run).
int run_profile(const profile_options& options);

}  // namespace headroom::profile
