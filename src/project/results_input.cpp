// Results stores written by `headroom eval`, turned into the join's distributions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "headroom/project/measured_speedups.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"

namespace headroom::project {

std::vector<measured_source> sources_from_evaluations(const std::vector<record::evaluation>& rows,
                                                      const problem_categories& categories, const std::string& origin) {
  // The harness's own consistency check (each problem's Model as its candidate) says nothing about
  // generated kernels; it is a source only when asked for by name (the caller filters then).
  const bool only_reference =
      std::all_of(rows.begin(), rows.end(), [](const auto& e) { return e.source == "reference"; });
  std::map<std::string, std::map<std::string, problem_result>> by_source;
  std::vector<record::evaluation> kept;
  for (const auto& e : rows) {
    if (e.result == record::verdict::reference_error) continue;  // the problem failed, not the candidate
    if (e.source == "reference" && !only_reference) continue;
    auto& p = by_source[e.source][e.problem];
    if (p.problem.empty()) {
      p.problem = e.problem;
      p.category = categories.of_problem(e.problem);
    }
    const bool win = record::verified(e) && e.speedup && std::isfinite(*e.speedup) && *e.speedup > 1.0;
    p.effective.push_back(win ? *e.speedup : 1.0);
    kept.push_back(e);
  }
  const auto stats = eval::summarize(kept, eval::default_fast_p());
  std::vector<measured_source> out;
  for (auto& [name, problems] : by_source) {
    measured_source s;
    s.name = name;
    s.origin = origin;
    for (auto& [id, p] : problems) s.problems.push_back(std::move(p));
    for (const auto& st : stats) {
      if (st.source == name) s.figures = st;
    }
    for (const auto& e : kept) {
      if (e.source == name && record::verified(e) && e.speedup && std::isfinite(*e.speedup) && *e.speedup > 0) {
        s.verified_speedups.push_back(*e.speedup);
      }
    }
    std::sort(s.verified_speedups.begin(), s.verified_speedups.end());
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<measured_source> read_results_store(const std::string& where, const std::optional<std::string>& source,
                                                const problem_categories& categories) {
  store::results_store store(where, store::results_store::access::read_only);
  store::evaluation_filter f;
  if (source) f.source = *source;
  const std::string name = store.where().display();  // a URL's password is not repeated
  auto sources = sources_from_evaluations(store.evaluations(f), categories, name);
  if (sources.empty()) {
    throw input_error(source ? fmt::format("{} holds no evaluations of source '{}'", name, *source)
                             : fmt::format("{} holds no evaluations", name));
  }
  return sources;
}

stored_speedup read_stored_speedup(const std::string& where, const std::string& problem,
                                   const std::optional<std::string>& source) {
  store::results_store store(where, store::results_store::access::read_only);
  store::evaluation_filter f;
  if (source) f.source = *source;
  const auto names = [&](const std::string& id) {
    if (id == problem) return true;
    const auto slash = id.rfind('/');
    return slash != std::string::npos && id.compare(slash + 1, std::string::npos, problem) == 0;
  };
  std::optional<stored_speedup> best;
  std::size_t seen = 0;
  for (const auto& e : store.evaluations(f)) {
    if (!names(e.problem) || e.source == "reference") continue;
    ++seen;
    if (!record::verified(e) || !e.speedup) continue;
    if (best && best->started_at >= e.started_at) continue;
    best = stored_speedup{*e.speedup, e.problem, e.source, e.started_at};
  }
  if (!best) {
    throw input_error(seen == 0
                          ? fmt::format("{} holds no evaluation of problem '{}'{}", store.where().display(), problem,
                                        source ? fmt::format(" by source '{}'", *source) : "")
                          : fmt::format("{}: none of the {} evaluations of problem '{}' is verified (correct, with "
                                        "a speedup and no disqualifying flag)",
                                        store.where().display(), seen, problem));
  }
  return *best;
}

std::vector<measured_source> read_sources(const source_files& f) {
  auto categories = problem_categories::with_defaults();
  for (const auto& c : f.category_files) categories.add_file(c);
  std::vector<measured_source> out;
  for (const auto& db : f.results) {
    auto s = read_results_store(db, f.source, categories);
    out.insert(out.end(), std::make_move_iterator(s.begin()), std::make_move_iterator(s.end()));
  }
  for (const auto& csv : f.speedups) {
    auto s = read_speedups_csv(csv, f.source, categories);
    out.insert(out.end(), std::make_move_iterator(s.begin()), std::make_move_iterator(s.end()));
  }
  return out;
}

}  // namespace headroom::project
