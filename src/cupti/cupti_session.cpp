#include "cupti_session.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "activity_buffers.hpp"
#include "api_call_log.hpp"
#include "cupti_convert.hpp"
#include "headroom/trace/event_stream.hpp"

namespace headroom::cupti {
namespace {

constexpr const char* other_client_message =
    "another CUPTI client is active (torch.profiler, nsys, ncu?); this process runs unprofiled";
constexpr std::string_view dropped_warning =
    "CUPTI dropped activity records: no buffer space (raise HEADROOM_PROFILE_BUFFER_MB)";
constexpr std::string_view pool_warning =
    "the activity buffer pool was exhausted; CUPTI was refused a buffer and dropped what it could not store";
constexpr std::string_view api_drop_warning =
    "API calls were dropped: a thread made more calls between two flushes than its ring holds";
// Calls a thread may make between two flushes (HEADROOM_PROFILE_API_RECORDS=callback): 64 Ki calls
// of 40 bytes, 2.5 MiB a calling thread; the busiest workloads make about 20,000 a second.
constexpr std::size_t api_ring_records = std::size_t{1} << 16;

// The flush thread wakes this often to notice a stop or a fatal signal; it calls into CUPTI only
// once per flush period.
constexpr auto flusher_tick = std::chrono::milliseconds(20);
// Buffers the flush thread makes at its start (more are made on demand, up to the pool's bound):
// one being filled and one to take over when the flush hands the first back.
constexpr std::size_t prepared_buffers = 2;
// How long a fatal signal waits for the flush thread before the process dies as it would have.
constexpr int signal_flush_wait_ms = 2000;

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
  std::vector<CUpti_ActivityKind> capture_kinds;    // what a start enables
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
session* g_session = nullptr;
std::atomic<bool> g_forked_child{false};

bool owned_here(const session* s) {
  return s != nullptr && !g_forked_child.load(std::memory_order_relaxed) && ::getpid() == s->owner;
}

long current_tid() { return static_cast<long>(::syscall(SYS_gettid)); }

std::string_view callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  // Not checked through HEADROOM_CUPTI_TRY: an unknown id is expected and would flood stderr.
  if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr) return name;
  return {};
}

// Records the pool's refusals since the last report. Caller holds convert_mutex.
void report_refusals_locked(session& s) {
  const auto refusals = s.pool->refusals();
  if (refusals == s.refusals_reported) return;
  if (s.refusals_reported == 0) {
    log_line("the activity buffer pool (%zu MB) is exhausted; records are being dropped",
             s.settings.buffer_pool_bytes >> 20);
  }
  s.writer->add_warning(pool_warning, refusals - s.refusals_reported);
  s.refusals_reported = refusals;
}

// Counts what CUPTI could not record. Caller holds convert_mutex.
void collect_dropped_locked(session& s, CUcontext context, std::uint32_t stream) {
  std::size_t dropped = 0;
  if (!HEADROOM_CUPTI_TRY(cuptiActivityGetNumDroppedRecords(context, stream, &dropped)) || dropped == 0) return;
  s.converter->add_dropped(dropped);
  s.writer->add_warning(dropped_warning, dropped);
  if (!s.drop_logged) {
    s.drop_logged = true;
    log_line("CUPTI dropped %zu activity records (buffer space); the trace is incomplete", dropped);
  }
}

