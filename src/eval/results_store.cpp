// The results store: one SQLite file, appended to for as long as evaluations run, so (unlike the
// trace store, written once and renamed into place) it is kept consistent by SQLite itself: WAL
// journal, synchronous=FULL, one transaction per evaluation. docs/eval-results.md documents every
// table; tests/cpu/eval/golden/results_schema.sql pins the text below, so a change here must bump
// results_schema_version and add a migration.
#include "headroom/eval/results_store.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <simdjson.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/sqlite_db.hpp"

namespace headroom::eval {
namespace sqlite = headroom::util::sqlite;

namespace {

constexpr std::string_view store_kind = "eval-results";

constexpr const char* schema_sql = R"sql(
CREATE TABLE headroom_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE candidates (hash TEXT PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE problems (hash TEXT PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  candidate_hash TEXT NOT NULL, source TEXT NOT NULL, candidate_path TEXT NOT NULL,
  problem TEXT NOT NULL, problem_hash TEXT NOT NULL, checker INTEGER NOT NULL, device TEXT NOT NULL,
  verdict TEXT NOT NULL, verified INTEGER NOT NULL, reasons TEXT NOT NULL,
  speedup REAL, speedup_compiled REAL, speed_of_light_ms REAL, paired_rounds INTEGER, paired_spread REAL,
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

// The evaluation columns in the order put() binds and read_row() reads them.
constexpr const char* evaluation_columns =
    "candidate_hash, source, candidate_path, problem, problem_hash, checker, device, verdict, verified, reasons, "
    "speedup, speedup_compiled, speed_of_light_ms, paired_rounds, paired_spread, normwise_error, max_abs_error, mismatched, unwritten, trials, "
    "trials_passed, "
    "candidate_samples, candidate_median_ms, candidate_mean_ms, candidate_stddev_ms, candidate_min_ms, "
    "candidate_max_ms, candidate_rel_spread, candidate_wall_median_ms, candidate_score_ms, "
    "eager_samples, eager_median_ms, eager_mean_ms, eager_stddev_ms, eager_min_ms, eager_max_ms, eager_rel_spread, "
    "eager_wall_median_ms, eager_score_ms, "
    "compiled_samples, compiled_median_ms, compiled_mean_ms, compiled_stddev_ms, compiled_min_ms, compiled_max_ms, "
    "compiled_rel_spread, compiled_wall_median_ms, compiled_score_ms, "
    "gpu, driver, cuda, torch, python, host, clocks, started_at, duration_s, log";
constexpr int evaluation_column_count = 58;

// migrations[v - 1] turns a version-v store into a version v+1 one. Policy (docs/eval-results.md):
// any change to the schema bumps results_schema_version and appends a step; steps are never edited.
using migration = std::function<void(sqlite::database&)>;
const std::vector<migration>& migrations() {
  static const std::vector<migration> steps = {
      // v1 -> v2: paired rounds (docs/eval.md), NULL for evaluations made before them.
      [](sqlite::database& db) {
        db.exec("ALTER TABLE evaluations ADD COLUMN paired_rounds INTEGER;"
                "ALTER TABLE evaluations ADD COLUMN paired_spread REAL");
      },
  };
  return steps;
}

// Rows of some sixty columns are bound and read in column order: a cursor over the shared statement.
// SQLite stores a NaN as NULL, so a NULL in a non-optional REAL column reads back as NaN.
class query {
 public:
  query(sqlite::database& db, std::string_view sql) : stmt_(db, sql) {}

  bool step() { return stmt_.step(); }

  // Binding in column order: each call takes the next parameter.
  void text(std::string_view v) { stmt_.bind(++bound_, v); }
  void integer(std::int64_t v) { stmt_.bind(++bound_, v); }
  void real(double v) { stmt_.bind(++bound_, v); }
  void real(const std::optional<double>& v) { stmt_.bind(++bound_, v); }
  void null() { stmt_.bind_null(++bound_); }
  // The column list and the binding code are kept in step by hand; a mismatch is our bug.
  void expect_all_bound() const {
    if (bound_ != stmt_.parameter_count())
      throw std::logic_error(fmt::format("results store: bound {} of {} parameters", bound_, stmt_.parameter_count()));
  }

  // Reading in column order.
  bool next_is_null() const { return stmt_.is_null(read_); }
  std::string read_text() { return std::string(stmt_.text(read_++)); }
  std::int64_t read_integer() { return stmt_.int64(read_++); }
  double read_real() { return stmt_.real(read_++, std::numeric_limits<double>::quiet_NaN()); }
  std::optional<double> read_optional_real() {
    if (next_is_null()) {
      ++read_;
      return std::nullopt;
    }
    return stmt_.real(read_++, 0);
  }
  void start_row() { read_ = 0; }

 private:
  sqlite::statement stmt_;
  int bound_ = 0;
  int read_ = 0;
};

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

std::vector<reason> parse_reasons(std::string_view text, const std::filesystem::path& path) {
  std::vector<reason> out;
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::array array;
  if (parser.parse(padded).get_array().get(array) != simdjson::SUCCESS) {
    throw input_error(fmt::format("{}: evaluations.reasons is not a JSON array: {}", path.string(), text));
  }
  for (simdjson::dom::element item : array) {
    std::string_view code, detail;
    if (item["code"].get_string().get(code) != simdjson::SUCCESS) {
      throw input_error(fmt::format("{}: a reason without a \"code\" string in evaluations.reasons: {}", path.string(), text));
    }
    if (item["detail"].get_string().get(detail) != simdjson::SUCCESS) detail = {};
    out.push_back({std::string(code), std::string(detail)});
  }
  return out;
}

void bind_timing(query& q, const std::optional<timing_summary>& t) {
  if (!t) {
    for (int i = 0; i < 9; ++i) q.null();
    return;
  }
  q.integer(t->samples);
  q.real(t->median_ms);
  q.real(t->mean_ms);
  q.real(t->stddev_ms);
  q.real(t->min_ms);
  q.real(t->max_ms);
  q.real(t->rel_spread);
  q.real(t->wall_median_ms);
  q.real(t->score_ms);
}

// A timing is present when its sample count is (every column of an absent one is NULL).
std::optional<timing_summary> read_timing(query& q) {
  std::optional<timing_summary> out;
  if (!q.next_is_null()) out.emplace();
  timing_summary t;
  t.samples = static_cast<int>(q.read_integer());
  t.median_ms = q.read_real();
  t.mean_ms = q.read_real();
  t.stddev_ms = q.read_real();
  t.min_ms = q.read_real();
  t.max_ms = q.read_real();
  t.rel_spread = q.read_real();
  t.wall_median_ms = q.read_real();
  t.score_ms = q.read_real();
  if (out) *out = t;
  return out;
}

evaluation read_row(query& q, const std::filesystem::path& path) {
  q.start_row();
  evaluation e;
  e.candidate_hash = q.read_text();
  e.source = q.read_text();
  e.candidate_path = q.read_text();
  e.problem = q.read_text();
  e.problem_hash = q.read_text();
  e.checker = static_cast<int>(q.read_integer());
  e.env.device = q.read_text();
  const std::string name = q.read_text();
  const auto v = parse_verdict(name);
  if (!v) throw input_error(fmt::format("{}: unknown verdict \"{}\" in evaluations", path.string(), name));
  e.result = *v;
  q.read_integer();  // `verified` is for SQL readers; the library recomputes it from the row
  e.reasons = parse_reasons(q.read_text(), path);
  e.speedup = q.read_optional_real();
  e.speedup_compiled = q.read_optional_real();
  e.speed_of_light_ms = q.read_optional_real();
  if (q.next_is_null()) {
    q.read_optional_real();
    q.read_optional_real();
  } else {
    paired_timing p;
    p.rounds = static_cast<int>(q.read_integer());
    p.rel_spread = q.read_real();
    e.paired = p;
  }
  e.errors.normwise_error = q.read_real();
  e.errors.max_abs_error = q.read_real();
  e.errors.mismatched = q.read_integer();
  e.errors.unwritten = q.read_integer();
  e.errors.trials = static_cast<int>(q.read_integer());
  e.errors.trials_passed = static_cast<int>(q.read_integer());
  e.candidate_timing = read_timing(q);
  e.eager_timing = read_timing(q);
  e.compiled_timing = read_timing(q);
  e.env.gpu = q.read_text();
  e.env.driver = q.read_text();
  e.env.cuda = q.read_text();
  e.env.torch = q.read_text();
  e.env.python = q.read_text();
  e.env.host = q.read_text();
  e.env.clocks = q.read_text();
  e.started_at = q.read_text();
  e.duration_s = q.read_real();
  e.log = q.read_text();
  return e;
}

[[noreturn]] void refuse(const std::filesystem::path& path, std::string_view why) {
  throw input_error(fmt::format("{}: {}", path.string(), why));
}

// The file's schema version, after checking that it is a results store at all.
int stored_version(sqlite::database& db) {
  const auto& path = db.path();
  std::string kind, version;
  query q(db, "SELECT key, value FROM headroom_meta WHERE key IN ('kind', 'schema_version')");
  while (q.step()) {
    q.start_row();
    const std::string key = q.read_text();
    (key == "kind" ? kind : version) = q.read_text();
  }
  if (kind != store_kind) {
    refuse(path, kind.empty() ? "not a headroom results store (headroom_meta has no kind; a trace store?)"
                              : fmt::format("not a headroom results store (it is a \"{}\" file)", kind));
  }
  int v = 0;
  try {
    std::size_t used = 0;
    v = std::stoi(version, &used);
    if (used != version.size() || v < 1) v = 0;
  } catch (const std::exception&) {
  }
  if (v == 0) refuse(path, fmt::format("schema_version \"{}\" is not a version headroom writes", version));
  if (v > results_schema_version) {
    refuse(path, fmt::format("written by a newer headroom (results schema v{}; this build reads up to v{}): upgrade headroom",
                             v, results_schema_version));
  }
  return v;
}

int table_count(sqlite::database& db) {
  query q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  q.step();
  q.start_row();
  return static_cast<int>(q.read_integer());
}

void migrate(sqlite::database& db, int from) {
  for (int v = from; v < results_schema_version; ++v) migrations().at(static_cast<std::size_t>(v - 1))(db);
  db.exec(fmt::format("UPDATE headroom_meta SET value = '{}' WHERE key = 'schema_version'", results_schema_version));
}

void create_schema(sqlite::database& db) {
  db.exec(schema_sql);
  query meta(db, "INSERT INTO headroom_meta VALUES (?1, ?2), (?3, ?4), (?5, ?6)");
  meta.text("kind");
  meta.text(store_kind);
  meta.text("schema_version");
  meta.text(std::to_string(results_schema_version));
  meta.text("created_by");
  meta.text("headroom 0.1.0");
  meta.step();
}

// One writer at a time: two runs writing one store would each replace the other's rows as they
// go (a row's key names no run). The writer holds an exclusive flock(2) on the file for as long as
// the store is open; a second writer is refused with a message. (flock and SQLite's own fcntl locks
// do not interact; this descriptor is closed only after SQLite has closed the file, since closing
// any descriptor of a file drops the process's fcntl locks on it.)
class writer_lock {
 public:
  writer_lock() = default;
  explicit writer_lock(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) refuse(path, fmt::format("cannot open: {}", std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK) {
        refuse(path, "another headroom process is writing this results store (a second `headroom eval` or "
                     "`headroom reverify` with the same --db); wait for it to end, or give another --db");
      }
      refuse(path, fmt::format("cannot lock: {}", std::strerror(err)));
    }
  }
  writer_lock(writer_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  writer_lock& operator=(writer_lock&&) = delete;
  ~writer_lock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

}  // namespace

struct results_store::impl {
  writer_lock lock;  // declared first: released after the database is closed
  sqlite::database db;
  bool empty = false;  // read-only open of a file without tables: a store nothing was written to
};

results_store::results_store(const std::filesystem::path& path, access mode) {
  if (mode == access::read_only) {
    sqlite::database db(path, sqlite::open_mode::read_only);
    sqlite3_busy_timeout(db.handle(), 10'000);  // a running `headroom eval` may be committing
    if (!db.has_table("headroom_meta")) {
      if (table_count(db) != 0) refuse(path, "not a headroom results store (no headroom_meta table)");
      impl_ = std::make_unique<impl>(impl{{}, std::move(db), true});
      return;
    }
    const int version = stored_version(db);
    if (version < results_schema_version) {
      db = db.copy_to_memory();  // the reader never changes the file
      migrate(db, version);
    }
    impl_ = std::make_unique<impl>(impl{{}, std::move(db), false});
    return;
  }

  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) refuse(path, fmt::format("cannot create its folder: {}", ec.message()));
  }
  writer_lock lock(path);
  sqlite::database db(path, sqlite::open_mode::create);
  sqlite3_busy_timeout(db.handle(), 10'000);
  // Refuse a foreign or newer file before anything is written to it (even the journal mode).
  const bool existing = db.has_table("headroom_meta");
  int version = results_schema_version;
  if (existing) {
    version = stored_version(db);
  } else if (table_count(db) != 0) {
    refuse(path, "not a headroom results store (no headroom_meta table)");
  }
  // WAL: a writer killed mid-transaction leaves the file as of the last commit; FULL syncs the WAL
  // at every commit, so a put() that returned survives a power loss too.
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
  db.exec("BEGIN IMMEDIATE");
  try {
    if (!existing) {
      // Another process may have created it between our check and the write lock.
      if (db.has_table("headroom_meta")) stored_version(db);
      else create_schema(db);
    } else if (version < results_schema_version) {
      migrate(db, version);
    }
    db.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  impl_ = std::make_unique<impl>(impl{std::move(lock), std::move(db), false});
}

results_store::~results_store() = default;

void results_store::put_candidate(const stored_candidate& c) {
  query q(impl_->db, "INSERT OR REPLACE INTO candidates (hash, source, path, text) VALUES (?1, ?2, ?3, ?4)");
  q.text(c.hash);
  q.text(c.source);
  q.text(c.path);
  q.text(c.text);
  q.step();
}

void results_store::put_problem(const stored_problem& p) {
  query q(impl_->db, "INSERT OR REPLACE INTO problems (hash, id, path, text) VALUES (?1, ?2, ?3, ?4)");
  q.text(p.hash);
  q.text(p.id);
  q.text(p.path);
  q.text(p.text);
  q.step();
}

std::optional<stored_candidate> results_store::candidate(const std::string& hash) {
  if (impl_->empty) return std::nullopt;
  query q(impl_->db, "SELECT hash, source, path, text FROM candidates WHERE hash = ?1");
  q.text(hash);
  if (!q.step()) return std::nullopt;
  q.start_row();
  stored_candidate c;
  c.hash = q.read_text();
  c.source = q.read_text();
  c.path = q.read_text();
  c.text = q.read_text();
  return c;
}

std::optional<stored_problem> results_store::problem_by_hash(const std::string& hash) {
  if (impl_->empty) return std::nullopt;
  query q(impl_->db, "SELECT id, hash, path, text FROM problems WHERE hash = ?1");
  q.text(hash);
  if (!q.step()) return std::nullopt;
  q.start_row();
  stored_problem p;
  p.id = q.read_text();
  p.hash = q.read_text();
  p.path = q.read_text();
  p.text = q.read_text();
  return p;
}

bool results_store::has(const std::string& candidate_hash, const std::string& problem_hash, int checker,
                        const std::vector<std::string>& devices, const std::string& gpu) {
  if (impl_->empty || devices.empty()) return false;
  std::string any;
  for (std::size_t i = 0; i < devices.size(); ++i) any += fmt::format("{}?{}", i ? ", " : "", i + 4);
  const std::string same_model =
      gpu.empty() ? "" : fmt::format(" OR (gpu = ?{} AND device LIKE 'cuda:%')", devices.size() + 4);
  query q(impl_->db, fmt::format("SELECT 1 FROM evaluations WHERE candidate_hash = ?1 AND problem_hash = ?2 AND "
                                 "checker = ?3 AND (device IN ({}){})",
                                 any, same_model));
  q.text(candidate_hash);
  q.text(problem_hash);
  q.integer(checker);
  for (const std::string& d : devices) q.text(d);
  if (!gpu.empty()) q.text(gpu);
  return q.step();
}

void results_store::put(const evaluation& e) {
  // A single statement is a transaction of its own; with synchronous=FULL it is on disk when step() returns.
  query q(impl_->db, fmt::format("INSERT OR REPLACE INTO evaluations ({}) VALUES ({})", evaluation_columns,
                                 [] {
                                   std::string p;
                                   for (int i = 1; i <= evaluation_column_count; ++i) p += fmt::format("{}?{}", i > 1 ? ", " : "", i);
                                   return p;
                                 }()));
  q.text(e.candidate_hash);
  q.text(e.source);
  q.text(e.candidate_path);
  q.text(e.problem);
  q.text(e.problem_hash);
  q.integer(e.checker);
  q.text(e.env.device);
  q.text(verdict_name(e.result));
  q.integer(verified(e) ? 1 : 0);
  q.text(reasons_json(e.reasons));
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
  q.real(e.errors.normwise_error);
  q.real(e.errors.max_abs_error);
  q.integer(e.errors.mismatched);
  q.integer(e.errors.unwritten);
  q.integer(e.errors.trials);
  q.integer(e.errors.trials_passed);
  bind_timing(q, e.candidate_timing);
  bind_timing(q, e.eager_timing);
  bind_timing(q, e.compiled_timing);
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
  q.expect_all_bound();
  q.step();
}

std::vector<evaluation> results_store::evaluations(const evaluation_filter& f) {
  std::vector<evaluation> out;
  if (impl_->empty) return out;
  std::string sql = fmt::format(
      "SELECT {} FROM evaluations e WHERE (?1 IS NULL OR e.source = ?1)"
      " AND (?2 IS NULL OR e.problem = ?2 OR e.problem_hash = ?2) AND (?3 IS NULL OR e.checker = ?3)",
      evaluation_columns);
  if (f.latest_only && !f.checker) {
    sql += " AND e.checker = (SELECT max(x.checker) FROM evaluations x WHERE x.candidate_hash = e.candidate_hash"
           " AND x.problem_hash = e.problem_hash AND x.device = e.device)";
  }
  sql += " ORDER BY e.source, e.problem, e.candidate_path, e.candidate_hash, e.device, e.checker";
  query q(impl_->db, sql);
  if (f.source) q.text(*f.source);
  else q.null();
  if (f.problem) q.text(*f.problem);
  else q.null();
  if (f.checker) q.integer(*f.checker);
  else q.null();
  q.expect_all_bound();
  while (q.step()) out.push_back(read_row(q, impl_->db.path()));
  return out;
}

}  // namespace headroom::eval
