// The results store: what `headroom eval` relies on to resume, rerun with a newer checker and be
// read by `headroom stats` (docs/eval-results.md), on SQLite and on PostgreSQL alike.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "eval/results_rows.hpp"
#include "golden.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/store/sqlite.hpp"
#include "headroom/util/error.hpp"
#include "store/full_evaluation.hpp"
#include "store/scratch_store.hpp"

using namespace headroom;
using record::verdict;
using headroom::test::expect_same;
using headroom::test::full_row;
using headroom::test::on_each_backend;
using headroom::test::row;
using headroom::test::scratch_dir;
using headroom::test::scratch_store;
using store::results_store;
namespace sqlite = headroom::store::sqlite;

namespace {

std::int64_t count_rows(const std::string& where, const std::string& table) {
  auto db = store::connection::open(store::location::parse(where), store::connection::access::read_only);
  std::int64_t n = 0;
  db->run("SELECT count(*) FROM " + table, {}, [&](const store::row& r) { n = r.integer(0); });
  return n;
}

std::string meta(const std::string& where, const std::string& key) {
  auto db = store::connection::open(store::location::parse(where), store::connection::access::read_only);
  std::string value;
  db->run("SELECT value FROM headroom_meta WHERE key = $1", {key}, [&](const store::row& r) { value = r.text(0); });
  return value;
}

void set_meta(const std::string& where, const std::string& key, const std::string& value) {
  auto db = store::connection::open(store::location::parse(where), store::connection::access::read_write);
  db->run("UPDATE headroom_meta SET value = $1 WHERE key = $2", {value, key});
}

void exec(const std::string& where, const std::string& sql) {
  store::connection::open(store::location::parse(where), store::connection::access::read_write)->exec(sql);
}

class ResultsStoreOn : public on_each_backend {};

}  // namespace

TEST(ResultsStore, CreatesTheFileAndItsFolderWhenMissing) {
  scratch_dir dir("results-create");
  const auto path = dir.path() / "nested" / "deeper" / "results.sqlite";
  { results_store store(path.string()); }
  ASSERT_TRUE(std::filesystem::exists(path));
  sqlite::database db(path, sqlite::open_mode::read_only);
  auto s = db.prepare("SELECT value FROM headroom_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), std::to_string(store::results_schema_version));
  auto mode = db.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
}

TEST_P(ResultsStoreOn, EvaluationsSurviveReopen) {
  scratch_store s(GetParam(), "results-reopen");
  const auto path = s.location();
  {
    results_store store(path);
    store.put(row("a", "c1", verdict::correct, 1.5));
    store.put(row("a", "c2", verdict::incorrect));
  }
  results_store again(path);
  const auto rows = again.evaluations();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].candidate_hash, "sha-a-c1");
  EXPECT_EQ(rows[0].speedup, 1.5);
  EXPECT_EQ(rows[1].result, verdict::incorrect);
}

// Two runs writing one store would each replace the other's rows: the second writer is refused
// with a message naming the file, readers still open it, and the store is free once the first closes.
TEST(ResultsStore, ASecondWriterIsRefusedWhileTheFirstHasTheStoreOpen) {
  scratch_dir dir("results-two-writers");
  const auto path = (dir / "results.sqlite").string();
  {
    results_store first(path);
    first.put(row("a", "c1", verdict::correct, 1.5));
    try {
      results_store second(path);
      FAIL() << "a second writer opened the store";
    } catch (const input_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("another headroom process is writing"), std::string::npos) << what;
    }
    results_store reader(path, results_store::access::read_only);
    EXPECT_EQ(reader.evaluations().size(), 1u);
    first.put(row("a", "c2", verdict::incorrect));  // the refused open took nothing from the first
  }
  results_store again(path);
  EXPECT_EQ(again.evaluations().size(), 2u);
}