// Converts the API calls our callbacks staged since the last drain. Caller holds convert_mutex.
void drain_api_calls_locked(session& s) {
  if (!s.api_log) return;
  s.api_log->drain([&](const api_record& r) { s.converter->convert(reinterpret_cast<const CUpti_Activity&>(r)); });
  const auto dropped = s.api_log->dropped();
  if (dropped == s.api_drops_reported) return;
  if (s.api_drops_reported == 0) log_line("API calls are being dropped (a thread's ring of %zu calls filled between flushes)", s.api_log->ring_records());
  s.writer->add_warning(api_drop_warning, dropped - s.api_drops_reported);
  s.api_drops_reported = dropped;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;  // as many as fit
  session* s = g_session;
  if (!owned_here(s) || s->refusing.load(std::memory_order_acquire)) return;
  // None left: CUPTI drops records and counts them (cuptiActivityGetNumDroppedRecords); the pool
  // counts the refusal.
  *buffer = s->pool->take();
  if (*buffer != nullptr) *size = s->pool->buffer_bytes();
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_bytes) {
  session* s = g_session;
  if (s == nullptr) return;  // cannot happen: buffers only come from a session's pool
  if (owned_here(s)) {
    try {
      std::lock_guard lock(s->convert_mutex);
      if (!s->closed) {
        CUpti_Activity* record = nullptr;
        for (;;) {
          const auto result = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
          if (result == CUPTI_SUCCESS) {
            s->converter->convert(*record);
            continue;
          }
          // MAX_LIMIT_REACHED is the normal end; INVALID_KIND ends a buffer a forced flush cut short.
          if (result != CUPTI_ERROR_MAX_LIMIT_REACHED && result != CUPTI_ERROR_INVALID_KIND) {
            HEADROOM_CUPTI_TRY(result);
          }
          break;
        }
        collect_dropped_locked(*s, context, stream);
        report_refusals_locked(*s);
        s->writer->flush();
      }
    } catch (...) {
      // Only a failed lock or allocation lands here; the buffer goes back to the pool regardless.
    }
  }
  try {
    s->pool->give_back(buffer);
  } catch (...) {
    // A failed lock: the buffer is lost to the pool, never freed while CUPTI might hold it.
  }
}

void flush_now(session& s, std::uint32_t flag) {
  HEADROOM_CUPTI_TRY(cuptiActivityFlushAll(flag));
  try {
    std::lock_guard lock(s.convert_mutex);
    if (!s.closed) {
      drain_api_calls_locked(s);
      report_refusals_locked(s);
      s.writer->flush();
    }
  } catch (...) {
  }
}

// The trace's last word on a capture range that HEADROOM_PROFILE_CAPTURE_END=stop ended.
constexpr const char* capture_end_warning =
    "recording ended at the program's first cudaProfilerStop (HEADROOM_PROFILE_CAPTURE_END=stop); later "
    "cudaProfilerStart calls recorded nothing";

