// The results store on either back end. SQLite: one file appended to for as long as evaluations
// run, so (unlike the trace store, written once and renamed into place) it is kept consistent by
// SQLite itself: WAL journal, synchronous=FULL, one transaction per evaluation. PostgreSQL: every
// transaction commits durably (synchronous_commit). docs/eval-results.md documents every table;
// tests/cpu/store/golden/results_schema.sql pins the text below, so a change here must bump
// results_schema_version and add a migration.
#include "headroom/store/results_store.hpp"

#include <fmt/core.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "headroom/store/schema.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"

namespace headroom::store {

using record::reason;
using record::timing_summary;

namespace {

constexpr std::string_view tables_sql = R"sql(
CREATE TABLE candidates (hash TEXT PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE problems (hash TEXT PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  candidate_hash TEXT NOT NULL, source TEXT NOT NULL, candidate_path TEXT NOT NULL,
  problem TEXT NOT NULL, problem_hash TEXT NOT NULL, checker INTEGER NOT NULL, device TEXT NOT NULL,
  verdict TEXT NOT NULL, verified INTEGER NOT NULL, reasons TEXT NOT NULL,
  speedup REAL, speedup_compiled REAL, speed_of_light_ms REAL, paired_rounds INTEGER, paired_spread REAL,
  roofline_ms REAL, sol_gap_closed REAL,
  normwise_error REAL, max_abs_error REAL, mismatched INTEGER NOT NULL, unwritten INTEGER NOT NULL,
  trials INTEGER NOT NULL, trials_passed INTEGER NOT NULL,
  candidate_samples INTEGER, candidate_median_ms REAL, candidate_mean_ms REAL, candidate_stddev_ms REAL, candidate_min_ms REAL, candidate_max_ms REAL, candidate_rel_spread REAL, candidate_wall_median_ms REAL, candidate_score_ms REAL,
  eager_samples INTEGER, eager_median_ms REAL, eager_mean_ms REAL, eager_stddev_ms REAL, eager_min_ms REAL, eager_max_ms REAL, eager_rel_spread REAL, eager_wall_median_ms REAL, eager_score_ms REAL,
  compiled_samples INTEGER, compiled_median_ms REAL, compiled_mean_ms REAL, compiled_stddev_ms REAL, compiled_min_ms REAL, compiled_max_ms REAL, compiled_rel_spread REAL, compiled_wall_median_ms REAL, compiled_score_ms REAL,
  gpu TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL, torch TEXT NOT NULL, python TEXT NOT NULL, host TEXT NOT NULL, clocks TEXT NOT NULL,
  started_at TEXT NOT NULL, duration_s REAL, log TEXT NOT NULL,
  UNIQUE (candidate_hash, problem_hash, checker, device)
);
CREATE INDEX evaluations_source ON evaluations (source, problem);
)sql";

// The work queue (work_queue.hpp): one row per job of any run that shared the store's work.
constexpr std::string_view jobs_sql = R"sql(
CREATE TABLE jobs (
  candidate_hash TEXT NOT NULL, problem_hash TEXT NOT NULL, checker INTEGER NOT NULL, platform TEXT NOT NULL,
  state TEXT NOT NULL, claimed_by TEXT NOT NULL, claim INTEGER NOT NULL, lease_until REAL, attempts INTEGER NOT NULL,
  PRIMARY KEY (candidate_hash, problem_hash, checker, platform)
);
CREATE INDEX jobs_state ON jobs (platform, checker, state, problem_hash);
)sql";

const versioned_schema& results_schema() {
  static const std::string create = std::string(tables_sql) + std::string(jobs_sql);
  static const versioned_schema schema{
      .kind = "eval-results",
      .noun = "results store",
      .version = results_schema_version,
      .create_sql = create,
      .migrations =
          {
              // v1 -> v2: paired rounds (docs/eval.md), NULL for evaluations made before them.
              "ALTER TABLE evaluations ADD COLUMN paired_rounds INTEGER;"
              "ALTER TABLE evaluations ADD COLUMN paired_spread REAL",
              // v2 -> v3: the work queue that processes sharing the store claim jobs from.
              jobs_sql,
              // v3 -> v4: the informative roofline and the share of the speed-of-light gap closed
              // (docs/eval.md, "The speed-of-light floor"), NULL for evaluations made before them.
              "ALTER TABLE evaluations ADD COLUMN roofline_ms REAL;"
              "ALTER TABLE evaluations ADD COLUMN sol_gap_closed REAL",
          },
  };
  return schema;
}

// The evaluation columns in the order put_evaluation() binds and read_row() reads them.
constexpr std::string_view evaluation_columns =
    "candidate_hash, source, candidate_path, problem, problem_hash, checker, device, verdict, verified, reasons, "
    "speedup, speedup_compiled, speed_of_light_ms, paired_rounds, paired_spread, roofline_ms, sol_gap_closed, "
    "normwise_error, max_abs_error, mismatched, unwritten, trials, "
    "trials_passed, "
    "candidate_samples, candidate_median_ms, candidate_mean_ms, candidate_stddev_ms, candidate_min_ms, "
    "candidate_max_ms, candidate_rel_spread, candidate_wall_median_ms, candidate_score_ms, "
    "eager_samples, eager_median_ms, eager_mean_ms, eager_stddev_ms, eager_min_ms, eager_max_ms, eager_rel_spread, "
    "eager_wall_median_ms, eager_score_ms, "
    "compiled_samples, compiled_median_ms, compiled_mean_ms, compiled_stddev_ms, compiled_min_ms, compiled_max_ms, "
    "compiled_rel_spread, compiled_wall_median_ms, compiled_score_ms, "
    "gpu, driver, cuda, torch, python, host, clocks, started_at, duration_s, log";
constexpr int evaluation_column_count = 60;

// INSERT ... ON CONFLICT (the key) DO UPDATE every other column: the same statement on both back ends.
std::string upsert_evaluation_sql() {
  std::string params, updates;
  for (int i = 1; i <= evaluation_column_count; ++i) params += fmt::format("{}${}", i > 1 ? ", " : "", i);
  std::string_view rest = evaluation_columns;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view column = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    if (column == "candidate_hash" || column == "problem_hash" || column == "checker" || column == "device") continue;
    updates += fmt::format("{}{} = excluded.{}", updates.empty() ? "" : ", ", column, column);
  }
  return fmt::format(
      "INSERT INTO evaluations ({}) VALUES ({}) ON CONFLICT (candidate_hash, problem_hash, checker, device) "
      "DO UPDATE SET {}",
      evaluation_columns, params, updates);
}

