#include "headroom/util/csv.hpp"

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::util {
namespace {

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::optional<std::size_t> csv_table::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

csv_table parse_csv(std::string_view text, std::string_view origin) {
  csv_table t;
  std::size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    const int row_line = line;
    if (text[i] == '#' || text[i] == '\n' || text[i] == '\r') {  // comment or blank line
      while (i < text.size() && text[i] != '\n') ++i;
      ++i;
      ++line;
      continue;
    }
    std::vector<std::string> fields(1);
    bool quoted_field = false;
    while (i < text.size()) {
      const char c = text[i];
      if (c == '"' && fields.back().empty() && !quoted_field) {
        quoted_field = true;
        ++i;
        for (;;) {
          if (i >= text.size())
            throw input_error(fmt::format("{}:{}: a quoted field is never closed", origin, row_line));
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              fields.back() += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          fields.back() += text[i++];
        }
      } else if (c == ',') {
        fields.emplace_back();
        quoted_field = false;
        ++i;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        ++i;
        break;
      } else {
        fields.back() += c;
        ++i;
      }
    }
    ++line;
    for (auto& f : fields) f = trimmed(std::move(f));
    if (t.header.empty()) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size()) {
      throw input_error(fmt::format("{}:{}: {} field{} where the header has {}", origin, row_line, fields.size(),
                                    fields.size() == 1 ? "" : "s", t.header.size()));
    }
    t.rows.push_back(std::move(fields));
    t.lines.push_back(row_line);
  }
  return t;
}

}  // namespace headroom::util