// Flushes what CUPTI still holds (FORCED: incomplete buffers too) and closes the stream with the
// trace's closing warnings; later buffers are discarded. Does nothing to a closed stream.
void close_stream(session& s) {
  {
    std::lock_guard lock(s.convert_mutex);
    if (s.closed) return;
  }
  HEADROOM_CUPTI_TRY(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  s.refusing.store(true, std::memory_order_release);
  s.recording_api.store(false);
  std::uint32_t ranges = 0;
  {
    std::lock_guard capture(s.capture_mutex);
    ranges = s.capture_ranges;
  }
  std::lock_guard lock(s.convert_mutex);
  if (s.closed) return;
  if (s.settings.capture == capture_range::profiler_api) {
    // Said in the trace, so that a reader knows the gaps are the program's choice.
    s.writer->add_warning(ranges == 0 ? std::string("recording was limited to cudaProfilerStart/Stop ranges and "
                                                     "the program never called cudaProfilerStart: nothing was recorded")
                                       : fmt::format("recording was limited to {} cudaProfilerStart/Stop range(s)", ranges));
    if (s.detach_requested.load()) s.writer->add_warning(capture_end_warning);
  }
  drain_api_calls_locked(s);
  collect_dropped_locked(s, nullptr, 0);
  report_refusals_locked(s);
  s.converter->finish();
  s.writer->close();
  s.closed = true;
}

void report_incomplete_stream(const session& s) {
  if (s.writer->lost_records() > 0 || !s.writer->error().empty()) {
    log_line("the event stream %s is incomplete: %s (%llu records lost)", s.path.c_str(), s.writer->error().c_str(),
             static_cast<unsigned long long>(s.writer->lost_records()));
  }
}

// HEADROOM_PROFILE_CAPTURE_END=stop, on the flush thread: the stream is closed, then the
// detach is armed. cupti_activity.h recommends calling cuptiFinalize at the exit of a CUDA runtime
// or driver call, from CUPTI's callback, once the records are flushed (NVIDIA's cupti_finalize
// sample does it so): every runtime and driver call gets our callback from here on, and the first
// to return calls it (on_callback). Afterwards the rest of the process pays nothing for having been
// recorded; nothing of ours calls CUPTI again, since any call would attach it again.
void arm_detach(session& s) {
  close_stream(s);
  s.stopping.store(true);  // the exit handler and a fatal signal find nothing left to flush
  report_incomplete_stream(s);
  s.finalize_armed.store(true);
  if (s.subscriber == nullptr) return;
  HEADROOM_CUPTI_TRY(cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API));
  HEADROOM_CUPTI_TRY(cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
}

// cuptiActivityFlushPeriod only returns full buffers, so a quiet process would deliver nothing
// until exit (profiling_anchors.md 1.2); a periodic FlushAll bounds what a kill can lose.
void flush_loop(session* s) {
  s->flusher_tid.store(current_tid());
  // Named, so that a look at the program's threads (top -H, /proc/<pid>/task) tells ours apart.
  pthread_setname_np(pthread_self(), "headroom-flush");
  // The first buffers are made here, their pages touched off the program's threads.
  try {
    s->pool->prepare(prepared_buffers);
  } catch (...) {
  }
  auto next = std::chrono::steady_clock::now() + s->settings.flush_period;
  std::chrono::steady_clock::time_point detach_at{};
  std::unique_lock lock(s->flusher_mutex);
  while (!s->stop_flusher) {
    s->flusher_wake.wait_for(lock, std::min<std::chrono::milliseconds>(flusher_tick, s->settings.flush_period));
    if (s->stop_flusher) break;
    if (s->fatal_signal.load() != 0) {
      lock.unlock();
      // The process is about to die: take incomplete buffers too.
      flush_now(*s, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      s->fatal_signal.store(0);
      s->signal_flushed.store(true);
      lock.lock();
      continue;
    }
    if (s->detach_requested.load()) {
      // One flush period after the program's cudaProfilerStop, so that the work it queued before
      // the stop has finished and its records are complete (work still running then is cut short).
      if (detach_at == std::chrono::steady_clock::time_point{}) {
        detach_at = std::chrono::steady_clock::now() + s->settings.flush_period;
      } else if (std::chrono::steady_clock::now() >= detach_at) {
        lock.unlock();
        flush_now(*s, 0);
        arm_detach(*s);
        return;
      }
    }
    if (std::chrono::steady_clock::now() < next) continue;
    lock.unlock();
    flush_now(*s, 0);
    lock.lock();
    next = std::chrono::steady_clock::now() + s->settings.flush_period;
  }
}

bool start_flusher(session& s) {
  // The flush thread must not take the host's signals: block them all while it is created, so it
  // inherits a full mask.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  bool started = true;
  try {
    s.flusher = std::thread(flush_loop, &s);
  } catch (...) {
    started = false;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!started) log_line("could not start the flush thread; records are written only as CUPTI fills buffers and at exit");
  return started;
}

// SIGTERM/SIGINT: chained, never replacing the host's handling. Only when the previous action would
// kill the process at once does the handler wait (bounded) for the flush thread's forced flush.
struct chained_signal {
  int number;
  struct sigaction previous;
  bool installed;
};
chained_signal g_chained[] = {{SIGTERM, {}, false}, {SIGINT, {}, false}};

void on_fatal_signal(int number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  chained_signal* chained = nullptr;
  for (auto& c : g_chained) {
    if (c.number == number && c.installed) chained = &c;
  }
  if (chained == nullptr) return;
  const auto& previous = chained->previous;
  const bool previous_is_default = !(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_DFL;

  session* s = g_session;
  if (previous_is_default && owned_here(s) && !s->stopping.load() && s->flusher_tid.load() != 0 &&
      s->flusher_tid.load() != current_tid()) {
    s->signal_flushed.store(false);
    s->fatal_signal.store(number);
    const timespec tick{0, 1'000'000};
    for (int waited = 0; waited < signal_flush_wait_ms && !s->signal_flushed.load(); ++waited) nanosleep(&tick, nullptr);
  }

  errno = saved_errno;
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(number, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    // Die as the host would have: default action, re-raised; delivered when this handler returns.
    sigaction(number, &previous, nullptr);
    raise(number);
  } else if (previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr) {
    previous.sa_handler(number);
  }
}

void chain_signal_handlers() {
  for (auto& c : g_chained) {
    struct sigaction current {};
    if (sigaction(c.number, nullptr, &current) != 0) continue;
    // An ignored signal (nohup) stays ignored: installing a handler would change what the host does.
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    c.previous = current;
    struct sigaction ours {};
    ours.sa_sigaction = on_fatal_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    c.installed = true;  // before the handler can run
    if (sigaction(c.number, &ours, nullptr) != 0) c.installed = false;
  }
}

void on_fork_child() { g_forked_child.store(true); }

void at_exit() { stop_session(); }

// The named callback ids of a domain (runtime or driver) that are query calls (`queries`) or that
// are not (is_query_api).
std::vector<CUpti_CallbackId> named_callbacks(CUpti_CallbackDomain domain, bool queries) {
  const CUpti_CallbackId size = domain == CUPTI_CB_DOMAIN_DRIVER_API
                                    ? static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE)
                                    : static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE);
  std::vector<CUpti_CallbackId> ids;
  for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
    const auto name = callback_name(domain, cbid);
    if (!name.empty() && is_query_api(name) == queries) ids.push_back(cbid);
  }
  return ids;
}