std::string reasons_json(const std::vector<reason>& reasons) {
  std::string out = "[";
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    out += i ? ", {\"code\": " : "{\"code\": ";
    util::append_json_string(out, reasons[i].code);
    out += ", \"detail\": ";
    util::append_json_string(out, reasons[i].detail);
    out += "}";
  }
  return out + "]";
}

std::vector<reason> parse_reasons(std::string_view text, const std::string& store) {
  std::vector<reason> out;
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::array array;
  if (parser.parse(padded).get_array().get(array) != simdjson::SUCCESS) {
    throw input_error(fmt::format("{}: evaluations.reasons is not a JSON array: {}", store, text));
  }
  for (simdjson::dom::element item : array) {
    std::string_view code, detail;
    if (item["code"].get_string().get(code) != simdjson::SUCCESS) {
      throw input_error(fmt::format("{}: a reason without a \"code\" string in evaluations.reasons: {}", store, text));
    }
    if (item["detail"].get_string().get(detail) != simdjson::SUCCESS) detail = {};
    out.push_back({std::string(code), std::string(detail)});
  }
  return out;
}

// Parameters in column order.
class binder {
 public:
  void text(std::string_view v) { values_.emplace_back(v); }
  void integer(std::int64_t v) { values_.emplace_back(v); }
  void real(double v) { values_.emplace_back(v); }
  void real(const std::optional<double>& v) {
    if (v) values_.emplace_back(*v);
    else null();
  }
  void null() { values_.emplace_back(std::monostate{}); }
  void timing(const std::optional<timing_summary>& t) {
    if (!t) {
      for (int i = 0; i < 9; ++i) null();
      return;
    }
    integer(t->samples);
    for (double v :
         {t->median_ms, t->mean_ms, t->stddev_ms, t->min_ms, t->max_ms, t->rel_spread, t->wall_median_ms, t->score_ms})
      real(v);
  }
  const std::vector<value>& values() const { return values_; }

