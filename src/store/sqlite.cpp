#include "headroom/store/sqlite.hpp"

#include <fmt/core.h>
#include <sqlite3.h>

#include <utility>

#include "headroom/util/error.hpp"

namespace headroom::store::sqlite {

database::database(const std::filesystem::path& path, open_mode mode) : path_(path) {
  const int flags = mode == open_mode::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (mode == open_mode::read_only && !std::filesystem::exists(path)) {
    throw input_error(fmt::format("cannot open {}: no such file", path.string()));
  }
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw input_error(fmt::format("cannot open {}: {}", path.string(), msg));
  }
  sqlite3_extended_result_codes(db_, 1);
}

database::~database() { sqlite3_close(db_); }

database::database(database&& other) noexcept : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

database& database::operator=(database&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void database::fail(std::string_view what) const {
  throw input_error(fmt::format("{}: {}: {}", path_.string(), what, db_ ? sqlite3_errmsg(db_) : "closed"));
}

void database::exec(std::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string msg = error ? error : "unknown error";
    sqlite3_free(error);
    throw input_error(fmt::format("{}: {}", path_.string(), msg));
  }
}

statement database::prepare(std::string_view sql) { return statement(*this, sql); }

bool database::has_table(std::string_view table) {
  statement s(*this, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind(1, table);
  return s.step();
}

std::unordered_set<std::string> database::columns(std::string_view table) {
  std::unordered_set<std::string> out;
  // table_info takes an identifier, not a parameter; names come from our own code, never the file.
  statement s(*this, fmt::format("PRAGMA table_info(\"{}\")", table));
  while (s.step()) out.emplace(s.text(1));
  return out;
}

database database::copy_to_memory() {
  database mem;
  mem.path_ = path_;
  if (sqlite3_open(":memory:", &mem.db_) != SQLITE_OK) fail("cannot open an in-memory database");
  sqlite3_backup* backup = sqlite3_backup_init(mem.db_, "main", db_, "main");
  if (!backup) mem.fail("cannot copy into memory");
  sqlite3_backup_step(backup, -1);
  if (sqlite3_backup_finish(backup) != SQLITE_OK) mem.fail("cannot copy into memory");
  return mem;
}

database database::in_memory(std::string_view name) {
  database mem;
  mem.path_ = std::string(name);
  // A private memdb (no leading '/' in its name): one growable buffer, serialised without a copy.
  const int rc = sqlite3_open_v2("file:headroom-memdb?vfs=memdb", &mem.db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) mem.fail("cannot open an in-memory database");
  // memdb stops at 1 GiB by default; a store of a long multi-rank job can be larger.
  sqlite3_int64 limit = sqlite3_int64{1} << 40;
  sqlite3_file_control(mem.db_, "main", SQLITE_FCNTL_SIZE_LIMIT, &limit);
  return mem;
}

void database::serialize_to(std::ostream& out) {
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db_, "main", &size, SQLITE_SERIALIZE_NOCOPY);
  const bool copied = bytes == nullptr;
  if (copied) bytes = sqlite3_serialize(db_, "main", &size, 0);
  if (bytes == nullptr) fail("cannot serialise the database");
  out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(size));
  if (copied) sqlite3_free(bytes);
}

statement::statement(database& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK) {
    db.fail(fmt::format("cannot prepare \"{}\"", sql));
  }
}

statement::~statement() { sqlite3_finalize(stmt_); }

statement::statement(statement&& other) noexcept : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

bool statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("cannot read");
}

void statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void statement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void statement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }

int statement::parameter_count() const { return sqlite3_bind_parameter_count(stmt_); }

void statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

void statement::bind_null(int index) { sqlite3_bind_null(stmt_, index); }

bool statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

bool statement::is_text(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_TEXT; }

std::int64_t statement::int64(int column, std::int64_t fallback) const {
  if (is_null(column)) return fallback;
  return sqlite3_column_int64(stmt_, column);
}

double statement::real(int column, double fallback) const {
  if (is_null(column)) return fallback;
  return sqlite3_column_double(stmt_, column);
}

std::string_view statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!p) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

}  // namespace headroom::store::sqlite