// The runtime (driver) calls recorded one by one under HEADROOM_PROFILE_API_ENABLE=calls: every
// named call but the queries. Found once by name (a capture range enables the kinds at every start).
const std::vector<CUpti_CallbackId>& recorded_calls(bool runtime) {
  static const auto runtime_calls = named_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, false);
  static const auto driver_calls = named_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, false);
  return runtime ? runtime_calls : driver_calls;
}

bool api_kind(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER;
}

bool call_by_call(const session& s, CUpti_ActivityKind kind) {
  return api_kind(kind) && s.settings.api == api_calls::launches && s.settings.api_enable == api_enabling::calls;
}

// Switches one recorded call of the RUNTIME (DRIVER) kind on or off; CUPTI_SUCCESS or its error.
CUptiResult enable_call(bool runtime, CUpti_CallbackId cbid, bool on) {
  return runtime ? cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0) : cuptiActivityEnableDriverApi(cbid, on ? 1 : 0);
}

// Enables an activity kind. RUNTIME and DRIVER under --api launches: either the whole kind, then
// the query calls switched off one by one (enabling a kind resets its per-call choices), or, with
// HEADROOM_PROFILE_API_ENABLE=calls, the recorded calls switched on one by one, the kind left off.
CUptiResult enable_kind(const session& s, CUpti_ActivityKind kind) {
  const bool runtime = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  if (call_by_call(s, kind)) {
    CUptiResult first_error = CUPTI_SUCCESS;
    std::size_t enabled = 0;
    for (CUpti_CallbackId cbid : recorded_calls(runtime)) {
      const auto result = enable_call(runtime, cbid, true);
      if (result == CUPTI_SUCCESS) {
        ++enabled;
      } else if (first_error == CUPTI_SUCCESS) {
        first_error = result;
      }
    }
    return enabled > 0 ? CUPTI_SUCCESS : first_error;
  }
  const auto result = cuptiActivityEnable(kind);
  if (result != CUPTI_SUCCESS || !api_kind(kind) || s.settings.api != api_calls::launches) return result;
  static const auto runtime_queries = named_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, true);
  static const auto driver_queries = named_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, true);
  for (CUpti_CallbackId cbid : runtime ? runtime_queries : driver_queries) {
    HEADROOM_CUPTI_TRY(enable_call(runtime, cbid, false));
  }
  return CUPTI_SUCCESS;
}

