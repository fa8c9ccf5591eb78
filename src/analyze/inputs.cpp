#include "headroom/analyze/inputs.hpp"

#include "headroom/trace/reader.hpp"
#include "headroom/util/progress.hpp"

namespace headroom::analyze {
namespace {

// Kineto JSON keeps launch pairs instead of whole api calls (a multi-GB trace holds about one call
// per kernel). Other readers fill only api_calls, so they keep them.
trace::read_options options_for(const std::filesystem::path& f, host_calls calls) {
  trace::read_options o;
  o.launch_geometry = false;
  if (calls == host_calls::whole) return o;
  const auto format = trace::detect_format(f);
  if (format == trace::file_format::kineto_json || format == trace::file_format::kineto_json_gz) {
    o.api_calls = false;
    o.launch_calls = true;
  }
  return o;
}

}  // namespace

trace::trace read_traces(const std::vector<std::filesystem::path>& files, host_calls calls) {
  trace::trace merged;
  for (const auto& f : files) {
    util::terminal_progress progress("reading " + f.filename().string());
    auto o = options_for(f, calls);
    o.progress = progress.fn();
    auto t = trace::read_trace(f, o);
    if (t.processes.empty()) t.processes.push_back({0, f.filename().string(), -1, ""});
    trace::append(merged, std::move(t));
  }
  return merged;
}

}  // namespace headroom::analyze
