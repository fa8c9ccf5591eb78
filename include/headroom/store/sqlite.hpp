#pragma once
// A small RAII layer over sqlite3: the SQLite side of the stores' connection (connection.hpp), and
// what the trace store and the Nsight Systems reader use directly for their bulk reads and writes.
// Every failure becomes an input_error naming the file, because everything we open is a file the
// user gave us.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>

struct sqlite3;
struct sqlite3_stmt;

namespace headroom::store::sqlite {

enum class open_mode { read_only, create };

class statement;

class database {
 public:
  database(const std::filesystem::path& path, open_mode mode);
  ~database();
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  database(database&& other) noexcept;
  database& operator=(database&& other) noexcept;

  void exec(std::string_view sql);
  statement prepare(std::string_view sql);

  bool has_table(std::string_view table);
  // Column names of a table (PRAGMA table_info); empty when the table does not exist.
  std::unordered_set<std::string> columns(std::string_view table);
  // Copies this database into a fresh in-memory one (for migrating a store without touching it).
  database copy_to_memory();
  // A new, empty database in one contiguous piece of memory (SQLite's memdb), which
  // serialize_to writes out without a copy; `name` names it in messages.
  static database in_memory(std::string_view name);
  // Writes the database's bytes, the content of a SQLite file, into `out`.
  void serialize_to(std::ostream& out);

  [[noreturn]] void fail(std::string_view what) const;
  const std::filesystem::path& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  database() = default;
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// A prepared statement. Columns are read by index; NULL reads as the fallback.
class statement {
 public:
  statement(database& db, std::string_view sql);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  statement(statement&& other) noexcept;

  // True while a row is available.
  bool step();
  void reset();

  void bind(int index, std::int64_t value);
  void bind(int index, double value);  // NaN binds as NULL (SQLite has no NaN)
  void bind(int index, std::string_view value);
  void bind_null(int index);
  template <class T>
  void bind(int index, const std::optional<T>& value) {
    if (!value) {
      bind_null(index);
    } else if constexpr (std::is_floating_point_v<T>) {
      bind(index, static_cast<double>(*value));
    } else {
      bind(index, static_cast<std::int64_t>(*value));
    }
  }
  int parameter_count() const;
  sqlite3_stmt* handle() const { return stmt_; }

  bool is_null(int column) const;
  bool is_text(int column) const;
  std::int64_t int64(int column, std::int64_t fallback = 0) const;
  double real(int column, double fallback) const;
  std::string_view text(int column) const;  // valid until the next step

 private:
  database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace headroom::store::sqlite