void disable_kind(const session& s, CUpti_ActivityKind kind) {
  if (!call_by_call(s, kind)) {
    HEADROOM_CUPTI_TRY(cuptiActivityDisable(kind));
    return;
  }
  const bool runtime = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  for (CUpti_CallbackId cbid : recorded_calls(runtime)) enable_call(runtime, cbid, false);
}

// The callbacks the session acts on: a device reset (flush first), and the profiler start and stop
// of a capture range. They stay enabled whatever is recorded.
constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> reset_callback{CUPTI_CB_DOMAIN_RUNTIME_API,
                                                                          CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020};
constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> capture_callbacks[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop},
};

bool control_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> id{domain, cbid};
  return id == reset_callback || std::find(std::begin(capture_callbacks), std::end(capture_callbacks), id) !=
                                     std::end(capture_callbacks);
}

// The callback ids our callbacks record: every named runtime (driver) call when runtime (driver)
// calls are recorded, less the query calls under --api launches (all of them under --api all).
std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> recorded_callbacks(const profile_settings& settings) {
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> ids;
  const auto add = [&](CUpti_CallbackDomain domain, profile_kind kind) {
    if (!(settings.kinds & static_cast<std::uint32_t>(kind))) return;
    for (bool queries : {false, true}) {
      if (queries && settings.api == api_calls::launches) continue;
      for (CUpti_CallbackId cbid : named_callbacks(domain, queries)) ids.emplace_back(domain, cbid);
    }
  };
  add(CUPTI_CB_DOMAIN_RUNTIME_API, profile_kind::runtime);
  add(CUPTI_CB_DOMAIN_DRIVER_API, profile_kind::driver);
  return ids;
}

// Runtime calls in progress on this thread, so that the driver calls the runtime makes inside them
// are left out, as CUPTI's activity records leave them out (a kernel's launch is its runtime call).
// A recording that stopped between a call's entry and exit would leave the count high: each start
// of recording begins a new generation, and a thread of an older one starts again from zero.
std::atomic<std::uint32_t> g_recording_generation{0};
struct runtime_nesting {
  std::uint32_t generation = 0;
  std::uint32_t depth = 0;
};
thread_local runtime_nesting t_nesting;

// Our callbacks start (stop) recording API calls. Starting, the callbacks are enabled before the
// flag is set; stopping, the flag is cleared first: a call is recorded only if its entry was seen.
void set_api_recording(session& s, bool on) {
  if (!s.api_log) return;
  if (!on) s.recording_api.store(false);
  if (on) g_recording_generation.fetch_add(1);
  std::size_t failures = 0;
  for (const auto& [domain, cbid] : s.api_callbacks) {
    if (!on && control_callback(domain, cbid)) continue;
    if (cuptiEnableCallback(on ? 1 : 0, s.subscriber, domain, cbid) != CUPTI_SUCCESS) ++failures;
  }
  if (failures > 0) log_line("%zu API callbacks could not be %s", failures, on ? "enabled" : "disabled");
  if (on) s.recording_api.store(true);
}

std::uint32_t os_thread_id() {
  thread_local const auto id = static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return id;
}