TEST_P(ResultsStoreOn, PuttingTheSameKeyTwiceLeavesOneRowWithTheNewerContents) {
  scratch_store s(GetParam(), "results-replace");
  const auto path = s.location();
  results_store store(path);
  auto e = row("a", "c1", verdict::timeout);
  store.put(e);
  e.result = verdict::correct;  // the resumed run finished it
  e.speedup = 2.25;
  store.put(e);
  EXPECT_EQ(count_rows(path, "evaluations"), 1);
  store::evaluation_filter all;
  all.latest_only = false;
  const auto rows = store.evaluations(all);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].result, verdict::correct);
  EXPECT_EQ(rows[0].speedup, 2.25);
}

TEST_P(ResultsStoreOn, HasAnswersForTheExactKeyOnly) {
  scratch_store s(GetParam(), "results-has");
  results_store store(s.location());
  const auto e = row("a", "c1", verdict::correct, 1.1);
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker, {e.env.device}));
  store.put(e);
  EXPECT_TRUE(store.has(e.candidate_hash, e.problem_hash, e.checker, {e.env.device}));
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker + 1, {e.env.device}));
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker, {"cuda:1"}));
  EXPECT_FALSE(store.has(e.candidate_hash, "sha-other", e.checker, {e.env.device}));
  // A run over several GPUs continues what was done on any of them.
  EXPECT_TRUE(store.has(e.candidate_hash, e.problem_hash, e.checker, {"cuda:1", e.env.device}));
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker, {}));
  // Done on cuda:0 of an H200 is done for a run on cuda:1 of an H200 (the index means nothing from
  // one machine to the next), not for another model, and never for the CPU.
  EXPECT_TRUE(store.has(e.candidate_hash, e.problem_hash, e.checker, {"cuda:1"}, e.env.gpu));
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker, {"cuda:1"}, "NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(store.has(e.candidate_hash, e.problem_hash, e.checker + 1, {"cuda:1"}, e.env.gpu));
  auto on_cpu = row("a", "c2", verdict::correct, 1.0);
  on_cpu.env.device = "cpu";
  store.put(on_cpu);
  EXPECT_FALSE(store.has(on_cpu.candidate_hash, on_cpu.problem_hash, on_cpu.checker, {"cuda:0"}, on_cpu.env.gpu));
}

TEST_P(ResultsStoreOn, NewerCheckerKeepsBothRowsAndLatestOnlyReturnsTheNewest) {
  scratch_store s(GetParam(), "results-checker");
  const auto path = s.location();
  results_store store(path);
  auto v1 = row("a", "c1", verdict::correct, 3.0);
  auto v2 = v1;
  v2.checker = 2;
  v2.result = verdict::incorrect;  // the stricter checker caught it
  v2.speedup.reset();
  store.put(v2);
  store.put(v1);
  auto other_device = v1;  // only checked by v1 on this device: its v1 row is its newest
  other_device.env.device = "cuda:1";
  store.put(other_device);
  EXPECT_EQ(count_rows(path, "evaluations"), 3);

  const auto latest = store.evaluations();
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].env.device, "cuda:0");
  EXPECT_EQ(latest[0].checker, 2);
  EXPECT_EQ(latest[0].result, verdict::incorrect);
  EXPECT_EQ(latest[1].env.device, "cuda:1");
  EXPECT_EQ(latest[1].checker, 1);

  store::evaluation_filter all;
  all.latest_only = false;
  EXPECT_EQ(store.evaluations(all).size(), 3u);

  store::evaluation_filter old;
  old.checker = 1;
  const auto v1_rows = store.evaluations(old);
  ASSERT_EQ(v1_rows.size(), 2u);
  EXPECT_EQ(v1_rows[0].result, verdict::correct);
}

