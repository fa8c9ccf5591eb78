// CUPTI's callbacks into the session: the API calls our callbacks record
// (HEADROOM_PROFILE_API_RECORDS=callback), a device reset, CUPTI's fatal error, the program's
// profiler start and stop, and the detach armed at a capture range's end.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "cupti_session_state.hpp"

namespace headroom::cupti::detail {
namespace {

// The callbacks the session acts on whatever is recorded: a device reset (flush first), and the
// profiler start and stop of a capture range (cupti_session_state.hpp lists them).
bool control_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> id{domain, cbid};
  return id == reset_callback ||
         std::find(std::begin(capture_callbacks), std::end(capture_callbacks), id) != std::end(capture_callbacks);
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

std::uint32_t os_thread_id() {
  thread_local const auto id = static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return id;
}

// One runtime or driver call, from our callback: its start at entry (kept in CUPTI's per-call
// correlation data), the record at exit, the same fields as CUPTI's own API record.
void record_api_call(session& s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  if (call.correlationData == nullptr) return;
  auto& nesting = t_nesting;
  if (const auto generation = g_recording_generation.load(std::memory_order_relaxed);
      nesting.generation != generation) {
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

}  // namespace

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

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  session* s = g_session;
  if (!owned_here(s) || data == nullptr) return;
  if (s->finalize_armed.load(std::memory_order_relaxed) &&
      (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
      static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT &&
      s->finalize_armed.exchange(false)) {
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
      if (call->callbackSite == CUPTI_API_ENTER)
        HEADROOM_CUPTI_TRY(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
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
  } catch (...) {}
}

}  // namespace headroom::cupti::detail