// One runtime or driver call, from our callback: its start at entry (kept in CUPTI's per-call
// correlation data), the record at exit, the same fields as CUPTI's own API record.
void record_api_call(session& s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  if (call.correlationData == nullptr) return;
  auto& nesting = t_nesting;
  if (const auto generation = g_recording_generation.load(std::memory_order_relaxed); nesting.generation != generation) {
    nesting = {generation, 0};
  }
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && nesting.depth > 0) return;  // inside a runtime call: not recorded
  if (runtime) {
    if (call.callbackSite == CUPTI_API_ENTER) {
      ++nesting.depth;
    } else if (nesting.depth > 0) {
      --nesting.depth;
    }
  }
  if (call.callbackSite == CUPTI_API_ENTER) {
    std::uint64_t now = 0;
    if (s.recording_api.load(std::memory_order_relaxed)) cuptiGetTimestamp(&now);
    *call.correlationData = now;
    return;
  }
  const std::uint64_t start = *call.correlationData;
  if (start == 0 || !s.recording_api.load(std::memory_order_relaxed)) return;
  api_record r{};
  r.kind = domain == CUPTI_CB_DOMAIN_DRIVER_API ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
  r.cbid = cbid;
  r.start = start;
  if (cuptiGetTimestamp(&r.end) != CUPTI_SUCCESS) return;
  r.processId = static_cast<std::uint32_t>(s.owner);
  r.threadId = os_thread_id();
  r.correlationId = call.correlationId;
  if (call.functionReturnValue != nullptr) r.returnValue = *static_cast<const std::uint32_t*>(call.functionReturnValue);
  s.api_log->append(r);
}

// The program's cudaProfilerStart (or cuProfilerStart; the runtime's call may pass through the
// driver's, so both are idempotent): recording begins.
void capture_start(session& s) {
  std::lock_guard lock(s.capture_mutex);
  if (s.capturing || s.detach_requested.load()) return;
  s.capturing = true;
  ++s.capture_ranges;
  set_api_recording(s, true);
  for (auto kind : s.capture_kinds) {
    const auto result = enable_kind(s, kind);
    if (result == CUPTI_SUCCESS) {
      s.capture_enabled.push_back(kind);
    } else if (!s.capture_failure_logged) {
      s.capture_failure_logged = true;
      HEADROOM_CUPTI_TRY(result);
      std::lock_guard convert(s.convert_mutex);
      if (!s.closed)
        s.writer->add_warning(fmt::format("CUPTI activity kind {} could not be enabled at cudaProfilerStart; it is "
                                          "missing from the trace", static_cast<int>(kind)));
    }
  }
}

// cudaProfilerStop: recording pauses; what was recorded is flushed as usual.
void capture_stop(session& s) {
  std::lock_guard lock(s.capture_mutex);
  if (!s.capturing) return;
  s.capturing = false;
  set_api_recording(s, false);
  for (auto kind : s.capture_enabled) disable_kind(s, kind);
  s.capture_enabled.clear();
  if (s.settings.end == capture_end::stop) {
    // The flush thread closes the stream once the range's work is done, then arms the detach.
    s.detach_requested.store(true);
    s.flusher_wake.notify_all();
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  session* s = g_session;
  if (!owned_here(s) || data == nullptr) return;
  if (s->finalize_armed.load(std::memory_order_relaxed) &&
      (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
      static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT && s->finalize_armed.exchange(false)) {
    // arm_detach: the stream is closed and flushed; CUPTI leaves the process here.
    HEADROOM_CUPTI_TRY(cuptiFinalize());
    return;
  }
  try {
    if (s->api_log && (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)) {
      record_api_call(*s, domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
    }
    if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR) {
      const auto* state = static_cast<const CUpti_StateData*>(data);
      const char* message = state->notification.message ? state->notification.message : "no details";
      log_line("CUPTI reported a fatal error (%s); profiling of this process stops here", message);
      std::lock_guard lock(s->convert_mutex);
      if (!s->closed) {
        s->writer->add_warning(fmt::format("CUPTI reported a fatal error ({}); the trace ends early", message));
        s->writer->flush();
      }
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
      // A reset destroys the context and the records CUPTI still holds for it.
      const auto* call = static_cast<const CUpti_CallbackData*>(data);
      if (call->callbackSite == CUPTI_API_ENTER) HEADROOM_CUPTI_TRY(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    } else if (s->settings.capture != capture_range::profiler_api) {
      // Recorded above, if at all: a profiler start or stop means nothing to a whole-process session.
    } else if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
               (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)) {
      // After the call: the start itself is not part of the range.
      if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT) capture_start(*s);
    } else if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
               (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)) {
      if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) capture_stop(*s);
    }
  } catch (...) {
  }
}

