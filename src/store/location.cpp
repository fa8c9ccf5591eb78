#include <string_view>

#include "headroom/store/connection.hpp"

namespace headroom::store {

location location::parse(std::string_view where) {
  const bool url = where.starts_with("postgresql://") || where.starts_with("postgres://");
  return {url ? backend::postgresql : backend::sqlite, std::string(where)};
}

std::string location::display() const {
  if (kind != backend::postgresql) return text;
  // scheme://user:password@host...: the password is what lies between the first ':' after the
  // scheme and the last '@' before the path.
  const std::size_t start = text.find("://") + 3;
  const std::size_t path = text.find('/', start);
  const std::size_t at = text.rfind('@', path);
  if (at == std::string::npos || at < start) return text;
  const std::size_t colon = text.find(':', start);
  if (colon == std::string::npos || colon > at) return text;
  return text.substr(0, colon + 1) + "***" + text.substr(at);
}

}  // namespace headroom::store
