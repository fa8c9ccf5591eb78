#pragma once
// The PostgreSQL side of connection, through libpq (Debian's libpq-dev): parameters sent as text,
// results read as text. Internal to src/store.
#include <string>
#include <unordered_map>

#include "headroom/store/connection.hpp"

struct pg_conn;

namespace headroom::store {

class postgres_connection final : public connection {
 public:
  postgres_connection(const location& where, access mode);
  ~postgres_connection() override;

  using connection::run;
  backend kind() const override { return backend::postgresql; }
  void exec(std::string_view sql) override;
  std::int64_t run(std::string_view sql, std::span<const value> params, const row_callback& on_row) override;
  bool has_table(std::string_view table) override;
  int table_count() override;
  void begin() override;
  void commit() override;
  void rollback() noexcept override;
  void lock_schema() override;
  void lazy_commit() override { exec("SET LOCAL synchronous_commit = off"); }
  void detach() override;
  std::string ddl(std::string_view sqlite_ddl) const override;
  std::string_view now_seconds() const override { return "extract(epoch from clock_timestamp())::double precision"; }
  std::string skip_locked(std::string_view table_alias) const override;

 private:
  [[noreturn]] void fail(std::string_view what) const;
  pg_conn* conn_ = nullptr;
  bool detached_ = false;  // inside the transaction detach() began: nested ones are savepoints
  // Statements prepared on this connection, by their text: the server parses and plans each once
  // (a job's claim and result are a dozen statements, the result one of 58 parameters).
  std::unordered_map<std::string, std::string> prepared_;
};

}  // namespace headroom::store
