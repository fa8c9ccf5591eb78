#pragma once
// Reading CSV files that people write by hand or export from a spreadsheet (RFC 4180: fields
// separated by commas, optionally quoted, "" for a quote inside quotes; CRLF or LF line ends).
// Lines starting with '#' and blank lines are skipped.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::util {

struct csv_table {
  std::vector<std::string> header;  // the first row, fields trimmed
  std::vector<std::vector<std::string>> rows;  // each as wide as the header
  std::vector<int> lines;  // each row's line number in the file, for messages

  // Index of the column named `name`, if any.
  std::optional<std::size_t> column(std::string_view name) const;
};

// Throws input_error naming `origin` and the line for an unterminated quote or a row whose width
// differs from the header's.
csv_table parse_csv(std::string_view text, std::string_view origin);

}  // namespace headroom::util
