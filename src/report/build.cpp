#include "headroom/report/build.hpp"

#include <fmt/format.h>

#include <set>

#include "headroom/analyze/inputs.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::report {
namespace {

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
  if (store::is_results_store(p.string())) return input_kind::results_store;
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
    const auto kind = recognise_input(p);
    if (kind != input_kind::results_store && !std::filesystem::exists(p))
      throw input_error(fmt::format("cannot open {}: no such file", p.string()));
    switch (kind) {
      case input_kind::trace: traces.push_back(p); break;
      case input_kind::results_store: files.results.push_back(p.string()); break;
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
