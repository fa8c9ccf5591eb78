#pragma once
// The live session's state and the pieces that act on it, one file each (private to the injection
// library; cupti_session.hpp is what injection.cpp sees):
//   cupti_session.cpp        start and stop, abandoning CUPTI to another client
//   cupti_flush.cpp          activity buffers in and out, the flush thread, closing the stream
//   cupti_signals.cpp        SIGTERM/SIGINT chained to the host's handlers, fork, exit
//   cupti_kinds.cpp          which activity kinds and API calls CUPTI records
//   cupti_callbacks.cpp      CUPTI's callbacks: our API records, device reset, fatal errors
//   cupti_capture_range.cpp  --capture-range cudaProfilerApi and --capture-range-end stop
#include <cupti.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "activity_buffers.hpp"
#include "api_call_log.hpp"
#include "cupti_convert.hpp"
#include "cupti_session.hpp"
#include "headroom/trace/event_stream.hpp"

namespace headroom::cupti::detail {

inline constexpr const char* other_client_message =
    "another CUPTI client is active (torch.profiler, nsys, ncu?); this process runs unprofiled";
// Calls a thread may make between two flushes (HEADROOM_PROFILE_API_RECORDS=callback): 64 Ki calls
// of 40 bytes, 2.5 MiB a calling thread; the busiest workloads make about 20,000 a second.
inline constexpr std::size_t api_ring_records = std::size_t{1} << 16;

struct session {
  profile_settings settings;
  pid_t owner = 0;
  std::filesystem::path path;
  std::unique_ptr<trace::event_stream_writer> writer;

  // The converter is not thread-safe, and CUPTI may complete buffers on any thread.
  std::mutex convert_mutex;
  std::unique_ptr<activity_converter> converter;
  bool closed = false;  // stream closed: later buffers are discarded
  bool drop_logged = false;
  std::uint64_t refusals_reported = 0;

  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;

  // --capture-range cudaProfilerApi: the kinds are enabled between the program's profiler start
  // and stop calls only (DEVICE stays on throughout: the trace needs the device properties).
  std::mutex capture_mutex;
  std::vector<CUpti_ActivityKind> capture_kinds;  // what a start enables
  std::vector<CUpti_ActivityKind> capture_enabled;  // enabled now
  bool capturing = false;
  std::uint32_t capture_ranges = 0;
  bool capture_failure_logged = false;
  // HEADROOM_PROFILE_CAPTURE_END=stop: the first cudaProfilerStop asks the flush thread to close the
  // stream and detach CUPTI; no later start records anything.
  std::atomic<bool> detach_requested{false};
  std::atomic<bool> finalize_armed{false};  // the next runtime or driver call's exit calls cuptiFinalize

  std::unique_ptr<activity_buffer_pool> pool;
  std::atomic<bool> refusing{false};  // set once the stream is closed

  // HEADROOM_PROFILE_API_RECORDS=callback: API calls come from on_callback into api_log, for the
  // callback ids in api_callbacks, while recording_api is set (the whole process, or a capture range).
  std::unique_ptr<api_call_log> api_log;
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> api_callbacks;
  std::atomic<bool> recording_api{false};
  std::uint64_t api_drops_reported = 0;

  std::thread flusher;
  std::atomic<long> flusher_tid{0};
  std::mutex flusher_mutex;
  std::condition_variable flusher_wake;
  bool stop_flusher = false;
  std::atomic<int> fatal_signal{0};
  std::atomic<bool> signal_flushed{false};

  std::atomic<bool> stopping{false};
};

// Leaked on purpose: CUPTI and the flush thread may still touch it while static objects are
// destroyed, and std::thread's destructor would terminate the host if the thread were joinable.
extern session* g_session;
extern std::atomic<bool> g_forked_child;

// The session belongs to this process (not to a parent that forked it without exec).
bool owned_here(const session* s);
long current_tid();
// CUPTI's name of a callback id; empty when it has none.
std::string_view callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// cupti_flush.cpp
void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t size,
                               std::size_t valid_bytes);
void flush_now(session& s, std::uint32_t flag);
// Flushes what CUPTI still holds (FORCED: incomplete buffers too) and closes the stream with the
// trace's closing warnings; later buffers are discarded. Does nothing to a closed stream.
void close_stream(session& s);
void report_incomplete_stream(const session& s);
bool start_flusher(session& s);

// cupti_signals.cpp
void chain_signal_handlers();
void on_fork_child();
void at_exit();

// cupti_kinds.cpp
// The named callback ids of a domain (runtime or driver) that are query calls (`queries`) or not.
std::vector<CUpti_CallbackId> named_callbacks(CUpti_CallbackDomain domain, bool queries);
CUptiResult enable_kind(const session& s, CUpti_ActivityKind kind);
void disable_kind(const session& s, CUpti_ActivityKind kind);

// cupti_callbacks.cpp
inline constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> reset_callback{
    CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020};
inline constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> capture_callbacks[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop},
};
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
// The callback ids our callbacks record (HEADROOM_PROFILE_API_RECORDS=callback).
std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> recorded_callbacks(const profile_settings& settings);
void set_api_recording(session& s, bool on);

// cupti_capture_range.cpp
void capture_start(session& s);
void capture_stop(session& s);
void arm_detach(session& s);

}  // namespace headroom::cupti::detail
