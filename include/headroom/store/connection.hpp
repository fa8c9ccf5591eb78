#pragma once
// One connection to a store's database: SQLite (a file, the embedded default) or PostgreSQL (a
// server that many processes on many hosts share) behind the same calls. SQL is written once, in
// the dialect both accept, with $1, $2... parameters; the few places where they differ are asked of
// the connection (ddl, now_seconds, skip_locked). Every failure is an input_error naming the store.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace headroom::store {

enum class backend { sqlite, postgresql };

// Where a store is: a file path, or a PostgreSQL URL (postgresql://user@host:5432/db, or
// postgres://...; libpq's own URL syntax, with its query parameters).
struct location {
  backend kind = backend::sqlite;
  std::string text;  // the path or the URL

  static location parse(std::string_view where);
  // For messages: the path, or the URL with its password replaced by "***".
  std::string display() const;
};

// A statement parameter. A NaN binds as NULL on both back ends (SQLite has no NaN; the stores
// read NULL back as NaN where a value is not optional).
using value = std::variant<std::monostate, std::int64_t, double, std::string_view>;

// One result row; columns by index.
class row {
 public:
  virtual ~row() = default;
  virtual bool is_null(int column) const = 0;
  virtual std::string_view text(int column) const = 0;  // valid until the next row
  virtual std::int64_t integer(int column) const = 0;  // NULL reads as 0
  virtual double real(int column) const = 0;  // NULL reads as NaN
};

using row_callback = std::function<void(const row&)>;

class connection {
 public:
  // write_alone: read_write, as the only writer while the connection is open. SQLite refuses a
  // second such writer of the file, in this process or another (an flock, src/store/writer_lock.hpp);
  // PostgreSQL, whose writers share a store through its work queue, opens it as read_write.
  enum class access { read_write, read_only, write_alone };

  // Opens the store's database. read_write and write_alone create a missing SQLite file (and its
  // folder); read_only never creates or changes anything, and refuses a missing file.
  static std::unique_ptr<connection> open(const location& where, access mode);
  virtual ~connection() = default;

  virtual backend kind() const = 0;
  const std::string& name() const { return name_; }  // location::display(), for messages

  // Statements without parameters, separated by ';'.
  virtual void exec(std::string_view sql) = 0;
  // One statement with $1.. parameters; each result row goes to on_row. Returns the rows an
  // INSERT, UPDATE or DELETE changed (0 for a query).
  virtual std::int64_t run(std::string_view sql, std::span<const value> params = {},
                           const row_callback& on_row = {}) = 0;
  std::int64_t run(std::string_view sql, std::initializer_list<value> params, const row_callback& on_row = {}) {
    return run(sql, std::span<const value>(params.begin(), params.size()), on_row);
  }

  virtual bool has_table(std::string_view table) = 0;
  virtual int table_count() = 0;  // tables of ours (SQLite: the file's; PostgreSQL: the current schema's)

  // A write transaction: SQLite takes the file's write lock at once (BEGIN IMMEDIATE), so two
  // writers never deadlock upgrading a read lock.
  virtual void begin() = 0;
  virtual void commit() { exec("COMMIT"); }
  virtual void rollback() noexcept;
  // Inside a transaction: waits until no other connection is creating or migrating a schema
  // (PostgreSQL: a transaction-scoped advisory lock; SQLite: begin() holds the file's lock already).
  virtual void lock_schema() = 0;
  // Inside a transaction: its commit need not wait until it is on disk, and a crash of the server
  // may lose it (PostgreSQL: synchronous_commit off for it; SQLite: no change). Only for writes
  // whose loss does no harm, such as a claim (the result it leads to is stored durably, and only
  // under the claim it was made under).
  virtual void lazy_commit() {}
  // From here on nothing this connection does reaches the store (SQLite: it continues on a copy in
  // memory; PostgreSQL: inside a transaction that is rolled back when the connection closes). A
  // reader migrates an older schema this way without changing the store.
  virtual void detach() = 0;

  // The dialects' differences.
  // A CREATE TABLE/INDEX text written for SQLite, in this back end's types (PostgreSQL: BIGINT,
  // DOUBLE PRECISION, an identity column for INTEGER PRIMARY KEY).
  virtual std::string ddl(std::string_view sqlite_ddl) const = 0;
  // An SQL expression: the database's clock in seconds since the epoch (one clock for every host).
  virtual std::string_view now_seconds() const = 0;
  // Ends a SELECT whose rows the transaction will update: PostgreSQL skips rows that another
  // transaction holds ("FOR UPDATE OF t SKIP LOCKED"); SQLite needs nothing (begin() serialised it).
  virtual std::string skip_locked(std::string_view table_alias) const = 0;

 protected:
  std::string name_;
};

// Commits on commit(), rolls back when it goes out of scope without.
class transaction {
 public:
  explicit transaction(connection& c) : c_(c) { c_.begin(); }
  ~transaction() {
    if (!done_) c_.rollback();
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit() {
    c_.commit();
    done_ = true;
  }

 private:
  connection& c_;
  bool done_ = false;
};

}  // namespace headroom::store