 private:
  std::vector<value> values_;
};

// Reading a row in column order.
class reader {
 public:
  explicit reader(const row& r) : r_(r) {}
  bool next_is_null() const { return r_.is_null(at_); }
  std::string text() { return std::string(r_.text(at_++)); }
  std::int64_t integer() { return r_.integer(at_++); }
  double real() { return r_.real(at_++); }
  std::optional<double> optional_real() {
    if (next_is_null()) {
      ++at_;
      return std::nullopt;
    }
    return real();
  }
  // A timing is present when its sample count is (every column of an absent one is NULL).
  std::optional<timing_summary> timing() {
    const bool present = !next_is_null();
    timing_summary t;
    t.samples = static_cast<int>(integer());
    for (double* v :
         {&t.median_ms, &t.mean_ms, &t.stddev_ms, &t.min_ms, &t.max_ms, &t.rel_spread, &t.wall_median_ms, &t.score_ms})
      *v = real();
    return present ? std::optional<timing_summary>(t) : std::nullopt;
  }

 private:
  const row& r_;
  int at_ = 0;
};

evaluation read_row(const row& r, const std::string& store) {
  reader q(r);
  evaluation e;
  e.candidate_hash = q.text();
  e.source = q.text();
  e.candidate_path = q.text();
  e.problem = q.text();
  e.problem_hash = q.text();
  e.checker = static_cast<int>(q.integer());
  e.env.device = q.text();
  const std::string name = q.text();
  const auto v = record::parse_verdict(name);
  if (!v) throw input_error(fmt::format("{}: unknown verdict \"{}\" in evaluations", store, name));
  e.result = *v;
  q.integer();  // `verified` is for SQL readers; the library recomputes it from the row
  e.reasons = parse_reasons(q.text(), store);
  e.speedup = q.optional_real();
  e.speedup_compiled = q.optional_real();
  e.speed_of_light_ms = q.optional_real();
  if (q.next_is_null()) {
    q.optional_real();
    q.optional_real();
  } else {
    record::paired_timing p;
    p.rounds = static_cast<int>(q.integer());
    p.rel_spread = q.real();
    e.paired = p;
  }
  e.roofline_ms = q.optional_real();
  e.sol_gap_closed = q.optional_real();
  e.errors.normwise_error = q.real();
  e.errors.max_abs_error = q.real();
  e.errors.mismatched = q.integer();
  e.errors.unwritten = q.integer();
  e.errors.trials = static_cast<int>(q.integer());
  e.errors.trials_passed = static_cast<int>(q.integer());
  e.candidate_timing = q.timing();
  e.eager_timing = q.timing();
  e.compiled_timing = q.timing();
  e.env.gpu = q.text();
  e.env.driver = q.text();
  e.env.cuda = q.text();
  e.env.torch = q.text();
  e.env.python = q.text();
  e.env.host = q.text();
  e.env.clocks = q.text();
  e.started_at = q.text();
  e.duration_s = q.real();
  e.log = q.text();
  return e;
}

}  // namespace

