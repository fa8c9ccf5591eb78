#pragma once
// The study's tables (docs/study.md): Markdown for people (what `headroom study` prints and writes
// as summary.md) and JSON for programs (summary.json).
#include <ostream>

#include "headroom/study/summary.hpp"

namespace headroom::report {

inline constexpr int study_summary_schema_version = 1;

// One table of every workload and variant (addressable fraction, ceiling, projected gain, GEMM plus
// attention beside the published figures), then the agreement with torch.profiler where recorded,
// the runs without figures, and the notes.
void write_markdown(std::ostream& out, const study::study_summary& s);
void write_json(std::ostream& out, const study::study_summary& s);

}  // namespace headroom::report
