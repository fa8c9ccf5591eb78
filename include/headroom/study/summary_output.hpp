#pragma once
// The study's tables (docs/study.md): Markdown for people (what `headroom study` prints and writes
// as summary.md) and JSON for programs (summary.json).
#include <ostream>
#include <string>
#include <vector>

#include "headroom/study/summary.hpp"

namespace headroom::study {

inline constexpr int study_summary_schema_version = 1;

// One of the study's tables as text cells, for any rendering (Markdown here; a section of
// `headroom report`'s HTML document takes the same caption, columns and rows). The study renders its
// own tables with the report's formatting (report/units.hpp); the report knows nothing of the study.
struct study_table {
  std::string caption;  // "" for the study table itself, which comes first
  std::string intro;  // a paragraph before the table
  std::vector<std::string> columns;
  std::vector<bool> numeric;  // per column: right-aligned
  std::vector<std::vector<std::string>> rows;
  std::string footnote;  // a paragraph after the table
  int bold_column = -1;  // the column a reader looks at first (the addressable fraction)
};

// The study table (every workload and variant with figures: the addressable fraction, ceiling and
// projected gain, GEMM plus attention beside the published share), then those of the comparison
// with torch.profiler, the runs, and the runs without figures; tables without rows are left out.
std::vector<study_table> study_tables(const study_summary& s);
// The lines under the study table: the ranges beside the published ones, what the gain means.
std::vector<std::string> study_findings(const study_summary& s);

// One table of every workload and variant (addressable fraction, ceiling, projected gain, GEMM plus
// attention beside the published figures), then the agreement with torch.profiler where recorded,
// the runs without figures, and the notes.
void write_markdown(std::ostream& out, const study_summary& s);
void write_json(std::ostream& out, const study_summary& s);

}  // namespace headroom::study
