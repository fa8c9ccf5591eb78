// The session's activity buffers in and out: CUPTI asks for buffers from the pool and hands them
// back full; their records are converted into the event stream under convert_mutex. The flush
// thread flushes periodically, on a fatal signal, and once a capture range's end asks for it.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "cupti_session_state.hpp"

namespace headroom::cupti::detail {
namespace {

constexpr std::string_view dropped_warning =
    "CUPTI dropped activity records: no buffer space (raise HEADROOM_PROFILE_BUFFER_MB)";
constexpr std::string_view pool_warning =
    "the activity buffer pool was exhausted; CUPTI was refused a buffer and dropped what it could not store";
constexpr std::string_view api_drop_warning =
    "API calls were dropped: a thread made more calls between two flushes than its ring holds";
// The flush thread wakes this often to notice a stop or a fatal signal; it calls into CUPTI only
// once per flush period.
constexpr auto flusher_tick = std::chrono::milliseconds(20);
// Buffers the flush thread makes at its start (more are made on demand, up to the pool's bound):
// one being filled and one to take over when the flush hands the first back.
constexpr std::size_t prepared_buffers = 2;
// The trace's last word on a capture range that HEADROOM_PROFILE_CAPTURE_END=stop ended.
constexpr const char* capture_end_warning =
    "recording ended at the program's first cudaProfilerStop (HEADROOM_PROFILE_CAPTURE_END=stop); later "
    "cudaProfilerStart calls recorded nothing";

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
  if (s.api_drops_reported == 0)
    log_line("API calls are being dropped (a thread's ring of %zu calls filled between flushes)",
             s.api_log->ring_records());
  s.writer->add_warning(api_drop_warning, dropped - s.api_drops_reported);
  s.api_drops_reported = dropped;
}

// cuptiActivityFlushPeriod only returns full buffers, so a quiet process would deliver nothing
// until exit (docs/profiler.md, "How the session runs"); a periodic FlushAll bounds what a kill
// can lose.
void flush_loop(session* s) {
  s->flusher_tid.store(current_tid());
  // Named, so that a look at the program's threads (top -H, /proc/<pid>/task) tells ours apart.
  pthread_setname_np(pthread_self(), "headroom-flush");
  // The first buffers are made here, their pages touched off the program's threads.
  try {
    s->pool->prepare(prepared_buffers);
  } catch (...) {}
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

}  // namespace

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
  } catch (...) {}
}

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
    s.writer->add_warning(ranges == 0
                              ? std::string("recording was limited to cudaProfilerStart/Stop ranges and "
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
  if (!started)
    log_line("could not start the flush thread; records are written only as CUPTI fills buffers and at exit");
  return started;
}

}  // namespace headroom::cupti::detail
