#include "headroom/report/build.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <fstream>
#include <set>

#include "headroom/analyze/inputs.hpp"
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

document build_document(const std::vector<std::filesystem::path>& inputs, const build_options& o) {
  document d;
  d.title = o.title;
  d.generator = o.generator;
  d.join = o.join;
  project::source_files files{{}, {}, o.problem_category_files, o.source};
  std::vector<std::filesystem::path> traces;
  for (const auto& p : inputs) {
    if (!std::filesystem::exists(p)) throw input_error(fmt::format("cannot open {}: no such file", p.string()));
    switch (recognise_input(p)) {
      case input_kind::trace: traces.push_back(p); break;
      case input_kind::results_store: files.results.push_back(p); break;
      case input_kind::speedups_csv: files.speedups.push_back(p); break;
    }
  }
  d.sources = project::read_sources(files);
  const auto classifier = classify::classifier::with_user_rules(o.rules);
  std::set<std::string> names;
  for (const auto& p : traces) {
    const auto t = analyze::read_traces({p});
    workload w;
    w.name = workload_name(p, names);
    w.files = {p.string()};
    w.projection = project::project_measured(t, classifier, o.analysis, d.sources, o.join);
    d.workloads.push_back(std::move(w));
  }
  for (const auto& s : o.sections) d.sections.push_back(read_section_json(s));
  return d;
}

}  // namespace headroom::report
