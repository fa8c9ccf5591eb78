#include "headroom/report/build.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <fstream>
#include <set>

#include "headroom/trace/reader.hpp"
#include "headroom/util/error.hpp"

namespace headroom::report {
namespace {

// The kind a headroom SQLite file names in its headroom_meta table ("" when it has none).
std::string sqlite_kind(const std::filesystem::path& p) {
  sqlite3* db = nullptr;
  std::string kind;
  if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT value FROM headroom_meta WHERE key = 'kind'", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      if (const auto* text = sqlite3_column_text(st, 0)) kind = reinterpret_cast<const char*>(text);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return kind;
}

bool is_sqlite(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string_view(head, sizeof head) == std::string_view("SQLite format 3\0", 16);
}

std::string workload_name(const std::filesystem::path& p, std::set<std::string>& taken) {
  std::string name = p.filename().string();
  for (std::string_view ext : {".gz", ".json", ".sqlite", ".db", ".nsys-rep"}) {
    if (name.size() > ext.size() && name.ends_with(ext)) name.resize(name.size() - ext.size());
  }
  std::string unique = name;
  for (int i = 2; taken.count(unique); ++i) unique = fmt::format("{}-{}", name, i);
  taken.insert(unique);
  return unique;
}

}  // namespace

input_kind recognise_input(const std::filesystem::path& p) {
  if (p.extension() == ".csv") return input_kind::speedups_csv;
  if (is_sqlite(p) && sqlite_kind(p) == "eval-results") return input_kind::results_store;
  return input_kind::trace;
}

std::vector<project::measured_source> read_results_sources(const std::vector<std::filesystem::path>& files,
                                                           const build_options& o) {
  project::source_files f{{}, {}, o.problem_category_files, o.source};
  for (const auto& p : files) {
    if (!std::filesystem::exists(p)) throw input_error(fmt::format("cannot open {}: no such file", p.string()));
    switch (recognise_input(p)) {
      case input_kind::results_store: f.results.push_back(p); break;
      case input_kind::speedups_csv: f.speedups.push_back(p); break;
      case input_kind::trace:
        throw input_error(fmt::format("{}: neither a results store written by `headroom eval` nor a .csv of speedups",
                                      p.string()));
    }
  }
  return project::read_sources(f);
}

workload build_workload(std::string name, const std::vector<std::filesystem::path>& traces,
                        const classify::classifier& c, const build_options& o,
                        const std::vector<project::measured_source>& sources) {
  workload w;
  w.name = std::move(name);
  for (const auto& p : traces) w.files.push_back(p.string());
  trace::inputs_options read;
  read.read.launch_pairs_for_json = true;
  read.allow_partial = o.allow_partial;
  w.projection = project::project_measured(trace::read_traces(traces, read), c, o.analysis, sources, o.join);
  return w;
}

document build_document(const std::vector<std::filesystem::path>& inputs, const build_options& o) {
  document d;
  d.title = o.title;
  d.generator = o.generator;
  d.join = o.join;
  std::vector<std::filesystem::path> traces, results;
  for (const auto& p : inputs) {
    if (!std::filesystem::exists(p)) throw input_error(fmt::format("cannot open {}: no such file", p.string()));
    (recognise_input(p) == input_kind::trace ? traces : results).push_back(p);
  }
  d.sources = read_results_sources(results, o);
  const auto classifier = classify::classifier::with_user_rules(o.rules);
  std::set<std::string> names;
  for (const auto& p : traces) d.workloads.push_back(build_workload(workload_name(p, names), {p}, classifier, o, d.sources));
  for (const auto& s : o.sections) d.sections.push_back(read_section_json(s));
  return d;
}

}  // namespace headroom::report