// Closes the stream and leaves CUPTI as it was found, for a process that runs unprofiled.
void abandon(session& s, const char* why) {
  s.recording_api.store(false);
  for (auto kind : s.enabled) disable_kind(s, kind);
  s.enabled.clear();
  {
    std::lock_guard lock(s.capture_mutex);
    for (auto kind : s.capture_enabled) disable_kind(s, kind);
    s.capture_enabled.clear();
    s.capture_kinds.clear();
  }
  if (s.subscriber != nullptr) HEADROOM_CUPTI_TRY(cuptiUnsubscribe(s.subscriber));
  s.subscriber = nullptr;
  s.refusing.store(true);
  std::lock_guard lock(s.convert_mutex);
  s.writer->add_warning(why);
  s.converter->finish();
  s.writer->close();
  s.closed = true;
}

void other_client(session& s) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) log_line("%s", other_client_message);
  abandon(s, other_client_message);
}

// Kinds whose failure to enable means someone else holds CUPTI, rather than an unsupported kind.
bool another_client_result(CUptiResult r) {
  return r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_COMPATIBLE;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

}  // namespace

bool cupti_ok(CUptiResult result, const char* call, const char* file, int line) noexcept {
  if (result == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  log_line("%s failed: %s (%d) at %s:%d", call, text, static_cast<int>(result), file, line);
  return false;
}

void log_line(const char* format, ...) noexcept {
  // One write(2) per line, so lines from several processes or threads do not interleave.
  char line[1024];
  int n = std::snprintf(line, sizeof line, "headroom: ");
  va_list args;
  va_start(args, format);
  const int body = std::vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n) - 1, format, args);
  va_end(args);
  if (body > 0) n += std::min(body, static_cast<int>(sizeof line) - n - 2);
  line[n++] = '\n';
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line, static_cast<std::size_t>(n));
}

