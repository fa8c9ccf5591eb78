// The live session's start and stop (cupti_session_state.hpp says where the rest lives).
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "cupti_session_state.hpp"

namespace headroom::cupti {
namespace detail {

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

namespace {

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
}  // namespace detail

using namespace detail;

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
    if (pthread_atfork(nullptr, nullptr, on_fork_child) != 0)
      log_line("pthread_atfork failed; forked children are detected by pid only");
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
      for (const auto& [domain, cbid] : capture_callbacks)
        HEADROOM_CUPTI_TRY(cuptiEnableCallback(1, s.subscriber, domain, cbid));
    }

    if (pool_zeroes) {
      // Our buffers come zeroed (activity_buffers.hpp): CUPTI need not clear each one on the thread
      // that asks for it. If CUPTI refuses the attribute it clears them itself, as before.
      std::uint8_t zeroed = 1;
      std::size_t size = sizeof zeroed;
      HEADROOM_CUPTI_TRY(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed));
    }
    // OS thread ids (gettid) in CUPTI's records, as in ours and as the trace store documents
    // (HEADROOM_PROFILE_THREAD_IDS=pthread leaves CUPTI's default, for the overhead A/B).
    if (s.settings.threads == thread_ids::system)
      HEADROOM_CUPTI_TRY(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
    if (s.settings.api_records == api_recorder::callback) {
      s.api_callbacks = recorded_callbacks(s.settings);
      if (!s.api_callbacks.empty()) s.api_log = std::make_unique<api_call_log>(api_ring_records);
    }
    if (s.settings.timestamps == timestamp_memory::pinned) {
      // Before any context exists (we run inside cuInit), so every context's buffers are pinned.
      std::uint8_t pinned = 1;
      std::size_t size = sizeof pinned;
      HEADROOM_CUPTI_TRY(
          cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &pinned));
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
