// headroom results export DB -o FILE.jsonl | headroom results import FILE.jsonl|RUNS --db DB
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "command.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/eval/kernelbench_results.hpp"
#include "headroom/store/release.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::cli {
namespace {

struct results_args {
  std::string db, output, input, source;
  std::vector<std::string> problems;
};

int run_export(const results_args& a) {
  store::results_store from(a.db, store::results_store::access::read_only);
  // Whole or not at all: an interrupted export never leaves half a release, nor writes over the store.
  util::output_file file(a.output, std::vector<std::filesystem::path>{a.db});
  const store::release_counts n = store::write_release(from, file.stream());
  file.commit();
  fmt::print(stderr, "{}: {} evaluation(s) of {} candidate(s) on {} problem(s) from {}\n", file.name(), n.evaluations,
             n.candidates, n.problems, from.where().display());
  return 0;
}

int run_import(const results_args& a) {
  const std::filesystem::path input = a.input;
  store::results_store into(a.db);
  if (std::filesystem::is_directory(input)) {
    if (a.problems.empty())
      throw input_error(
          fmt::format("{} is a KernelBench runs folder: --problems names the problems it was generated for", a.input));
    std::vector<std::filesystem::path> pp(a.problems.begin(), a.problems.end());
    const auto run = eval::read_kernelbench_run(input, eval::find_problems(pp), a.source);
    for (const auto& why : run.skipped) fmt::print(stderr, "skipped: {}\n", why);
    eval::import_kernelbench_run(into, run);
    fmt::print(stderr,
               "{}: {} KernelBench result(s) imported into {} (checker v{}: judged elsewhere; `headroom reverify` "
               "judges them again)\n",
               a.input, run.evaluations.size(), into.where().display(), eval::imported_checker);
    return 0;
  }
  if (!a.source.empty() || !a.problems.empty())
    throw input_error("--source and --problems are for a KernelBench runs folder, not a release file");
  std::ifstream in(input, std::ios::binary);
  if (!in) throw input_error(fmt::format("cannot read {}", a.input));
  const auto n = store::read_release(in, a.input, into);
  fmt::print(stderr, "{}: {} evaluation(s) of {} candidate(s) on {} problem(s) imported into {}\n", a.input,
             n.evaluations, n.candidates, n.problems, into.where().display());
  return 0;
}

const command_registration registration{command{
    "results", 58, [](CLI::App& app) -> std::function<int()> {
      auto a = std::make_shared<results_args>();
      auto* sub = app.add_subcommand("results",
                                     "Export a results store as a release, or import a release or a KernelBench run");
      sub->description(
          "Export a results store as a release, or import a release or a KernelBench run.\n\n"
          "A release (docs/releases.md) is a JSON Lines file in a versioned schema: every evaluation with its candidate's\n"
          "code, its problem's text and hash, the verdict, reasons, error metrics, timing summaries, hardware and\n"
          "software, and the checker version. Imported into a store, `headroom reverify` judges it again under this\n"
          "checker and lists every verdict that changes.");
      sub->require_subcommand(1);
      auto* exp = sub->add_subcommand("export", "Write every evaluation of a store to a release file");
      exp->add_option("db", a->db, "Results store: a SQLite file or a postgresql:// URL")->required();
      exp->add_option("-o,--output", a->output, "The release file to write (.jsonl; - for standard output)")
          ->required();
      auto* imp = sub->add_subcommand(
          "import", "Read a release file, or a KernelBench runs folder's eval_results.json, into a store");
      imp->add_option("input", a->input,
                      "A release file (.jsonl), or a KernelBench runs folder (with eval_results.json)")
          ->required();
      imp->add_option("--db", a->db, "Results store to import into (default results.sqlite)")
          ->default_val("results.sqlite");
      imp->add_option("--problems", a->problems,
                      "KernelBench runs folder: the problem files or folders it was generated for");
      imp->add_option("--source", a->source,
                      "KernelBench runs folder: the model configuration (default: the folder's name)");
      sub->footer(
          "Examples:\n"
          "  headroom results export kb.sqlite -o kb-release.jsonl\n"
          "  headroom results import kb-release.jsonl --db check.sqlite && headroom reverify --db check.sqlite\n"
          "  headroom results import runs/gpt5_level1 --problems KernelBench/level1 --db check.sqlite");
      return [a, exp] { return exp->parsed() ? run_export(*a) : run_import(*a); };
    }}};

}  // namespace
}  // namespace headroom::cli
