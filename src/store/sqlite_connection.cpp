#include "headroom/store/sqlite_connection.hpp"

#include <fmt/core.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <system_error>

#include "headroom/util/error.hpp"
#include "writer_lock.hpp"

namespace headroom::store {
namespace {

// A writer's folder is made, and a sole writer's lock taken, before the file is opened.
std::unique_ptr<writer_lock> prepare_file(const std::filesystem::path& path, connection::access mode) {
  if (mode == connection::access::read_only) return nullptr;
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw input_error(fmt::format("{}: cannot create its folder: {}", path.string(), ec.message()));
  }
  return mode == connection::access::write_alone ? std::make_unique<writer_lock>(path) : nullptr;
}

class sqlite_row final : public row {
 public:
  explicit sqlite_row(const sqlite::statement& s) : s_(s) {}
  bool is_null(int column) const override { return s_.is_null(column); }
  std::string_view text(int column) const override { return s_.text(column); }
  std::int64_t integer(int column) const override { return s_.int64(column, 0); }
  double real(int column) const override { return s_.real(column, std::numeric_limits<double>::quiet_NaN()); }

 private:
  const sqlite::statement& s_;
};

}  // namespace

sqlite_connection::sqlite_connection(const std::filesystem::path& path, access mode)
    : lock_(prepare_file(path, mode)),
      db_(path, mode == access::read_only ? sqlite::open_mode::read_only : sqlite::open_mode::create) {
  name_ = path.string();
  // A writer holding the lock (another process's transaction, a running `headroom eval`'s commit)
  // is waited for, not failed on.
  sqlite3_busy_timeout(db_.handle(), 10'000);
}

sqlite_connection::~sqlite_connection() = default;

std::int64_t sqlite_connection::run(std::string_view sql, std::span<const value> params, const row_callback& on_row) {
  sqlite::statement s(db_, sql);
  for (std::size_t i = 0; i < params.size(); ++i) {
    // $N is a named parameter to SQLite, numbered by first appearance: look each one up by name.
    const int index = sqlite3_bind_parameter_index(s.handle(), fmt::format("${}", i + 1).c_str());
    if (index == 0) continue;  // a parameter the statement does not use
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>) s.bind_null(index);
          else if constexpr (std::is_same_v<T, double>) {
            if (std::isnan(v)) s.bind_null(index);
            else s.bind(index, v);
          } else s.bind(index, v);
        },
        params[i]);
  }
  const sqlite_row r(s);
  bool any_row = false;
  while (s.step()) {
    any_row = true;
    if (on_row) on_row(r);
  }
  return any_row || sqlite3_stmt_readonly(s.handle()) ? 0 : sqlite3_changes64(db_.handle());
}

int sqlite_connection::table_count() {
  auto s = db_.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  s.step();
  return static_cast<int>(s.int64(0));
}

}  // namespace headroom::store
