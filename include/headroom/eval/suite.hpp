#pragma once
// Suites: candidates with the verdicts they must get (suites/adversarial/manifest.toml; docs/eval.md,
// "Suites"), and how a run's evaluations meet them.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/jobs.hpp"

namespace headroom::eval {

struct suite_case {
  std::string name;
  std::string exploit;
  record::verdict expect = record::verdict::correct;
  std::vector<std::string> reasons;
  std::vector<std::string> devices;  // "cpu", "cuda"
  // The speedup must stay below this (a candidate slower than the reference that games its timing
  // would come out faster); unset: no bound. Applies only when the evaluation was timed.
  std::optional<double> max_speedup;
  eval_job job;
};

// Reads a suite manifest (docs/eval.md, "Suites"); paths are relative to the manifest.
std::vector<suite_case> load_suite(const std::filesystem::path& manifest, const std::string& source);

// Whether an evaluation meets a case's expectation; `why` says how it does not.
bool meets_expectation(const suite_case& c, const record::evaluation& e, std::string& why);

// The cases of a suite meaningful on a device kind ("cpu" or "cuda").
std::vector<suite_case> cases_for(std::vector<suite_case> cases, const std::string& device_kind);

// How one case came out in a run.
struct case_outcome {
  const suite_case* c = nullptr;
  const record::evaluation* got = nullptr;  // null: the run has no evaluation of the case
  bool ok = false;  // got meets the case's expectation
  std::string why;  // how it does not
};
// Each case matched to its evaluation in `results` (by candidate and problem hash).
std::vector<case_outcome> judge_cases(const std::vector<suite_case>& cases,
                                      const std::vector<record::evaluation>& results);

}  // namespace headroom::eval