TEST_P(ResultsStoreOn, FiltersBySourceAndProblem) {
  scratch_store s(GetParam(), "results-filter");
  results_store store(s.location());
  store.put(row("a", "c1", verdict::correct, 1.1, "level1/19_ReLU"));
  store.put(row("a", "c2", verdict::correct, 1.2, "level2/7_Conv"));
  store.put(row("b", "c1", verdict::crash, std::nullopt, "level1/19_ReLU"));
  store::evaluation_filter by_source;
  by_source.source = "a";
  EXPECT_EQ(store.evaluations(by_source).size(), 2u);
  store::evaluation_filter by_problem;
  by_problem.problem = "level1/19_ReLU";
  const auto relu = store.evaluations(by_problem);
  ASSERT_EQ(relu.size(), 2u);
  EXPECT_EQ(relu[0].source, "a");
  EXPECT_EQ(relu[1].source, "b");
  by_problem.problem = "sha-level2/7_Conv";  // the problem's hash works too
  EXPECT_EQ(store.evaluations(by_problem).size(), 1u);
  by_source.problem = "level2/7_Conv";
  EXPECT_EQ(store.evaluations(by_source).size(), 1u);
}

TEST_P(ResultsStoreOn, EveryEvaluationFieldRoundTrips) {
  scratch_store s(GetParam(), "results-fields");
  const auto path = s.location();
  const auto full = full_row();
  auto bare = row("b", "bare", verdict::compile_error);  // no timings, no speedups, no reasons
  bare.log = "nvcc fatal: unsupported gpu architecture";
  auto partial = row("c", "partial", verdict::correct, 0.75);  // no compiled baseline
  partial.candidate_timing->samples = 0;  // present though empty
  ASSERT_FALSE(bare.candidate_timing.has_value());
  {
    results_store store(path);
    store.put(full);
    store.put(bare);
    store.put(partial);
  }
  results_store store(path, results_store::access::read_only);
  const auto rows = store.evaluations();
  ASSERT_EQ(rows.size(), 3u);  // ordered by source
  expect_same(rows[0], bare);
  expect_same(rows[1], partial);
  expect_same(rows[2], full);
  ASSERT_TRUE(rows[1].candidate_timing.has_value());
  EXPECT_FALSE(rows[1].compiled_timing.has_value());
}

TEST_P(ResultsStoreOn, NonFiniteErrorsRoundTrip) {
  scratch_store s(GetParam(), "results-nan");
  const auto path = s.location();
  auto e = row("a", "nan", verdict::incorrect);
  e.reasons = {{"nan_inf", "output 0: 12 NaN where the reference is finite"}};
  e.errors.normwise_error = std::numeric_limits<double>::quiet_NaN();
  e.errors.max_abs_error = std::numeric_limits<double>::infinity();
  {
    results_store store(path);
    store.put(e);
  }
  const auto rows = results_store(path).evaluations();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(std::isnan(rows[0].errors.normwise_error));
  EXPECT_EQ(rows[0].errors.max_abs_error, std::numeric_limits<double>::infinity());
}

TEST_P(ResultsStoreOn, CandidateAndProblemTextRoundTrip) {
  scratch_store s(GetParam(), "results-text");
  const auto path = s.location();
  const store::stored_candidate c{
      "sha-c", "gpt-5/level1", "runs/gpt-5/level1/19_ReLU_sample_0.py",
      "import torch\nsrc = r'''\n__global__ void relu_kernel(float* x) { /* 'µs' */ }\n'''\n"};
  const store::stored_problem p{"level1/19_ReLU", "sha-p", "KernelBench/level1/19_ReLU.py",
                                "class Model(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"};
  {
    results_store store(path);
    store.put_candidate(c);
    store.put_problem(p);
    store.put_candidate(c);  // the next run stores it again
  }
  EXPECT_EQ(count_rows(path, "candidates"), 1);
  results_store store(path);
  const auto got_c = store.candidate("sha-c");
  ASSERT_TRUE(got_c);
  EXPECT_EQ(got_c->hash, c.hash);
  EXPECT_EQ(got_c->source, c.source);
  EXPECT_EQ(got_c->path, c.path);
  EXPECT_EQ(got_c->text, c.text);
  const auto got_p = store.problem_by_hash("sha-p");
  ASSERT_TRUE(got_p);
  EXPECT_EQ(got_p->id, p.id);
  EXPECT_EQ(got_p->path, p.path);
  EXPECT_EQ(got_p->text, p.text);
  EXPECT_FALSE(store.candidate("sha-p"));
  EXPECT_FALSE(store.problem_by_hash("sha-c"));
}

