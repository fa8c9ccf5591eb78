#include "postgres_connection.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <regex>
#include <vector>

#include "headroom/util/error.hpp"

namespace headroom::store {
namespace {

// Every schema of ours is created and migrated under this one advisory lock ("head" in ASCII).
constexpr std::int64_t schema_lock_key = 0x68656164;

struct result_deleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using result_ptr = std::unique_ptr<PGresult, result_deleter>;

class postgres_row final : public row {
 public:
  postgres_row(const PGresult* r, int index) : r_(r), i_(index) {}
  bool is_null(int column) const override { return PQgetisnull(r_, i_, column) != 0; }
  std::string_view text(int column) const override {
    return {PQgetvalue(r_, i_, column), static_cast<std::size_t>(PQgetlength(r_, i_, column))};
  }
  std::int64_t integer(int column) const override {
    return is_null(column) ? 0 : std::strtoll(PQgetvalue(r_, i_, column), nullptr, 10);
  }
  // PostgreSQL writes float8 in the shortest form that reads back exactly, and NaN, Infinity and
  // -Infinity by those names; strtod reads all of them.
  double real(int column) const override {
    return is_null(column) ? std::nan("") : std::strtod(PQgetvalue(r_, i_, column), nullptr);
  }

 private:
  const PGresult* r_;
  int i_;
};

std::string as_text(double v) {
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", v);  // the shortest text that reads back as the same double
}

}  // namespace

postgres_connection::postgres_connection(const location& where, access mode) {
  name_ = where.display();
  conn_ = PQconnectdb(where.text.c_str());
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
    PQfinish(conn_);
    conn_ = nullptr;
    throw input_error(fmt::format("cannot connect to {}: {}", name_, why.substr(0, why.find_last_not_of("\n ") + 1)));
  }
  // Notices ("relation already exists, skipping") are not for the user.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  if (mode == access::read_only) exec("SET default_transaction_read_only = on");
}

postgres_connection::~postgres_connection() {
  if (detached_) rollback();
  PQfinish(conn_);
}

void postgres_connection::fail(std::string_view what) const {
  std::string why = PQerrorMessage(conn_);
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  throw input_error(fmt::format("{}: {}: {}", name_, what, why));
}

void postgres_connection::exec(std::string_view sql) {
  result_ptr r(PQexec(conn_, std::string(sql).c_str()));
  const auto status = PQresultStatus(r.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(fmt::format("\"{}\"", sql.substr(0, 200)));
}

std::int64_t postgres_connection::run(std::string_view sql, std::span<const value> params, const row_callback& on_row) {
  std::vector<std::string> texts(params.size());
  std::vector<const char*> pointers(params.size(), nullptr);
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>) return;
          else if constexpr (std::is_same_v<T, double>) {
            if (std::isnan(v)) return;
            texts[i] = as_text(v);
          } else if constexpr (std::is_same_v<T, std::int64_t>) texts[i] = std::to_string(v);
          else texts[i] = std::string(v);
          pointers[i] = texts[i].c_str();
        },
        params[i]);
  }
  auto [it, added] = prepared_.try_emplace(std::string(sql), fmt::format("s{}", prepared_.size()));
  if (added) {
    result_ptr p(PQprepare(conn_, it->second.c_str(), it->first.c_str(), static_cast<int>(params.size()), nullptr));
    if (PQresultStatus(p.get()) != PGRES_COMMAND_OK) {
      prepared_.erase(it);
      fail(fmt::format("\"{}\"", sql.substr(0, 200)));
    }
  }
  result_ptr r(
      PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(params.size()), pointers.data(), nullptr, nullptr, 0));
  const auto status = PQresultStatus(r.get());
  if (status == PGRES_TUPLES_OK) {
    const int n = PQntuples(r.get());
    for (int i = 0; i < n && on_row; ++i) on_row(postgres_row(r.get(), i));
    return 0;
  }
  if (status != PGRES_COMMAND_OK) fail(fmt::format("\"{}\"", sql.substr(0, 200)));
  const char* changed = PQcmdTuples(r.get());
  return changed && *changed ? std::strtoll(changed, nullptr, 10) : 0;
}

bool postgres_connection::has_table(std::string_view table) {
  bool found = false;
  run("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1", {table},
      [&](const row&) { found = true; });
  return found;
}

int postgres_connection::table_count() {
  int n = 0;
  run("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()", {},
      [&](const row& r) { n = static_cast<int>(r.integer(0)); });
  return n;
}

void postgres_connection::begin() { exec(detached_ ? "SAVEPOINT nested" : "BEGIN"); }

void postgres_connection::commit() { exec(detached_ ? "RELEASE SAVEPOINT nested" : "COMMIT"); }

void postgres_connection::rollback() noexcept {
  try {
    exec(detached_ ? "ROLLBACK TO SAVEPOINT nested" : "ROLLBACK");
  } catch (...) {
    // The transaction had not begun, or the connection is gone and the server ended it.
  }
}

void postgres_connection::lock_schema() { exec(fmt::format("SELECT pg_advisory_xact_lock({})", schema_lock_key)); }

void postgres_connection::detach() {
  if (detached_) return;
  exec("BEGIN TRANSACTION READ WRITE");
  detached_ = true;
}

std::string postgres_connection::ddl(std::string_view sqlite_ddl) const {
  // SQLite's INTEGER and REAL are 8 bytes; PostgreSQL's are 4. An INTEGER PRIMARY KEY is SQLite's
  // row id, numbered by the database.
  static const std::regex row_id(R"(\bINTEGER PRIMARY KEY\b)"), integer(R"(\bINTEGER\b)"), real(R"(\bREAL\b)");
  std::string out =
      std::regex_replace(std::string(sqlite_ddl), row_id, "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
  out = std::regex_replace(out, integer, "BIGINT");
  return std::regex_replace(out, real, "DOUBLE PRECISION");
}

std::string postgres_connection::skip_locked(std::string_view table_alias) const {
  return fmt::format("FOR UPDATE OF {} SKIP LOCKED", table_alias);
}

}  // namespace headroom::store
