#pragma once
// Whether the GPU is idle before a measurement (docs/eval.md, "Sandbox"): the busy rule over probes
// of an empty kernel's round trip, and the wait for a busy GPU to turn quiet. Pure arithmetic over
// the probes a device takes, shared by the worker's timed calls and its `probe` request and tested
// without a GPU.
//
// Why: a frozen sandbox's processes stop, their work on the GPU does not. A candidate's child with
// a CUDA context of its own can leave seconds of kernels queued; the GPU then time-slices between
// that context and the one being timed, and whatever is timed in another process (the reference,
// a baseline) runs slower. A context's kernel waits for the busy context's time slice to end
// before it runs, so an empty kernel's round trip, tens of microseconds on an idle GPU, takes about
// a time slice (of the order of a millisecond) on a busy one.
//
// The numbers below come from those two orders of magnitude, not from a measurement of this code
// on a GPU: they are named here to be tuned once the GPU suite has run (suites/adversarial,
// gpu_left_busy; the worker's time answer reports every call's probe and the request's quiet value).
#include <functional>
#include <optional>

namespace headroom::worker {

// A probe is the median of this many round trips, taken one after the other. The first can be
// short on a busy GPU (the other context's slice was ending); once it has run, the scheduler gives
// the GPU back to the busy context, and each following round trip waits for a whole slice. The
// median also ignores one round trip the host delayed (its thread preempted).
inline constexpr int probe_round_trips = 3;
// A probe longer than this is busy on any host: a round trip that waits this long waited for
// another context's work.
inline constexpr double busy_floor_ms = 0.5;
// Or longer than this multiple of the request's quiet value (the least probe it has seen), for a
// host whose idle round trips are slow (a virtual machine's)...
inline constexpr double busy_multiple = 8;
// ...counting a quiet value of at most this: a request that began on a busy GPU has only busy
// probes, and their least must not raise the threshold above a time slice.
inline constexpr double quiet_ceiling_ms = 0.1;
// A busy probe is taken again for at most this long before the measurement is refused: work that
// ends within it (a short kernel of another process) only delays the call.
inline constexpr double busy_settle_ms = 2000;

// The latency above which a probe is busy, for a quiet value `quiet_ms`:
// max(busy_floor_ms, busy_multiple x min(quiet_ms, quiet_ceiling_ms)).
double busy_threshold_ms(double quiet_ms);

// One probe: the median of probe_round_trips calls of `round_trip` (each returns one round trip's
// milliseconds).
double probe_once(const std::function<double()>& round_trip);

// What the check before a measurement found.
struct idle_check {
  bool quiet = true;  // the last probe was not busy
  double probe_ms = 0;  // the last probe
  double first_ms = 0;  // the first probe (busy when the check had to wait)
  double threshold_ms = 0;  // the last probe's threshold
  double waited_ms = 0;  // spent on probes after a busy first one
  int probes = 0;
};

// The GPU's readiness over one request (a time request's calls, or one probe request): the least
// probe seen is its quiet value.
class idle_watch {
 public:
  // Probes (`probe` returns one probe's milliseconds, probe_once); a busy probe is followed by
  // others until one is quiet or `settle_ms` have passed on `clock_ms` (a clock in milliseconds).
  idle_check check(const std::function<double()>& probe, const std::function<double()>& clock_ms,
                   double settle_ms = busy_settle_ms);
  // The least probe seen; none before the first.
  std::optional<double> quiet_ms() const { return quiet_; }
  // The longest probe seen that was quiet (0 before any).
  double worst_quiet_ms() const { return worst_quiet_; }
  // Time spent waiting for a busy GPU to turn quiet, over every check.
  double waited_ms() const { return waited_; }

 private:
  bool busy(double probe_ms);
  std::optional<double> quiet_;
  double worst_quiet_ = 0;
  double waited_ = 0;
};

}  // namespace headroom::worker