TEST_P(ResultsStoreOn, RefusesANewerSchemaNamingTheStore) {
  scratch_store s(GetParam(), "results-newer");
  const auto path = s.location();
  { results_store store(path); }
  set_meta(path, "schema_version", std::to_string(store::results_schema_version + 1));
  for (auto mode : {results_store::access::read_write, results_store::access::read_only}) {
    try {
      results_store store(path, mode);
      FAIL() << "a newer store was opened";
    } catch (const input_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(store::location::parse(path).display()), std::string::npos) << what;
      EXPECT_NE(what.find("newer"), std::string::npos) << what;
    }
  }
}

// A version-1 store (before paired rounds and the work queue): opened to read, it is migrated where
// the store never sees it (SQLite: a copy in memory; PostgreSQL: a transaction rolled back) and its
// rows read back without paired rounds; opened to write, the store itself reaches the current
// version and takes rows with them.
TEST_P(ResultsStoreOn, MigratesAVersionOneStore) {
  scratch_store s(GetParam(), "results-v1");
  const auto path = s.location();
  auto old_row = row("a", "before", verdict::correct, 1.25);
  {
    results_store store(path);
    store.put(old_row);
  }
  exec(path,
       "ALTER TABLE evaluations DROP COLUMN paired_rounds; ALTER TABLE evaluations DROP COLUMN paired_spread; "
       "ALTER TABLE evaluations DROP COLUMN roofline_ms; ALTER TABLE evaluations DROP COLUMN sol_gap_closed; "
       "DROP TABLE jobs");
  set_meta(path, "schema_version", "1");
  {
    results_store store(path, results_store::access::read_only);
    const auto rows = store.evaluations();
    ASSERT_EQ(rows.size(), 1u);
    expect_same(rows[0], old_row);
  }
  EXPECT_EQ(meta(path, "schema_version"), "1") << "reading changed the store";
  EXPECT_EQ(count_rows(path, "evaluations"), 1);
  auto paired_row = row("b", "after", verdict::correct, 0.98);
  paired_row.paired = record::paired_timing{6, 0.031};
  {
    results_store store(path);
    store.put(paired_row);
  }
  EXPECT_EQ(meta(path, "schema_version"), std::to_string(store::results_schema_version));
  results_store store(path, results_store::access::read_only);
  const auto rows = store.evaluations();
  ASSERT_EQ(rows.size(), 2u);
  expect_same(rows[0], old_row);
  expect_same(rows[1], paired_row);
}

// A version-3 store (before the roofline and the share of the speed-of-light gap closed): its rows
// read back without them, and once written to it takes rows with them.
TEST_P(ResultsStoreOn, MigratesAVersionThreeStore) {
  scratch_store s(GetParam(), "results-v3");
  const auto path = s.location();
  auto old_row = row("a", "before", verdict::correct, 3.5);
  old_row.speed_of_light_ms = 0.012;
  {
    results_store store(path);
    store.put(old_row);
  }
  exec(path, "ALTER TABLE evaluations DROP COLUMN roofline_ms; ALTER TABLE evaluations DROP COLUMN sol_gap_closed");
  set_meta(path, "schema_version", "3");
  {
    results_store store(path, results_store::access::read_only);
    const auto rows = store.evaluations();
    ASSERT_EQ(rows.size(), 1u);
    expect_same(rows[0], old_row);
  }
  auto new_row = row("b", "after", verdict::correct, 3.5);
  new_row.speed_of_light_ms = 0.012;
  new_row.roofline_ms = 0.25;
  new_row.sol_gap_closed = 0.71;
  {
    results_store store(path);
    store.put(new_row);
  }
  EXPECT_EQ(meta(path, "schema_version"), std::to_string(store::results_schema_version));
  const auto rows = results_store(path, results_store::access::read_only).evaluations();
  ASSERT_EQ(rows.size(), 2u);
  expect_same(rows[0], old_row);
  expect_same(rows[1], new_row);
}

