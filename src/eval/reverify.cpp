#include "headroom/eval/reverify.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/loaders.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::eval {

using record::evaluation;
using record::verdict;

namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw input_error(fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message()));
  util::output_file out(path);
  out.stream() << text;
  out.commit();
}

const evaluation* stored_row(const reverify_plan& plan, const evaluation& e) {
  // The last stored row of the pair, as rows come newest checker first per device.
  const evaluation* found = nullptr;
  for (const auto& b : plan.before)
    if (b.candidate_hash == e.candidate_hash && b.problem_hash == e.problem_hash) found = &b;
  return found;
}

}  // namespace

reverify_plan plan_reverify(results_store& store, const evaluation_filter& f, const std::filesystem::path& folder) {
  reverify_plan plan;
  for (const auto& e : store.evaluations(f)) {
    if (e.result == verdict::reference_error) continue;
    auto c = store.candidate(e.candidate_hash);
    auto p = store.problem_by_hash(e.problem_hash);
    if (!c || !p) {
      plan.skipped.push_back(
          fmt::format("{} on {}: the stored source text is missing; skipped", e.candidate_path, e.problem));
      continue;
    }
    auto ppath = folder / "problems" / p->hash.substr(0, 16) / p->id;
    ppath += ".py";
    auto cpath =
        folder / "candidates" / (c->hash.substr(0, 16) + "_" + std::filesystem::path(c->path).filename().string());
    write_text(ppath, p->text);
    write_text(cpath, c->text);
    eval_job j{load_problem(ppath), load_candidate(cpath, c->source)};
    j.problem.id = p->id;
    plan.jobs.push_back(std::move(j));
    plan.before.push_back(e);
  }
  return plan;
}

std::vector<const evaluation*> timing_lost(const reverify_plan& plan, const eval_options& options) {
  std::vector<const evaluation*> lost;
  if (options.timing) return lost;
  const auto devices = expand_devices(options.device);
  for (const auto& e : plan.before) {
    const bool replaced =
        e.checker == checker_version && std::find(devices.begin(), devices.end(), e.env.device) != devices.end();
    if (replaced && (e.speedup || e.candidate_timing)) lost.push_back(&e);
  }
  return lost;
}

std::vector<verdict_change> changed_verdicts(const reverify_plan& plan, const std::vector<evaluation>& after) {
  std::vector<verdict_change> changes;
  for (const auto& e : after) {
    const evaluation* b = stored_row(plan, e);
    if (b && b->result != e.result) changes.push_back({b, &e});
  }
  return changes;
}

}  // namespace headroom::eval
