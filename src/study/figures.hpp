#pragma once
// A run's figures from what its folder holds: an analysis done now, an analysis.json written
// elsewhere, and the workload's own run.json.
#include <filesystem>

#include "headroom/analyze/analysis.hpp"
#include "headroom/study/summary.hpp"

namespace headroom::study {

run_figures figures_of(const analyze::analysis_report& r);

// From `headroom analyze --json` output (docs/analysis-json.md). Throws input_error.
run_figures read_analysis_figures(const std::filesystem::path& analysis_json);

// From the workload harness's summary (workloads/common.py, --summary). Throws input_error.
harness_figures read_harness(const std::filesystem::path& run_json);

}  // namespace headroom::study
