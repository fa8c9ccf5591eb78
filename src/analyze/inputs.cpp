#include "headroom/analyze/inputs.hpp"

#include "headroom/trace/reader.hpp"

namespace headroom::analyze {

trace::trace read_traces(const std::vector<std::filesystem::path>& files, host_calls calls) {
  trace::inputs_options o;
  o.read.launch_pairs_for_json = calls == host_calls::launches;
  return trace::read_traces(files, o);
}

}  // namespace headroom::analyze
