#pragma once
// What `headroom profile` asks of the injection library, read from the environment the launcher
// sets (docs/profiler.md lists the variables). Parsing only, no CUPTI calls: tested on the CPU.
// Bad values never stop the host program: each becomes a default plus a problem line, which the
// session prints once and writes into the stream as a warning.
#include <cupti_activity.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::cupti {

// The launcher's names for groups of activity kinds (HEADROOM_PROFILE_KINDS).
enum class profile_kind : std::uint32_t {
  kernel = 1u << 0,
  memcpy = 1u << 1,
  memset = 1u << 2,
  runtime = 1u << 3,
  driver = 1u << 4,
  nvtx = 1u << 5,
  overhead = 1u << 6,
  sync = 1u << 7,
};
inline constexpr std::uint32_t all_profile_kinds = (1u << 8) - 1;

// When records are taken (HEADROOM_PROFILE_CAPTURE): the whole process, or only between the
// program's cudaProfilerStart and cudaProfilerStop (torch.cuda.profiler.start/stop), as nsys's
// --capture-range=cudaProfilerApi.
enum class capture_range { whole, profiler_api };

// What the program's cudaProfilerStop ends (HEADROOM_PROFILE_CAPTURE_END, with a capture range):
// `repeat` (the default), one range, recording starts again at the next cudaProfilerStart; `stop`,
// the recording: the stream is closed and CUPTI detached (cuptiFinalize), so the rest of the
// process runs as if never profiled. Once API calls were traced, CUPTI left attached but idle slowed
// later steps by about 1% on DLRM inference, for torch.profiler too (bench/RESULTS.md, "Profiler overhead").
enum class capture_end { repeat, stop };

// Which runtime and driver API calls are recorded (HEADROOM_PROFILE_API): all but the queries that
// launch, copy and wait for nothing (cudaGetDevice, cudaGetLastError, cudaStreamIsCapturing,
// cuCtxGetCurrent, ...), which frameworks call several times per kernel (the default: on DLRM
// training it took the in-process overhead from +6.8% to +2.1%, bench/RESULTS.md), or every one.
enum class api_calls { all, launches };

// Who clears CUPTI's activity buffers (HEADROOM_PROFILE_ZEROING): our pool, when a buffer comes
// back, off the program's threads (the default, activity_buffers.hpp), or CUPTI itself each time
// it takes one, on whichever thread asked (CUPTI's default; kept for the A/B that measures it).
enum class buffer_zeroing { pool, cupti };

// Where the GPU writes the timestamps of kernels, copies and memsets before CUPTI turns them into
// records (HEADROOM_PROFILE_TIMESTAMPS): device memory (CUPTI's default since CUDA 12.0 Update 1)
// or page-locked host memory (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED), for the A/B.
enum class timestamp_memory { device, pinned };

// Who records the runtime and driver API calls (HEADROOM_PROFILE_API_RECORDS): CUPTI's RUNTIME and
// DRIVER activity kinds (its own records, in its activity buffers), or our callbacks on the calls
// that are recorded (api_call_log.hpp: a timestamp at entry and exit, appended to the thread's ring).
enum class api_recorder { activity, callback };

// How CUPTI's RUNTIME and DRIVER records are switched on under --api launches
// (HEADROOM_PROFILE_API_ENABLE): `kind` (the default), the whole kind, then each query call
// switched off (cuptiActivityEnableRuntimeApi(cbid, 0)); or `calls`, each recorded call switched on
// by itself with the kind left off (cbid, 1). `calls` records the launches of a whole-process run
// (gpu_profile_normal passes), but inside a capture range, enabled after the context exists, it
// recorded no API call at all (docs/profiler.md, "Which API calls, and when"), so settings_from_env refuses it
// there. An experiment, not the default.
enum class api_enabling { kind, calls };

// Which thread id CUPTI writes into its records (HEADROOM_PROFILE_THREAD_IDS): the OS thread id
// (`system`, the default: the trace store's threads are OS thread ids) or CUPTI's default, the
// pthread handle (`pthread`), which needs no system call per record. An experiment for the overhead
// A/B: under `pthread` the store's thread ids are pthread handles, not OS thread ids.
enum class thread_ids { system, pthread };

struct profile_settings {
  std::filesystem::path dir;  // HEADROOM_PROFILE_DIR; empty: do not profile
  std::uint32_t kinds = all_profile_kinds;
  capture_range capture = capture_range::whole;
  capture_end end = capture_end::repeat;
  api_calls api = api_calls::launches;
  std::chrono::milliseconds flush_period{500};
  std::size_t buffer_pool_bytes = std::size_t{64} << 20;
  std::size_t buffer_bytes = std::size_t{8} << 20;  // one CUPTI activity buffer
  buffer_zeroing zeroing = buffer_zeroing::pool;
  timestamp_memory timestamps = timestamp_memory::device;
  api_recorder api_records = api_recorder::activity;
  api_enabling api_enable = api_enabling::kind;
  thread_ids threads = thread_ids::system;
  std::int32_t rank = -1;
  std::vector<std::string> problems;  // values that were ignored, and why

  std::size_t buffer_count() const { return buffer_pool_bytes / buffer_bytes; }
};

// getenv, or a map in tests: returns nullptr when the variable is unset.
using env_lookup = std::function<const char*(const char*)>;

profile_settings settings_from_env(const env_lookup& env);

// "kernel,memcpy": the kinds named; unknown names are added to `problems`. Empty: all kinds.
std::uint32_t parse_profile_kinds(std::string_view list, std::vector<std::string>& problems);

// The CUPTI activity kinds to enable for `kinds`. Kernels are always CONCURRENT_KERNEL (KIND_KERNEL
// serialises the GPU); DEVICE is always enabled, since the trace needs the device properties.
std::vector<CUpti_ActivityKind> activity_kinds(std::uint32_t kinds);

// True for a runtime or driver API name (as cuptiGetCallbackName gives it) that `api_calls::launches`
// leaves out: it queries or sets host-side state and puts no work on a device.
bool is_query_api(std::string_view name);

// /proc/self/cmdline with its NUL separators as spaces, at most `limit` bytes; "" when unreadable.
std::string process_command_line(std::size_t limit = 4096);

}  // namespace headroom::cupti
