#include "headroom/analyze/inputs.hpp"

#include "headroom/trace/reader.hpp"
#include "headroom/util/progress.hpp"

namespace headroom::analyze {

trace::trace read_traces(const std::vector<std::filesystem::path>& files) {
  trace::trace merged;
  for (const auto& f : files) {
    util::terminal_progress progress("reading " + f.filename().string());
    trace::read_options o;
    o.launch_geometry = false;
    o.progress = progress.fn();
    auto t = trace::read_trace(f, o);
    if (t.processes.empty()) t.processes.push_back({0, f.filename().string(), -1, ""});
    trace::append(merged, std::move(t));
  }
  return merged;
}

}  // namespace headroom::analyze
