#pragma once
// What `analyze` and `project` read: traces (one per rank, merged).
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

// Reads every file (Kineto JSON, plain or gzip; Nsight Systems SQLite; our store) and merges them
// with trace::append, drawing progress on a terminal. Throws input_error naming the bad file.
trace::trace read_traces(const std::vector<std::filesystem::path>& files);

}  // namespace headroom::analyze