void put_evaluation(connection& db, const evaluation& e) {
  static const std::string sql = upsert_evaluation_sql();
  binder q;
  q.text(e.candidate_hash);
  q.text(e.source);
  q.text(e.candidate_path);
  q.text(e.problem);
  q.text(e.problem_hash);
  q.integer(e.checker);
  q.text(e.env.device);
  q.text(record::verdict_name(e.result));
  q.integer(verified(e) ? 1 : 0);
  const std::string reasons = reasons_json(e.reasons);
  q.text(reasons);
  q.real(e.speedup);
  q.real(e.speedup_compiled);
  q.real(e.speed_of_light_ms);
  if (e.paired) {
    q.integer(e.paired->rounds);
    q.real(e.paired->rel_spread);
  } else {
    q.null();
    q.null();
  }
  q.real(e.roofline_ms);
  q.real(e.sol_gap_closed);
  q.real(e.errors.normwise_error);
  q.real(e.errors.max_abs_error);
  q.integer(e.errors.mismatched);
  q.integer(e.errors.unwritten);
  q.integer(e.errors.trials);
  q.integer(e.errors.trials_passed);
  q.timing(e.candidate_timing);
  q.timing(e.eager_timing);
  q.timing(e.compiled_timing);
  q.text(e.env.gpu);
  q.text(e.env.driver);
  q.text(e.env.cuda);
  q.text(e.env.torch);
  q.text(e.env.python);
  q.text(e.env.host);
  q.text(e.env.clocks);
  q.text(e.started_at);
  q.real(e.duration_s);
  q.text(e.log);
  // The column list and the binding code are kept in step by hand; a mismatch is our bug.
  if (q.values().size() != evaluation_column_count)
    throw std::logic_error(
        fmt::format("results store: bound {} of {} parameters", q.values().size(), evaluation_column_count));
  db.run(sql, q.values());
}

results_store::results_store(const std::string& where, access mode) : where_(location::parse(where)) {
  if (mode == access::read_only) {
    if (where_.kind == backend::sqlite && !std::filesystem::exists(where_.text))
      throw input_error(fmt::format("cannot open {}: no such file", where_.text));
    db_ = connection::open(where_, connection::access::read_only);
    empty_ = !prepare_for_reading(*db_, results_schema());
    return;
  }
  // One writer at a time on a SQLite file; a PostgreSQL store's writers share its work queue.
  db_ = connection::open(where_, connection::access::write_alone);
  // Refuse a foreign or newer store before anything is written to it (even the journal mode).
  stored_version(*db_, results_schema());
  if (where_.kind == backend::sqlite) {
    // WAL: a writer killed mid-transaction leaves the file as of the last commit; FULL syncs the WAL
    // at every commit, so a put() that returned survives a power loss too.
    db_->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
  }
  prepare_for_writing(*db_, results_schema());
}

results_store::~results_store() = default;

bool is_results_store(const std::string& where) {
  const location at = location::parse(where);
  if (at.kind == backend::postgresql) return true;
  if (!std::filesystem::is_regular_file(at.text)) return false;
  try {
    const auto db = connection::open(at, connection::access::read_only);
    if (!db->has_table("headroom_meta")) return false;
    bool ours = false;
    db->run("SELECT value FROM headroom_meta WHERE key = 'kind'", {},
            [&](const row& r) { ours = r.text(0) == results_schema().kind; });
    return ours;
  } catch (const input_error&) {
    return false;  // not a database
  }
}

void results_store::put_candidate(const stored_candidate& c) {
  db_->run(
      "INSERT INTO candidates (hash, source, path, text) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO UPDATE SET "
      "source = excluded.source, path = excluded.path, text = excluded.text",
      {c.hash, c.source, c.path, c.text});
}

void results_store::put_problem(const stored_problem& p) {
  db_->run(
      "INSERT INTO problems (hash, id, path, text) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO UPDATE SET "
      "id = excluded.id, path = excluded.path, text = excluded.text",
      {p.hash, p.id, p.path, p.text});
}

namespace {

stored_candidate candidate_of(const row& r) {
  return {std::string(r.text(0)), std::string(r.text(1)), std::string(r.text(2)), std::string(r.text(3))};
}

stored_problem problem_of(const row& r) {
  return {std::string(r.text(0)), std::string(r.text(1)), std::string(r.text(2)), std::string(r.text(3))};
}

}  // namespace

