#include <string_view>

#include "headroom/store/connection.hpp"

namespace headroom::store {

location location::parse(std::string_view where) {
  const bool url = where.starts_with("postgresql://") || where.starts_with("postgres://");
  return {url ? backend::postgresql : backend::sqlite, std::string(where)};
}

std::string location::display() const {
  if (kind != backend::postgresql) return text;
  std::string out = text;
  // scheme://user:password@host...: the password lies between the first ':' after the scheme and
  // the last '@' before the path.
  const std::size_t start = out.find("://") + 3;
  const std::size_t at = out.rfind('@', out.find('/', start));
  const std::size_t colon = out.find(':', start);
  if (at != std::string::npos && at >= start && colon < at) out = out.substr(0, colon + 1) + "***" + out.substr(at);
  // ...or in a password=... query parameter.
  for (std::size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    if (p > 0 && out[p - 1] != '?' && out[p - 1] != '&') continue;
    const std::size_t end = out.find('&', p);
    out.replace(p + 9, (end == std::string::npos ? out.size() : end) - p - 9, "***");
  }
  return out;
}

}  // namespace headroom::store
