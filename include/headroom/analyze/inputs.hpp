#pragma once
// What an analysis reads: traces (one per rank, merged by trace::read_traces, which refuses a
// partial file or one given twice), with what the command needs of the host side.
#include <filesystem>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

// The launch pairs that carry steps onto devices (analyze, project), or every runtime and driver
// call whole, with its thread and end (trace replay).
enum class host_calls { launches, whole };

// trace::read_traces with the read options `calls` asks for: Kineto JSON keeps launch pairs instead
// of whole calls under `launches` (a multi-GB trace holds about one call per kernel); the other
// formats keep their calls either way. Throws input_error naming the bad file.
trace::trace read_traces(const std::vector<std::filesystem::path>& files, host_calls calls = host_calls::launches);

}  // namespace headroom::analyze
