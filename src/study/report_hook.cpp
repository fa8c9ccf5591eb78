// The report hook: where a study's summary becomes its report, and the only place. The study's
// tables (summary.md, summary.json), and report.html: `headroom report`'s document opened by the
// study's figure (every row's addressable fraction by domain beside the published range, and the
// projected gains), then one workload per row (the row's headline run, its traces read together),
// joined to the evaluation results the user gave, with the study's tables as its closing sections.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/build.hpp"
#include "headroom/report/document.hpp"
#include "headroom/study/summary_output.hpp"
#include "headroom/study/study.hpp"
#include "headroom/util/error.hpp"

namespace headroom::study {
namespace {

report::extra_section to_section(const study_table& t) {
  report::extra_section s;
  s.kind = "study";
  s.title = t.caption.empty() ? "The study" : t.caption;
  if (!t.intro.empty()) s.paragraphs.push_back(t.intro);
  s.tables.push_back({"", t.columns, t.rows});
  if (!t.footnote.empty()) s.paragraphs.push_back(t.footnote);
  return s;
}

// The figure a reader of the study came for: f per row, grouped by domain in the order the domains
// first appear, over the published range as a band; the end-to-end gain at the published kernel
// speedups (KernelBench level 1's median, the recommender kernels' median win) beside it.
report::extra_section lead_section(const study_summary& s) {
  report::extra_section lead;
  lead.kind = "study-lead";
  lead.title = "The study: what a faster kernel buys each workload";
  lead.lead = true;
  std::vector<std::string> domains;
  for (const auto& r : s.rows) {
    if (std::find(domains.begin(), domains.end(), r.domain) == domains.end()) domains.push_back(r.domain);
  }
  const double slow = default_kernel_speedup, fast = published_recommender_speedup;
  report::section_table t{"",
                          {"domain", "workload", "variant", "addressable f", fmt::format("S at {:g}x", slow),
                           fmt::format("S at {:g}x", fast), "ceiling 1/(1-f)"},
                          {}};
  for (const auto& d : domains) {
    for (const auto& r : s.rows) {
      const run_result* h = r.headline();
      if (r.domain != d || h == nullptr) continue;
      const double f = h->figures->addressable_fraction();
      lead.bars.push_back({fmt::format("{}: {} ({})", r.domain, r.workload, r.variant), 100 * f, {}, {}});
      t.rows.push_back({r.domain, r.workload, r.variant, fmt::format("{:.1f}%", 100 * f),
                        fmt::format("{:.3f}x", project::amdahl(f, slow)),
                        fmt::format("{:.3f}x", project::amdahl(f, fast)), fmt::format("{:.3f}x", project::ceiling(f))});
    }
  }
  if (lead.bars.empty()) return lead;
  lead.bar_label = "addressable fraction f (% of the wall clock)";
  lead.band = report::section_bar{fmt::format("published: {:.1f}% to {:.1f}% over seven workloads in three domains",
                                              100 * published_addressable_low, 100 * published_addressable_high),
                                  0, 100 * published_addressable_low, 100 * published_addressable_high};
  lead.paragraphs = study_findings(s);
  lead.paragraphs.push_back(fmt::format(
      "S is the end-to-end speedup when every addressable kernel runs s times faster (Amdahl): s = {:g}, KernelBench "
      "level 1's published median; s = {:g}, the published median of the recommender kernels that won.",
      slow, fast));
  lead.tables.push_back(std::move(t));
  return lead;
}

// Each row's headline traces, as its run record lists them; rows whose traces stayed behind (the
// figures came from analysis.json) have none and are named in a note instead.
report::document study_document(const study_summary& s, const classify::classifier& c,
                                const std::vector<std::filesystem::path>& results,
                                const std::vector<std::filesystem::path>& sections) {
  report::build_options o;
  o.title = fmt::format("headroom study ({} preset)", s.preset);
  o.generator = "headroom study";
  report::document d;
  d.title = o.title;
  d.generator = o.generator;
  d.join = o.join;
  d.sources = report::read_results_sources(results, o);
  const study_folder folder(s.folder);
  std::map<std::filesystem::path, run_record> records;
  for (auto& r : folder.records()) records.emplace(r.dir.lexically_normal(), std::move(r));
  std::vector<std::string> without_traces;
  for (const auto& row : s.rows) {
    const run_result* run = row.headline();
    if (!run) continue;
    const std::string name = fmt::format("{} ({})", row.workload, row.variant);
    const auto found = records.find((folder.root() / run->folder).lexically_normal());
    std::vector<std::filesystem::path> traces;
    if (run->figures_from == "trace" && found != records.end())
      for (const auto& t : found->second.traces) traces.push_back(found->second.dir / t);
    if (traces.empty()) {
      without_traces.push_back(name);
      continue;
    }
    d.workloads.push_back(report::build_workload(name, traces, c, o, d.sources));
  }
  if (auto lead = lead_section(s); !lead.bars.empty()) d.sections.push_back(std::move(lead));
  for (const auto& t : study_tables(s)) d.sections.push_back(to_section(t));
  if (!without_traces.empty()) {
    report::extra_section note;
    note.kind = "study-notes";
    note.title = "Runs reported from their analysis only";
    note.paragraphs.push_back(
        fmt::format("The traces of {} are not in the study folder; their rows in the study table "
                    "come from analysis.json, and they have no section of their own here.",
                    fmt::join(without_traces, ", ")));
    d.sections.push_back(std::move(note));
  }
  for (const auto& f : sections) d.sections.push_back(report::read_section_json(f));
  return d;
}

}  // namespace

void check_report_inputs(const std::vector<std::filesystem::path>& results,
                         const std::vector<std::filesystem::path>& sections) {
  report::read_results_sources(results, {});  // throws input_error naming a file that is not one
  for (const auto& f : sections) report::read_section_json(f);
}

void write_study_report(const study_summary& s, const std::filesystem::path& out_dir, const classify::classifier& c,
                        const std::vector<std::filesystem::path>& results,
                        const std::vector<std::filesystem::path>& sections) {
  std::filesystem::create_directories(out_dir);
  std::ostringstream markdown, json;
  write_markdown(markdown, s);
  write_json(json, s);
  write_file_atomically(out_dir / "summary.md", markdown.str());
  write_file_atomically(out_dir / "summary.json", json.str());
  report::write_report_file(study_document(s, c, results, sections), out_dir / "report.html",
                            report::report_format::html);
}

}  // namespace headroom::study
