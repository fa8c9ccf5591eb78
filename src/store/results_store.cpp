// The results store on either back end. SQLite: one file appended to for as long as evaluations
// run, so (unlike the trace store, written once and renamed into place) it is kept consistent by
// SQLite itself: WAL journal, synchronous=FULL, one transaction per evaluation. PostgreSQL: every
// transaction commits durably (synchronous_commit). docs/eval-results.md documents every table;
// tests/cpu/store/golden/results_schema.sql pins the text below and the evaluations table's, which
// its columns make (evaluation_columns.cpp), so a change to either must bump results_schema_version
// and add a migration.
#include "headroom/store/results_store.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "evaluation_columns.hpp"
#include "headroom/store/schema.hpp"
#include "headroom/util/error.hpp"

namespace headroom::store {

namespace {

// The tables but the work queue's; the evaluations table's text is its columns'
// (evaluation_columns.cpp).
const std::string& tables_sql() {
  static const std::string sql = std::string(R"sql(
CREATE TABLE candidates (hash TEXT PRIMARY KEY, source TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE problems (hash TEXT PRIMARY KEY, id TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
)sql") + evaluations_table_sql() +
                                 "CREATE INDEX evaluations_source ON evaluations (source, problem);\n";
  return sql;
}

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
  static const std::string create = tables_sql() + std::string(jobs_sql);
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

// The evaluation columns in table order, as put_evaluation() binds them and read_row() reads them.
const std::string& column_list() {
  static const std::string list = [] {
    std::string out;
    for (const evaluation_column& c : evaluation_columns()) out += fmt::format("{}{}", out.empty() ? "" : ", ", c.name);
    return out;
  }();
  return list;
}

// INSERT ... ON CONFLICT (the key) DO UPDATE every other column: the same statement on both back ends.
std::string upsert_evaluation_sql() {
  std::string params, keys, updates;
  int n = 0;
  for (const evaluation_column& c : evaluation_columns()) {
    params += fmt::format("{}${}", params.empty() ? "" : ", ", ++n);
    if (c.key) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", c.name);
    else updates += fmt::format("{}{} = excluded.{}", updates.empty() ? "" : ", ", c.name, c.name);
  }
  return fmt::format("INSERT INTO evaluations ({}) VALUES ({}) ON CONFLICT ({}) DO UPDATE SET {}", column_list(),
                     params, keys, updates);
}

// A cell as a statement parameter (a text by reference: the cell must outlive the statement).
value parameter(const cell& v) {
  return std::visit(
      [](const auto& x) -> value {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) return std::string_view(x);
        else return x;
      },
      v);
}

// Column `i` of a row as its kind's cell: a NULL is nothing where the column may be NULL for lack of
// a value, and NaN or 0 (the back end's reading) where it holds a number that must be there.
cell cell_at(const row& r, int i, column_kind kind) {
  switch (kind) {
    case column_kind::text:
    case column_kind::json:
      return std::string(r.text(i));
    case column_kind::integer:
    case column_kind::flag:
      return r.integer(i);
    case column_kind::real:
      return r.real(i);
    case column_kind::optional_real:
    case column_kind::group_real:
      return r.is_null(i) ? cell() : cell(r.real(i));
    case column_kind::group_integer:
      return r.is_null(i) ? cell() : cell(r.integer(i));
  }
  throw std::logic_error("results store: not a column kind");
}

evaluation read_row(const row& r, std::string_view where) {
  evaluation e;
  int i = 0;
  for (const evaluation_column& c : evaluation_columns()) c.set(e, cell_at(r, i++, c.kind), where);
  return e;
}

}  // namespace

void put_evaluation(connection& db, const evaluation& e) {
  static const std::string sql = upsert_evaluation_sql();
  std::vector<cell> cells;
  for (const evaluation_column& c : evaluation_columns()) cells.push_back(c.get(e));
  std::vector<value> params;
  for (const cell& v : cells) params.push_back(parameter(v));
  db.run(sql, params);
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
      column_list());
  if (f.latest_only && !f.checker) {
    sql +=
        " AND e.checker = (SELECT max(x.checker) FROM evaluations x WHERE x.candidate_hash = e.candidate_hash"
        " AND x.problem_hash = e.problem_hash AND x.device = e.device)";
  }
  const value none;
  const std::string where = fmt::format("{} (evaluations)", db_->name());
  db_->run(sql,
           {f.source ? value(*f.source) : none, f.problem ? value(*f.problem) : none,
            f.checker ? value(std::int64_t{*f.checker}) : none},
           [&](const row& r) { out.push_back(read_row(r, where)); });
  // Sorted here, not by ORDER BY: a PostgreSQL database sorts text by its own collation.
  std::sort(out.begin(), out.end(), [](const evaluation& a, const evaluation& b) {
    return std::tie(a.source, a.problem, a.candidate_path, a.candidate_hash, a.env.device, a.checker) <
           std::tie(b.source, b.problem, b.candidate_path, b.candidate_hash, b.env.device, b.checker);
  });
  return out;
}

}  // namespace headroom::store
