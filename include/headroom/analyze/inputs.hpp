#pragma once
// What `analyze` and `project` read: traces (one per rank, merged).
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

// What a command needs of the host side: the launch pairs that carry steps onto devices (analyze,
// project), or every runtime and driver call whole, with its thread and end (trace replay).
enum class host_calls { launches, whole };

// Reads every file (Kineto JSON, plain or gzip; Nsight Systems SQLite; our store) and merges them
// with trace::append, drawing progress on a terminal. Throws input_error naming the bad file.
trace::trace read_traces(const std::vector<std::filesystem::path>& files, host_calls calls = host_calls::launches);

}  // namespace headroom::analyze