TEST_P(ResultsStoreOn, RefusesADatabaseThatIsNotAResultsStore) {
  scratch_store s(GetParam(), "results-foreign-tables");
  if (GetParam() == store::backend::sqlite) std::filesystem::create_directories(s.dir().path());
  exec(s.location(), "CREATE TABLE kernels (id INTEGER)");
  EXPECT_THROW(results_store{s.location()}, input_error);
  EXPECT_THROW((results_store{s.location(), results_store::access::read_only}), input_error);
  EXPECT_EQ(count_rows(s.location(), "kernels"), 0);
}

TEST(ResultsStore, RefusesAFileThatIsNotAResultsStore) {
  scratch_dir dir("results-foreign");
  std::filesystem::create_directories(dir.path());
  const auto other = dir / "other.sqlite";
  {
    sqlite::database db(other, sqlite::open_mode::create);
    db.exec("CREATE TABLE kernels (id INTEGER)");
  }
  EXPECT_THROW(results_store{other.string()}, input_error);
  const auto text = dir / "notes.txt";
  std::ofstream(text) << "this is not a database, but it is long enough to have a header page of sorts\n";
  EXPECT_THROW(results_store{text.string()}, input_error);
  // A trace store has headroom_meta too; its kind tells them apart.
  const auto traces = dir / "trace.sqlite";
  { results_store store(traces); }
  set_meta(traces.string(), "kind", "trace-store");
  EXPECT_THROW(results_store{traces.string()}, input_error);
}

TEST(ResultsStore, ReadOnlyNeverCreatesOrChangesAFile) {
  scratch_dir dir("results-readonly");
  std::filesystem::create_directories(dir.path());
  const auto missing = dir / "missing.sqlite";
  try {
    results_store store(missing, results_store::access::read_only);
    FAIL() << "a missing store was opened";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(missing));

  const auto empty = dir / "empty.sqlite";
  std::ofstream(empty).flush();  // zero bytes: a store nothing was written to
  results_store store(empty, results_store::access::read_only);
  EXPECT_TRUE(store.evaluations().empty());
  EXPECT_FALSE(store.has("x", "y", 1, {"cpu"}));
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
}

// A writer killed at any point (here: SIGKILL in the middle of a stream of puts) leaves a file
// that opens, passes SQLite's integrity check and holds every evaluation whose put() returned.
TEST(ResultsStore, AKilledWriterLosesAtMostTheEvaluationInFlight) {
  scratch_dir dir("results-kill");
  const auto path = dir / "results.sqlite";
  { results_store store(path); }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    try {  // the child must never return into GoogleTest
      results_store store(path);
      for (int i = 0;; ++i) {
        auto e = row("killed", "c" + std::to_string(i), verdict::correct, 1.0 + i);
        e.log = std::string(4096 + (i % 7) * 1000, 'x');  // several pages per transaction
        store.put(e);
        if (::write(fds[1], &i, sizeof i) != sizeof i) std::_Exit(1);
      }
    } catch (...) {}
    std::_Exit(1);
  }
  ::close(fds[1]);
  int done = -1;
  for (int got; ::read(fds[0], &got, sizeof got) == sizeof got;) {
    done = got;
    if (done >= 40) break;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(fds[0]);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_GE(done, 40);

  {
    sqlite::database db(path, sqlite::open_mode::read_only);
    auto check = db.prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
  }
  results_store store(path);
  const auto rows = store.evaluations();
  EXPECT_GE(rows.size(), static_cast<std::size_t>(done + 1));
  store.put(row("after", "c0", verdict::correct, 1.0));  // and it takes writes again
  EXPECT_EQ(store.evaluations().size(), rows.size() + 1);
}

