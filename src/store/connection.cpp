#include "headroom/store/connection.hpp"

#include "headroom/store/sqlite_connection.hpp"
#include "postgres_connection.hpp"

namespace headroom::store {

std::unique_ptr<connection> connection::open(const location& where, access mode) {
  if (where.kind == backend::postgresql) return std::make_unique<postgres_connection>(where, mode);
  return std::make_unique<sqlite_connection>(where.text, mode);
}

void connection::rollback() noexcept {
  try {
    exec("ROLLBACK");
  } catch (...) {
    // Nothing to undo: the transaction had not begun, or the connection is gone (and with it the
    // transaction).
  }
}

}  // namespace headroom::store
