#pragma once
// What `analyze` and `project` read: traces (one per rank, merged) and classification rules.
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::analyze {

// Reads every file (Kineto JSON, plain or gzip; Nsight Systems SQLite; our store) and merges them
// with trace::append, drawing progress on a terminal. Throws input_error naming the bad file.
trace::trace read_traces(const std::vector<std::filesystem::path>& files);

// The default rules, then each file in order (later files take precedence).
classify::classifier load_classifier(const std::vector<std::filesystem::path>& rule_files);

}  // namespace headroom::analyze
