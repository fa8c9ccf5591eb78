#pragma once
// The SQLite side of connection: a file, statements prepared for each call (the results store's
// statements are few). The trace store reads through database(), with statements of its own.
#include <filesystem>
#include <memory>

#include "headroom/store/connection.hpp"
#include "headroom/store/sqlite.hpp"

namespace headroom::store {

class writer_lock;

class sqlite_connection final : public connection {
 public:
  sqlite_connection(const std::filesystem::path& path, access mode);
  ~sqlite_connection() override;

  using connection::run;
  backend kind() const override { return backend::sqlite; }
  void exec(std::string_view sql) override { db_.exec(sql); }
  std::int64_t run(std::string_view sql, std::span<const value> params, const row_callback& on_row) override;
  bool has_table(std::string_view table) override { return db_.has_table(table); }
  int table_count() override;
  void begin() override { db_.exec("BEGIN IMMEDIATE"); }
  void lock_schema() override {}
  void detach() override { db_ = db_.copy_to_memory(); }
  std::string ddl(std::string_view sqlite_ddl) const override { return std::string(sqlite_ddl); }
  std::string_view now_seconds() const override { return "((julianday('now') - 2440587.5) * 86400.0)"; }
  std::string skip_locked(std::string_view) const override { return {}; }

  sqlite::database& database() { return db_; }

 private:
  std::unique_ptr<writer_lock> lock_;  // write_alone; declared first: released after the file is closed
  sqlite::database db_;
};

}  // namespace headroom::store