bool start_session(profile_settings settings) noexcept {
  try {
    if (g_session != nullptr) return false;
    auto owned = std::make_unique<session>();
    session& s = *owned;
    s.settings = std::move(settings);
    s.owner = ::getpid();
    s.path = s.settings.dir / fmt::format("{}.hrs", s.owner);

    trace::event_stream_header header;
    header.pid = static_cast<std::uint32_t>(s.owner);
    header.rank = s.settings.rank;
    std::uint64_t now = 0;
    if (HEADROOM_CUPTI_TRY(cuptiGetTimestamp(&now))) header.start = static_cast<trace::time_ns>(now);
    header.process_name = process_command_line();
    header.host = host_name();
    s.writer = std::make_unique<trace::event_stream_writer>(s.path, header);
    if (!s.writer->ok()) {
      log_line("cannot write the event stream %s (%s); this process runs unprofiled", s.path.c_str(),
               s.writer->error().c_str());
      return false;
    }
    for (const auto& problem : s.settings.problems) {
      log_line("%s", problem.c_str());
      s.writer->add_warning(problem);
    }
    s.converter = std::make_unique<activity_converter>(*s.writer, callback_name);
    const bool pool_zeroes = s.settings.zeroing == buffer_zeroing::pool;
    s.pool = std::make_unique<activity_buffer_pool>(s.settings.buffer_bytes, s.settings.buffer_count(), pool_zeroes);
    g_session = owned.release();

    // A child forked without exec shares our file descriptor; it must never write to it.
    if (pthread_atfork(nullptr, nullptr, on_fork_child) != 0) log_line("pthread_atfork failed; forked children are detected by pid only");
    if (std::atexit(at_exit) != 0) log_line("atexit failed; records after the last periodic flush will be lost");

    const auto subscribed = cuptiSubscribe(&s.subscriber, on_callback, nullptr);
    if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      s.subscriber = nullptr;
      other_client(s);
      return false;
    }
    if (!cupti_ok(subscribed, "cuptiSubscribe(&s.subscriber, on_callback, nullptr)", __FILE__, __LINE__)) {
      s.subscriber = nullptr;
      abandon(s, "cuptiSubscribe failed; this process runs unprofiled");
      return false;
    }
    HEADROOM_CUPTI_TRY(cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR));
    HEADROOM_CUPTI_TRY(cuptiEnableCallback(1, s.subscriber, reset_callback.first, reset_callback.second));
    const bool capture_api = s.settings.capture == capture_range::profiler_api;
    if (capture_api) {
      for (const auto& [domain, cbid] : capture_callbacks) HEADROOM_CUPTI_TRY(cuptiEnableCallback(1, s.subscriber, domain, cbid));
    }

    if (pool_zeroes) {
      // Our buffers come zeroed (activity_buffers.hpp): CUPTI need not clear each one on the thread
      // that asks for it. If CUPTI refuses the attribute it clears them itself, as before.
      std::uint8_t zeroed = 1;
      std::size_t size = sizeof zeroed;
      HEADROOM_CUPTI_TRY(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed));
    }
    // OS thread ids (gettid) in CUPTI's records, as in ours and as the trace store documents.
    HEADROOM_CUPTI_TRY(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
    if (s.settings.api_records == api_recorder::callback) {
      s.api_callbacks = recorded_callbacks(s.settings);
      if (!s.api_callbacks.empty()) s.api_log = std::make_unique<api_call_log>(api_ring_records);
    }
    if (s.settings.timestamps == timestamp_memory::pinned) {
      // Before any context exists (we run inside cuInit), so every context's buffers are pinned.
      std::uint8_t pinned = 1;
      std::size_t size = sizeof pinned;
      HEADROOM_CUPTI_TRY(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &pinned));
    }
    if (!HEADROOM_CUPTI_TRY(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed))) {
      other_client(s);
      return false;
    }
    // Kernels in CUDA graphs: with CONCURRENT_KERNEL on and GRAPH_TRACE off (never enabled here),
    // CUPTI records every graph node's kernel, with graphId/graphNodeId set.
    for (auto kind : activity_kinds(s.settings.kinds)) {
      // Our callbacks record the API calls instead.
      if (s.api_log && (kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER)) continue;
      if (capture_api && kind != CUPTI_ACTIVITY_KIND_DEVICE) {
        s.capture_kinds.push_back(kind);  // enabled by the program's cudaProfilerStart
        continue;
      }
      const auto result = enable_kind(s, kind);
      if (result == CUPTI_SUCCESS) {
        s.enabled.push_back(kind);
        continue;
      }
      HEADROOM_CUPTI_TRY(result);
      if (another_client_result(result)) {
        other_client(s);
        return false;
      }
      std::lock_guard lock(s.convert_mutex);
      s.writer->add_warning(fmt::format("CUPTI activity kind {} could not be enabled; it is missing from the trace",
                                        static_cast<int>(kind)));
    }
    if (s.enabled.empty()) {
      abandon(s, "no CUPTI activity kind could be enabled; this process runs unprofiled");
      return false;
    }

    if (!capture_api) set_api_recording(s, true);
    start_flusher(s);
    chain_signal_handlers();
    return true;
  } catch (...) {
    log_line("the profiler failed to start; this process runs unprofiled");
    return false;
  }
}

void stop_session() noexcept {
  session* s = g_session;
  if (!owned_here(s) || s->stopping.exchange(true)) return;
  try {
    {
      std::lock_guard lock(s->flusher_mutex);
      s->stop_flusher = true;
    }
    s->flusher_wake.notify_all();
    if (s->flusher.joinable() && s->flusher.get_id() != std::this_thread::get_id()) s->flusher.join();

    close_stream(*s);
    report_incomplete_stream(*s);
  } catch (...) {
    log_line("the profiler failed while stopping; the stream keeps what was flushed");
  }
}

}  // namespace headroom::cupti
