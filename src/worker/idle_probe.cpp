#include "worker/idle_probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "worker/parent_channel.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {

namespace {
// A probe request waits at most this long, whatever it asks: the parent's own timeout is longer.
constexpr double longest_settle_ms = 60000;
}  // namespace

idle_check wait_for_idle(device& d, idle_watch& watch, double settle_ms) {
  d.synchronize();
  return watch.check([&d] { return probe_once([&d] { return d.round_trip_ms(); }); }, [] { return host_ms(); },
                     settle_ms);
}

void idle_probe::probe(simdjson::dom::element req) {
  if (!p_.dev) throw request_error("no device yet: hello comes first");
  device& d = *p_.dev;
  // The CPU has nothing to probe: a frozen sandbox's processes use none of it.
  if (!d.is_cuda()) return p_.channel.reply(R"("ok":true,"probed":false,"quiet":true,"pids":[])");
  double settle_ms = busy_settle_ms;
  if (req["settle_ms"].get_double().get(settle_ms)) settle_ms = busy_settle_ms;
  settle_ms = std::clamp(settle_ms, 0.0, longest_settle_ms);
  idle_watch watch;
  const idle_check c = wait_for_idle(d, watch, settle_ms);
  // Every process with a context on the device but this worker: the reference's own is no suspect.
  std::string pids;
  const auto self = static_cast<std::uint64_t>(getpid());
  for (std::uint64_t pid : d.context_pids())
    if (pid != self) pids += fmt::format("{}{}", pids.empty() ? "" : ",", pid);
  p_.channel.reply(fmt::format(
      R"("ok":true,"probed":true,"quiet":{},"probe_ms":{},"first_probe_ms":{},"threshold_ms":{},"waited_ms":{},"probes":{},"pids":[{}])",
      c.quiet, c.probe_ms, c.first_ms, c.threshold_ms, c.waited_ms, c.probes, pids));
}

}  // namespace headroom::worker
