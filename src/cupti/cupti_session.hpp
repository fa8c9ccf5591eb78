#pragma once
// The live CUPTI session inside a profiled process: subscribes, hands CUPTI buffers from a bounded
// pool, converts completed buffers into the process's event stream, flushes periodically and at
// exit. One per process (CUPTI's buffer callbacks carry no user data), so the session is a
// process-wide singleton that the injection library starts once.
//
// It runs inside someone else's program: nothing here throws, aborts or exits. Every failure is
// logged on stderr (prefixed "headroom:") and, where the stream is open, written into it as a
// warning; the program then runs on, unprofiled if need be.
#include <cupti.h>

#include <cstdio>

#include "profile_settings.hpp"

// Checks a CUPTI call; on failure logs the call text, the error and file:line, and evaluates to
// false. Log-only: injected code must not stop its host.
#define HEADROOM_CUPTI_TRY(call) ::headroom::cupti::cupti_ok((call), #call, __FILE__, __LINE__)

namespace headroom::cupti {

bool cupti_ok(CUptiResult result, const char* call, const char* file, int line) noexcept;

// printf-style line on stderr, prefixed "headroom: " and ended with a newline.
void log_line(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

// Starts profiling this process with `settings`. False when the process runs unprofiled (another
// CUPTI client, an unwritable stream, a failed subscription); the reason was logged. Call once.
bool start_session(profile_settings settings) noexcept;

// Forced flush, converter and stream closed. Registered with atexit by start_session; safe to call
// again, and a no-op in a child forked (without exec) from the profiled process.
void stop_session() noexcept;

}  // namespace headroom::cupti
