// `headroom stats` end to end: the executable on stores written by the library.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "eval/results_rows.hpp"
#include "headroom/eval/results_store.hpp"
#include "headroom/eval/stats.hpp"
#include "headroom/report/stats_output.hpp"

using namespace headroom;
using record::verdict;
using headroom::test::row;
using headroom::test::scratch_dir;

namespace {

struct result {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

result run_stats(const scratch_dir& dir, const std::string& args) {
  const auto out = dir / "stdout.txt";
  const auto err = dir / "stderr.txt";
  const std::string cmd =
      std::string("'") + HEADROOM_CLI + "' stats " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

void fill(const std::filesystem::path& path) {
  eval::results_store store(path);
  store.put(row("gpt-5/level1", "a", verdict::correct, 1.5));
  store.put(row("gpt-5/level1", "b", verdict::incorrect));
  store.put(row("claude/level1", "a", verdict::correct, 2.5));
  auto old = row("claude/level1", "a", verdict::correct, 9.0);  // an older checker's row: not counted
  old.checker = 0;
  store.put(old);
}

}  // namespace

TEST(StatsCli, MissingStoreExitsTwoNamingTheFile) {
  scratch_dir dir("stats-cli-missing");
  std::filesystem::create_directories(dir.path());
  const auto missing = dir / "nope.sqlite";
  const auto r = run_stats(dir, "'" + missing.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(missing.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(StatsCli, EmptyStoreSaysSoAndSucceeds) {
  scratch_dir dir("stats-cli-empty");
  const auto path = dir / "results.sqlite";
  { eval::results_store store(path); }
  const auto r = run_stats(dir, "'" + path.string() + "'");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("holds no evaluations"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  const auto csv = run_stats(dir, "'" + path.string() + "' --csv");
  EXPECT_EQ(csv.status, 0);
  EXPECT_EQ(csv.out.find("source,evaluations,"), 0u) << csv.out;
}

TEST(StatsCli, OutputsAreTheLibraryRenderingsOfTheNewestRows) {
  scratch_dir dir("stats-cli-rows");
  const auto path = dir / "results.sqlite";
  fill(path);
  eval::results_store store(path, eval::results_store::access::read_only);
  const auto rows = store.evaluations();
  ASSERT_EQ(rows.size(), 3u);

  std::ostringstream csv, json, console;
  report::write_stats_csv(csv, eval::summarize(rows, eval::default_fast_p()));
  report::write_stats_console(console, eval::summarize(rows, eval::default_fast_p()));
  const auto r = run_stats(dir, "'" + path.string() + "' --csv");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, csv.str());
  const auto c = run_stats(dir, "'" + path.string() + "'");
  EXPECT_EQ(c.out, console.str());

  eval::evaluation_filter f;
  f.source = "claude/level1";
  report::write_stats_json(json, eval::summarize(store.evaluations(f), {0.0, 2.0}));
  const auto file = dir / "stats.json";
  const auto j =
      run_stats(dir, "'" + path.string() + "' --json --source claude/level1 --p 2,0 -o '" + file.string() + "'");
  EXPECT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(j.out.empty());
  EXPECT_EQ(slurp(file), json.str());
}

// -o is written whole or not at all, every write checked: a full device is an error, and the store
// itself is never the target.
TEST(StatsCli, AnOutputThatCannotBeWrittenIsAnErrorAndTheStoreIsNeverOverwritten) {
  scratch_dir dir("stats-cli-output");
  const auto path = dir / "results.sqlite";
  fill(path);
  const auto full = run_stats(dir, "'" + path.string() + "' --csv -o /dev/full");
  EXPECT_EQ(full.status, 2);
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  const auto before = slurp(path);
  const auto over = run_stats(dir, "'" + path.string() + "' --csv -o '" + path.string() + "'");
  EXPECT_EQ(over.status, 2);
  EXPECT_NE(over.err.find("is also an input"), std::string::npos) << over.err;
  EXPECT_EQ(slurp(path), before);
}

TEST(StatsCli, RejectsANegativeThreshold) {
  scratch_dir dir("stats-cli-p");
  const auto path = dir / "results.sqlite";
  fill(path);
  const auto r = run_stats(dir, "'" + path.string() + "' --p=-1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--p"), std::string::npos) << r.err;
}
