#include <fmt/format.h>

#include <algorithm>
#include <system_error>
#include <tuple>

#include "headroom/util/error.hpp"
#include "headroom/profile/launcher.hpp"

namespace headroom::profile {

merged_streams merge_streams(const std::filesystem::path& folder) {
  merged_streams out;
  out.trace.format = trace::source_format::headroom_store;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    if (e.path().extension() == ".hrs") files.push_back(e.path());
  }
  if (ec) throw input_error(fmt::format("{}: cannot list the event streams: {}", folder.string(), ec.message()));
  std::sort(files.begin(), files.end());

  std::vector<std::string> unreadable;
  std::vector<trace::trace> traces;
  for (const auto& f : files) {
    trace::event_stream_counters c;
    try {
      // Launch calls are what a later replay needs, so api calls are kept whole, as is geometry.
      trace::read_options options;
      options.launch_geometry = true;
      traces.push_back(trace::read_event_stream(f, options, &c));
    } catch (const input_error& e) {
      // A process killed before its first flush leaves an empty or headerless file: the others still count.
      unreadable.push_back(e.what());
      continue;
    }
    out.counters.dropped_records += c.dropped_records;
    out.counters.overhead_records += c.overhead_records;
    out.counters.overhead_ns += c.overhead_ns;
    out.counters.unconverted_records += c.unconverted_records;
    out.counters.untimed_records += c.untimed_records;
  }
  // Rank order first (rank 0 is process 0), then pid, so a store reads the same however the files sort.
  const auto key = [](const trace::trace& t) {
    const auto& p = t.processes.front();
    return std::tuple{p.rank < 0, p.rank, p.pid};
  };
  std::stable_sort(traces.begin(), traces.end(), [&](const auto& a, const auto& b) {
    if (a.processes.empty() || b.processes.empty()) return !a.processes.empty() && b.processes.empty();
    return key(a) < key(b);
  });
  out.streams = traces.size();
  for (auto& t : traces) trace::append(out.trace, std::move(t));
  // append takes the first trace whole; the merged trace is a store either way.
  out.trace.format = trace::source_format::headroom_store;
  for (auto& u : unreadable) out.trace.lose("event stream skipped: " + u);
  return out;
}

}  // namespace headroom::profile