namespace {

// Rows of `sql` read by `of`, optionally sorted by hash (the same order on both back ends).
template <class T>
std::vector<T> select(connection& db, std::string_view sql, std::initializer_list<value> params, T (*of)(const row&)) {
  std::vector<T> out;
  db.run(sql, params, [&](const row& r) { out.push_back(of(r)); });
  std::sort(out.begin(), out.end(), [](const T& a, const T& b) { return a.hash < b.hash; });
  return out;
}

template <class T>
std::optional<T> first(std::vector<T> rows) {
  return rows.empty() ? std::nullopt : std::optional<T>(std::move(rows.front()));
}

constexpr std::string_view candidates_sql = "SELECT hash, source, path, text FROM candidates";
constexpr std::string_view problems_sql = "SELECT id, hash, path, text FROM problems";

}  // namespace

std::optional<stored_candidate> results_store::candidate(const std::string& hash) {
  if (empty_) return std::nullopt;
  return first(select(*db_, fmt::format("{} WHERE hash = $1", candidates_sql), {hash}, candidate_of));
}

std::optional<stored_problem> results_store::problem_by_hash(const std::string& hash) {
  if (empty_) return std::nullopt;
  return first(select(*db_, fmt::format("{} WHERE hash = $1", problems_sql), {hash}, problem_of));
}

std::vector<stored_candidate> results_store::candidates() {
  return empty_ ? std::vector<stored_candidate>{} : select(*db_, candidates_sql, {}, candidate_of);
}

std::vector<stored_problem> results_store::problems() {
  return empty_ ? std::vector<stored_problem>{} : select(*db_, problems_sql, {}, problem_of);
}

bool results_store::has(const std::string& candidate_hash, const std::string& problem_hash, int checker,
                        const std::vector<std::string>& devices, const std::string& gpu) {
  if (empty_ || devices.empty()) return false;
  std::vector<value> params = {candidate_hash, problem_hash, std::int64_t{checker}};
  std::string any;
  for (const std::string& d : devices) {
    params.emplace_back(d);
    any += fmt::format("{}${}", any.empty() ? "" : ", ", params.size());
  }
  std::string same_model;
  if (!gpu.empty()) {
    params.emplace_back(gpu);
    same_model = fmt::format(" OR (gpu = ${} AND device LIKE 'cuda:%')", params.size());
  }
  bool found = false;
  db_->run(fmt::format("SELECT 1 FROM evaluations WHERE candidate_hash = $1 AND problem_hash = $2 AND "
                       "checker = $3 AND (device IN ({}){}) LIMIT 1",
                       any, same_model),
           params, [&](const row&) { found = true; });
  return found;
}

void results_store::put(const evaluation& e) { put_evaluation(*db_, e); }

std::vector<evaluation> results_store::evaluations(const evaluation_filter& f) {
  std::vector<evaluation> out;
  if (empty_) return out;
  std::string sql = fmt::format(
      "SELECT {} FROM evaluations e WHERE (CAST($1 AS TEXT) IS NULL OR e.source = $1)"
      " AND (CAST($2 AS TEXT) IS NULL OR e.problem = $2 OR e.problem_hash = $2)"
      " AND (CAST($3 AS INTEGER) IS NULL OR e.checker = $3)",
      evaluation_columns);
  if (f.latest_only && !f.checker) {
    sql +=
        " AND e.checker = (SELECT max(x.checker) FROM evaluations x WHERE x.candidate_hash = e.candidate_hash"
        " AND x.problem_hash = e.problem_hash AND x.device = e.device)";
  }
  const value none;
  db_->run(sql,
           {f.source ? value(*f.source) : none, f.problem ? value(*f.problem) : none,
            f.checker ? value(std::int64_t{*f.checker}) : none},
           [&](const row& r) { out.push_back(read_row(r, db_->name())); });
  // Sorted here, not by ORDER BY: a PostgreSQL database sorts text by its own collation.
  std::sort(out.begin(), out.end(), [](const evaluation& a, const evaluation& b) {
    return std::tie(a.source, a.problem, a.candidate_path, a.candidate_hash, a.env.device, a.checker) <
           std::tie(b.source, b.problem, b.candidate_path, b.candidate_hash, b.env.device, b.checker);
  });
  return out;
}

}  // namespace headroom::store
