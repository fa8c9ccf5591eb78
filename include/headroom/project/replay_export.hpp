#pragma once
// The replayed timeline as a trace: every event of the measured trace at its replayed time, written
// as Chrome/Perfetto JSON beside the measured one, so a reader sees what moved.
#include <filesystem>
#include <span>

#include "headroom/project/replay.hpp"
#include "headroom/project/shrink.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

// `measured` with every graph node at its replayed time. Calls outside the graph and host ranges
// move with the nearest earlier node of their thread (host time between calls is kept); a GPU
// annotation moves with the first activity starting in it.
trace::trace replayed_trace(const trace::trace& measured, const replay_graph& g, const replayed_timeline& r);

// One Chrome trace holding the measured processes ("measured: ...") and the replayed ones
// ("replayed: ..."), device work coloured by the shrink part that took it, written through
// util::output_file (never over one of `inputs`). Throws input_error when the file cannot be written.
void write_replay_chrome_trace(const trace::trace& measured, const replay_graph& g, const replayed_timeline& r,
                               const shrink_set& shrink, const std::filesystem::path& path,
                               std::span<const std::filesystem::path> inputs = {});

}  // namespace headroom::project
