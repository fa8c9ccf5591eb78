// A fatal SIGTERM or SIGINT waits (bounded) for the flush thread's forced flush before the process
// dies as it would have; fork and exit as the session needs them.
#include <signal.h>
#include <time.h>

#include <cerrno>

#include "cupti_session_state.hpp"

namespace headroom::cupti::detail {
namespace {

// How long a fatal signal waits for the flush thread before the process dies as it would have.
constexpr int signal_flush_wait_ms = 2000;

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
    for (int waited = 0; waited < signal_flush_wait_ms && !s->signal_flushed.load(); ++waited)
      nanosleep(&tick, nullptr);
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

}  // namespace

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

}  // namespace headroom::cupti::detail
