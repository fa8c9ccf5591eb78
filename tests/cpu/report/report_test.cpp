// The report as a file a reader opens: self-contained HTML whose plots carry the analysis' figures,
// Markdown with the same tables, extra sections from JSON, inputs recognised by content.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "headroom/eval/results_store.hpp"
#include "headroom/report/build.hpp"
#include "headroom/report/document.hpp"
#include "headroom/report/svg.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;

namespace {

const std::filesystem::path dlrm = HEADROOM_SOURCE_DIR "/tests/data/h200-dlrm-train.json.gz";
const std::filesystem::path published = HEADROOM_SOURCE_DIR "/data/results/published-figures.csv";

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("headroom-report-" + std::to_string(::getpid()) + "-" + name);
}

std::string html_of(const report::document& d) {
  std::ostringstream out;
  report::write_html(out, d);
  return out.str();
}

// Sums the data-share attributes of the elements of one SVG (by id) that match `selector_attr`.
double share_sum(const std::string& html, const std::string& svg_id, const std::string& attr) {
  const auto start = html.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + svg_id + "\"");
  const auto end = html.find("</svg>", start);
  const std::string svg = html.substr(start, end - start);
  const std::regex share(attr + R"re( data-ns="[0-9]+" data-share="([0-9.]+)")re");
  double sum = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), share); it != std::sregex_iterator(); ++it) {
    sum += std::stod((*it)[1]);
  }
  return sum;
}

}  // namespace

TEST(Report, HtmlIsOneSelfContainedFileWhoseBarAddsUpToTheWindow) {
  report::build_options o;
  const auto d = report::build_document({dlrm, published}, o);
  ASSERT_EQ(d.workloads.size(), 1u);
  ASSERT_EQ(d.sources.size(), 2u);
  const std::string html = html_of(d);
  EXPECT_LT(html.size(), 1u << 20) << "target: under 1 MB";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  // The only URL is the SVG namespace, which is a name, not something fetched.
  std::string rest = html;
  for (auto p = rest.find("http://www.w3.org/2000/svg"); p != std::string::npos;
       p = rest.find("http://www.w3.org/2000/svg")) {
    rest.erase(p, 26);
  }
  EXPECT_EQ(rest.find("http://"), std::string::npos);
  EXPECT_EQ(rest.find("https://"), std::string::npos);

  // Segments and idle make up the whole window; the addressable segments are the attribution of f.
  const auto& tot = d.workloads[0].projection.analysis.total;
  const double all = share_sum(html, "workload-h200-dlrm-train-wall-clock", R"re(data-addressable="(?:yes|no)")re") +
                     share_sum(html, "workload-h200-dlrm-train-wall-clock", R"re(data-category="idle")re");
  EXPECT_NEAR(all, 1.0, 1e-4);
  EXPECT_NEAR(share_sum(html, "workload-h200-dlrm-train-wall-clock", R"re(data-category="idle")re"),
              tot.idle_fraction(), 1e-5);
  const auto& window = d.workloads[0].projection.analysis.timelines.at(0).win.description;
  EXPECT_NE(html.find(report::svg::escape(window)), std::string::npos) << "the window is named";
  EXPECT_NE(html.find("Joined to recommender"), std::string::npos);
  EXPECT_NE(html.find("id=\"source-1\""), std::string::npos) << "each source has its section";
  EXPECT_EQ(html.find("id=\"source-1-cdf\""), std::string::npos) << "published figures have no distribution to draw";
}

TEST(Report, KernelNamesAndTitlesAreEscaped) {
  report::document d;
  d.title = "a <b>report</b> & more";
  report::extra_section s;
  s.title = "<script>alert(1)</script>";
  s.tables.push_back({"caption", {"a"}, {{"<img src=x>"}}});
  d.sections.push_back(s);
  const std::string html = html_of(d);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("a &lt;b&gt;report&lt;/b&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(report::svg::escape("a\"'<>&"), "a&quot;&#39;&lt;&gt;&amp;");
}

TEST(Report, MarkdownHasTheTablesAndLinksEveryPlot) {
  const auto d = report::build_document({dlrm, published}, report::build_options{});
  std::vector<std::string> plots;
  std::ostringstream out;
  report::write_markdown(out, d, [&](std::string_view name, const std::string& svg) {
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    plots.emplace_back(name);
    return std::string(name) + ".svg";
  });
  const std::string md = out.str();
  EXPECT_NE(md.find("| workload | window |"), std::string::npos);
  EXPECT_NE(md.find("## h200-dlrm-train"), std::string::npos);
  EXPECT_NE(md.find("](h200-dlrm-train-wall-clock.svg)"), std::string::npos);
  EXPECT_EQ(plots, (std::vector<std::string>{"estimates", "h200-dlrm-train-wall-clock", "h200-dlrm-train-amdahl"}));
}

TEST(Report, ExtraSectionsComeFromJsonAndLandUnderTheirWorkload) {
  const auto p = scratch("section.json");
  std::ofstream(p) << R"json({"headroom_report_section": 1, "kind": "replay", "title": "Replay projections",
    "workload": "h200-dlrm-train", "paragraphs": ["Replayed with embeddings 2x faster."],
    "tables": [{"caption": "replayed wall clock", "columns": ["case", "wall ms"], "rows": [["measured", 12.5], ["replayed", "12.4"]]}],
    "bars": {"label": "end-to-end speedup (x)", "values": [{"label": "embedding 2x", "value": 1.31, "low": 1.28, "high": 1.33}]}})json";
  report::build_options o;
  o.sections = {p};
  const auto d = report::build_document({dlrm}, o);
  ASSERT_EQ(d.sections.size(), 1u);
  EXPECT_EQ(d.sections[0].tables[0].rows[0][1], "12.5");
  const std::string html = html_of(d);
  const auto section = html.find("<section class=\"extra replay\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, html.find("</section>", html.find("id=\"workload-h200-dlrm-train\""))) << "inside its workload";
  EXPECT_NE(html.find("data-value=\"1.31\""), std::string::npos);

  std::ofstream(p) << R"({"headroom_report_section": 1, "title": "x", "colour": "red"})";
  EXPECT_THROW(report::read_section_json(p), input_error);
  std::ofstream(p) << R"({"title": "x"})";
  EXPECT_THROW(report::read_section_json(p), input_error);
  std::filesystem::remove(p);
}

TEST(Report, InputsAreRecognisedByContent) {
  const auto db = scratch("results.sqlite");
  {
    eval::results_store store(db);
    record::evaluation e;
    e.source = "model";
    e.problem = "level1/19_ReLU";
    e.candidate_hash = "c1";
    e.problem_hash = "p1";
    e.result = record::verdict::correct;
    e.speedup = 1.4;
    store.put(e);
  }
  EXPECT_EQ(report::recognise_input(db), report::input_kind::results_store);
  EXPECT_EQ(report::recognise_input(published), report::input_kind::speedups_csv);
  EXPECT_EQ(report::recognise_input(dlrm), report::input_kind::trace);
  // A shared store is named by its URL: nothing to look at before connecting.
  EXPECT_EQ(report::recognise_input("postgresql://eval@db-host/kb"), report::input_kind::results_store);
  const auto d = report::build_document({db, dlrm}, report::build_options{});
  ASSERT_EQ(d.sources.size(), 1u);
  EXPECT_EQ(d.sources[0].name, "model");
  EXPECT_EQ(d.workloads[0].projection.sources.size(), 1u);
  for (const auto& f : {db, std::filesystem::path(db.string() + "-wal"), std::filesystem::path(db.string() + "-shm")}) {
    std::filesystem::remove(f);
  }
}
