// KernelBench's eval_results.json: an object keyed by problem id (the number in the problem's file
// name), each holding one sample's result or an array of them:
//   {"sample_id": 0, "compiled": true, "correctness": false, "runtime": 0.0123,
//    "runtime_stats": {"mean", "std", "min", "max", "num_trials", "hardware", "device"},
//    "ref_runtime": ..., "metadata": {"hardware", "device", "correctness_trials": "(3 / 5)",
//    "max_difference": [...], "runtime_error": ..., "compilation_error": ..., "excessive_speedup": ...}}
// Its times are milliseconds (the mean over trials). docs/releases.md says how each field maps.
#include "headroom/eval/kernelbench_results.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "headroom/eval/jobs.hpp"
#include "headroom/eval/loaders.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"

namespace headroom::eval {

using record::evaluation;
using record::verdict;

namespace fs = std::filesystem;

namespace {

std::string string_or(simdjson::dom::element e, std::string_view key, std::string_view fallback = {}) {
  std::string_view v;
  if (e[key].get_string().get(v) == simdjson::SUCCESS) return std::string(v);
  // Some fields are written as lists or numbers: kept as their JSON text.
  simdjson::dom::element x;
  if (e[key].get(x) == simdjson::SUCCESS && !x.is_null()) return simdjson::minify(x);
  return std::string(fallback);
}

std::optional<double> number(simdjson::dom::element e, std::string_view key) {
  double v = 0;
  if (e[key].get_double().get(v) == simdjson::SUCCESS && std::isfinite(v)) return v;
  return std::nullopt;
}

bool flag(simdjson::dom::element e, std::string_view key) {
  bool v = false;
  return e[key].get_bool().get(v) == simdjson::SUCCESS && v;
}

evaluation imported_evaluation(simdjson::dom::element r, const eval_job& job, const std::string& where) {
  evaluation e = evaluation_of(job.candidate, job.problem, imported_checker);
  simdjson::dom::element meta;
  if (r["metadata"].get(meta) != simdjson::SUCCESS || !meta.is_object()) meta = r;  // absent: read nothing from it
  bool compiled = false, correct = false;
  if (r["compiled"].get_bool().get(compiled) != simdjson::SUCCESS ||
      r["correctness"].get_bool().get(correct) != simdjson::SUCCESS)
    throw input_error(fmt::format("{}: a result without \"compiled\" and \"correctness\" booleans", where));
  const std::string runtime_error = string_or(meta, "runtime_error");
  if (!compiled) e.result = verdict::compile_error;
  else if (correct) e.result = verdict::correct;
  else if (!runtime_error.empty()) e.result = verdict::runtime_error;
  else e.result = verdict::incorrect;
  std::string why = fmt::format("KernelBench eval_results.json: compiled {}, correctness {}", compiled, correct);
  const std::string trials = string_or(meta, "correctness_trials");
  if (!trials.empty()) why += ", trials " + trials;
  e.reasons.push_back({"imported", why});
  if (!compiled) e.reasons.push_back({"compile_error", string_or(meta, "compilation_error", "did not compile")});
  if (!runtime_error.empty()) e.reasons.push_back({"runtime_error", runtime_error});
  const std::string issue = string_or(meta, "correctness_issue");
  if (!issue.empty()) e.reasons.push_back({"mismatch", issue});
  if (flag(meta, "excessive_speedup")) e.reasons.push_back({"excessive_speedup", "flagged by KernelBench"});
  // "(k / n)": trials passed of trials run.
  static const std::regex k_of_n(R"(\(\s*(\d+)\s*/\s*(\d+)\s*\))");
  if (std::smatch m; std::regex_search(trials, m, k_of_n)) {
    e.errors.trials_passed = std::stoi(m[1]);
    e.errors.trials = std::stoi(m[2]);
  }
  e.errors.normwise_error = std::nan("");  // KernelBench does not measure it
  e.errors.max_abs_error = std::nan("");
  simdjson::dom::array diffs;
  if (meta["max_difference"].get_array().get(diffs) == simdjson::SUCCESS) {
    for (auto d : diffs) {
      double v = 0;
      std::string_view s;
      if (d.get_double().get(v) != simdjson::SUCCESS && d.get_string().get(s) == simdjson::SUCCESS)
        v = std::strtod(std::string(s).c_str(), nullptr);
      if (std::isnan(e.errors.max_abs_error) || v > e.errors.max_abs_error) e.errors.max_abs_error = v;
    }
  }
  simdjson::dom::element stats;
  const bool timed = r["runtime_stats"].get(stats) == simdjson::SUCCESS && stats.is_object();
  if (timed) {
    record::timing_summary t;
    std::int64_t n = 0;
    if (stats["num_trials"].get_int64().get(n) == simdjson::SUCCESS) t.samples = static_cast<int>(n);
    t.mean_ms = number(stats, "mean").value_or(std::nan(""));
    t.stddev_ms = number(stats, "std").value_or(std::nan(""));
    t.min_ms = number(stats, "min").value_or(std::nan(""));
    t.max_ms = number(stats, "max").value_or(std::nan(""));
    t.median_ms = t.rel_spread = t.wall_median_ms = std::nan("");  // not measured there
    t.score_ms = t.mean_ms;  // what KernelBench's speedups divide
    if (t.samples > 0) e.candidate_timing = t;
  }
  const auto runtime = number(r, "runtime");
  const auto reference = number(r, "ref_runtime");
  if (correct && runtime && reference && *runtime > 0) e.speedup = *reference / *runtime;
  e.env.gpu = string_or(meta, "hardware", timed ? string_or(stats, "hardware") : "");
  e.env.device = string_or(meta, "device", timed ? string_or(stats, "device") : "");
  e.duration_s = std::nan("");
  return e;
}

}  // namespace

kernelbench_run read_kernelbench_run(const fs::path& runs_dir, const std::vector<problem_spec>& problems,
                                     const std::string& source) {
  const fs::path file = runs_dir / "eval_results.json";
  const auto text = util::read_file(file);
  if (!text)
    throw input_error(
        fmt::format("{}: no such file (a KernelBench runs folder holds its eval_results.json)", file.string()));
  simdjson::dom::parser parser;
  simdjson::dom::object by_problem;
  const simdjson::padded_string padded(*text);
  if (parser.parse(padded).get_object().get(by_problem) != simdjson::SUCCESS)
    throw input_error(fmt::format("{}: not a JSON object keyed by problem id", file.string()));
  const std::string name = source.empty() ? runs_dir.filename().string() : source;
  // The folder's kernel files by problem and sample, whatever their level (the last by name where
  // two levels hold one).
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(runs_dir)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::map<std::pair<std::string, std::string>, fs::path> kernel_files;
  for (const auto& f : files)
    if (const auto g = parse_generation_name(f.filename().string())) kernel_files[{g->problem, g->sample}] = f;
  kernelbench_run out;
  for (auto [key, value] : by_problem) {
    std::vector<simdjson::dom::element> samples;
    simdjson::dom::array list;
    if (value.get_array().get(list) == simdjson::SUCCESS) {
      for (simdjson::dom::element s : list) samples.push_back(s);
    } else {
      samples.push_back(value);
    }
    for (simdjson::dom::element r : samples) {
      std::int64_t sample = 0;
      if (r["sample_id"].get_int64().get(sample) != simdjson::SUCCESS) sample = 0;
      const std::string where = fmt::format("{}: problem {} sample {}", file.string(), key, sample);
      const auto found = kernel_files.find({std::string(key), std::to_string(sample)});
      if (found == kernel_files.end()) {
        out.skipped.push_back(where + ": no kernel file beside it");
        continue;
      }
      std::vector<eval_job> paired;
      try {
        paired = pair_candidates(problems, {found->second}, name);
      } catch (const input_error& e) {
        out.skipped.push_back(where + ": " + e.what());
        continue;
      }
      out.evaluations.push_back(imported_evaluation(r, paired.front(), where));
      out.jobs.push_back(std::move(paired.front()));
    }
  }
  return out;
}

void import_kernelbench_run(store::results_store& into, const kernelbench_run& run) {
  std::vector<const eval_job*> jobs;
  for (const auto& j : run.jobs) jobs.push_back(&j);
  store::transaction t(into.db());
  put_texts(into, jobs);
  for (const auto& e : run.evaluations) into.put(e);
  t.commit();
}

}  // namespace headroom::eval
