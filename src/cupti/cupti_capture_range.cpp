// --capture-range cudaProfilerApi: the program's cudaProfilerStart and cudaProfilerStop switch the
// recorded kinds on and off; with --capture-range-end stop the first stop ends the recording and
// CUPTI leaves the process.
#include <fmt/format.h>

#include "cupti_session_state.hpp"

namespace headroom::cupti::detail {

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
        s.writer->add_warning(
            fmt::format("CUPTI activity kind {} could not be enabled at cudaProfilerStart; it is "
                        "missing from the trace",
                        static_cast<int>(kind)));
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

}  // namespace headroom::cupti::detail
