// headroom audit PROBLEMS... : does our check reject zeros, a constant, the mean and the input?
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "eval_options.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/util/json.hpp"

namespace headroom::cli {
namespace {

struct audit_args {
  eval_cli common;
  std::vector<std::string> problems;
  bool json = false;
  bool strict = false;
};

const char* mark(bool passes) { return passes ? "PASS" : "fail"; }

int run_audit(audit_args& a) {
  a.common.options.timing = false;
  finish_eval_options(a.common);
  std::vector<std::filesystem::path> pp(a.problems.begin(), a.problems.end());
  auto problems = eval::find_problems(pp);
  int undiscriminating = 0, zeros_legacy = 0;
  std::string json = R"({"schema_version":1,"problems":[)";
  if (!a.json)
    fmt::print("{:<40} {:>6}  {:<17} {:<17} {:<17} {:<17} {}\n", "problem", "trials", "zeros", "constant", "mean",
               "passthrough", "ours rejects all");
  if (!a.json) fmt::print("{:<40} {:>6}  {}\n", "", "", "(ours / legacy 1e-2 / legacy 1e-4 for each fake)");
  for (std::size_t i = 0; i < problems.size(); ++i) {
    auto r = eval::audit_problem(problems[i], a.common.options);
    bool ok = r.discriminating();
    if (!ok) ++undiscriminating;
    for (const auto& f : r.fakes)
      if (f.name == "zeros" && f.passes_legacy_1e2) ++zeros_legacy;
    if (a.json) {
      json += (i ? "," : "") + eval::audit_json(r);
      continue;
    }
    if (!r.error.empty()) {
      fmt::print("{:<40} {:>6}  reference failed: {}\n", r.problem, 0, r.error.substr(0, 100));
      continue;
    }
    std::string cells;
    for (const auto& f : r.fakes)
      cells += f.applicable ? fmt::format("{:<17} ", fmt::format("{}/{}/{}", mark(f.passes_ours), mark(f.passes_legacy_1e2),
                                                                 mark(f.passes_legacy_1e4)))
                            : fmt::format("{:<17} ", f.equals_reference ? "n/a (= ref)" : "n/a");
    fmt::print("{:<40} {:>6}  {}{}\n", r.problem, r.trials, cells, ok ? "yes" : "NO");
    std::fflush(stdout);
  }
  if (a.json) {
    fmt::print("{}]}}\n", json);
  } else {
    fmt::print("\n{} problem(s); our check rejects every fake on {}; zeros pass the legacy 1e-2 check on {}\n",
               problems.size(), problems.size() - undiscriminating, zeros_legacy);
  }
  return a.strict && undiscriminating ? 1 : 0;
}

const command_registration registration{command{
    "audit", 45, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<audit_args>();
      auto* sub = app.add_subcommand("audit", "Prove that each problem's check rejects zeros, a constant, the mean and the input");
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