// The schema is a contract (docs/eval-results.md): a change to it must bump results_schema_version.
// HEADROOM_UPDATE_GOLDEN=1 rewrites the golden file.
TEST(ResultsStore, SchemaMatchesGolden) {
  scratch_dir dir("results-schema");
  const auto path = dir / "results.sqlite";
  { results_store store(path); }
  std::string text = "-- results store schema v" + std::to_string(store::results_schema_version) + "\n";
  sqlite::database db(path, sqlite::open_mode::read_only);
  auto s = db.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type DESC, name");
  while (s.step()) text += std::string(s.text(0)) + ";\n";
  test::expect_golden(text, std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/store/golden/results_schema.sql");
}

// Processes started together on a shared store nobody created yet: one creates the schema, the
// others wait for it and use it (none sees half a schema and takes it for a foreign database).
TEST_P(ResultsStoreOn, ProcessesOpeningANewStoreTogetherAgreeOnItsSchema) {
  if (GetParam() == store::backend::sqlite) GTEST_SKIP() << "a SQLite store has one writer at a time";
  scratch_store s(GetParam(), "results-together");
  for (int round = 0; round < 3; ++round) {
    if (round > 0)
      exec(s.location(),
           "DROP TABLE jobs; DROP TABLE evaluations; DROP TABLE candidates; DROP TABLE problems; "
           "DROP TABLE headroom_meta");
    std::atomic<int> failed{0};
    std::vector<std::thread> openers;
    for (int i = 0; i < 8; ++i)
      openers.emplace_back([&] {
        try {
          results_store store(s.location());
        } catch (const std::exception& e) {
          ADD_FAILURE() << e.what();
          ++failed;
        }
      });
    for (auto& t : openers) t.join();
    EXPECT_EQ(failed, 0);
    EXPECT_EQ(meta(s.location(), "schema_version"), std::to_string(store::results_schema_version));
  }
}

// The same tables and columns, in the same order, on PostgreSQL as in the SQLite golden schema: one
// schema, translated type by type (connection::ddl), not a second one kept by hand.
TEST(ResultsStore, PostgresqlHasTheSameTablesAndColumns) {
  if (test::postgres_admin_url().empty()) GTEST_SKIP() << "no test PostgreSQL server (run through ctest)";
  scratch_store lite(store::backend::sqlite, "results-columns");
  scratch_store pg(store::backend::postgresql, "results-columns");
  { results_store a(lite.location()), b(pg.location()); }
  auto columns = [](const std::string& where, const std::string& sql) {
    std::string out;
    auto db = store::connection::open(store::location::parse(where), store::connection::access::read_only);
    db->run(sql, {}, [&](const store::row& r) { out += std::string(r.text(0)) + "." + std::string(r.text(1)) + "\n"; });
    return out;
  };
  const std::string from_sqlite = columns(lite.location(),
                                          "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p "
                                          "WHERE m.type = 'table' ORDER BY m.name, p.cid");
  const std::string from_postgres =
      columns(pg.location(),
              "SELECT table_name, column_name FROM information_schema.columns WHERE "
              "table_schema = current_schema() ORDER BY table_name COLLATE \"C\", ordinal_position");
  EXPECT_FALSE(from_sqlite.empty());
  EXPECT_EQ(from_postgres, from_sqlite);
}

INSTANTIATE_TEST_SUITE_P(Backends, ResultsStoreOn,
                         ::testing::Values(store::backend::sqlite, store::backend::postgresql),
                         test::backend_test_name);
