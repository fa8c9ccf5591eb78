// headroom audit PROBLEMS... : does our check reject zeros, a constant, the mean and the input?
#include <algorithm>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/audit.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/eval/loaders.hpp"
#include "headroom/report/eval_output.hpp"

namespace headroom::cli {
namespace {

struct audit_args {
  eval_cli common;
  std::vector<std::string> problems;
  bool json = false;
  bool strict = false;
};

int run_audit(audit_args& a) {
  a.common.options.timing = false;
  finish_eval_options(a.common);
  std::vector<std::filesystem::path> pp(a.problems.begin(), a.problems.end());
  auto problems = eval::find_problems(pp);
  std::vector<eval::audit_result> results;
  if (!a.json) report::write_audit_header(std::cout);
  for (const auto& problem : problems) {
    results.push_back(eval::audit_problem(problem, a.common.options));
    if (a.json) continue;
    report::write_audit_row(std::cout, results.back());
    std::cout.flush();  // a row as each problem is done: an audit takes seconds a problem
  }
  if (a.json) {
    report::write_audit_json(std::cout, results);
  } else {
    report::write_audit_summary(std::cout, results);
  }
  const bool all_discriminating =
      std::all_of(results.begin(), results.end(), [](const eval::audit_result& r) { return r.discriminating(); });
  return a.strict && !all_discriminating ? 1 : 0;
}

const command_registration registration{command{
    "audit", 45, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<audit_args>();
      auto* sub = app.add_subcommand(
          "audit", "Prove that each problem's check rejects zeros, a constant, the mean and the input");
      sub->description(
          "Prove that each problem's check rejects zeros, a constant, the mean and the input.\n\n"
          "Runs only the reference (no candidate) on every trial's inputs and checks four fake outputs against it:\n"
          "zeros, the constant 1, the reference's mean, and the first input with as many elements as the output.\n"
          "Each cell reads ours/legacy-1e-2/legacy-1e-4: PASS means that fake would be accepted. 'ours' must fail\n"
          "everywhere; the legacy columns show what KernelBench's allclose would have accepted.");
      sub->add_option("problems", a->problems, "Problem files or folders")->required();
      sub->add_flag("--json", a->json, "JSON instead of the table");
      sub->add_flag("--strict", a->strict, "Exit status 1 when any problem does not reject every fake");
      add_eval_options(sub, a->common, false);
      return [a] { return run_audit(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
