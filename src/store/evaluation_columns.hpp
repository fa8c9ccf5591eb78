#pragma once
// The evaluations table's columns, each declared once (evaluation_columns.cpp): its name, what it
// holds, how its value is taken from and put into a record::evaluation, and where a release writes
// it. The results store's CREATE TABLE text, column list, parameters and row reading, and a
// release's evaluation object, all follow this one list.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "headroom/record/evaluation.hpp"

namespace headroom::store {

using record::evaluation;

// One column's value on its way between an evaluation and the store or a release: nothing (NULL,
// or null in a release), an integer, a number or a text.
using cell = std::variant<std::monostate, std::int64_t, double, std::string>;

// What a column holds: its SQL type, the cell it takes, and its form in a release.
enum class column_kind {
  text,  // TEXT NOT NULL; a string in a release
  json,  // TEXT NOT NULL holding a JSON array (the reasons); the array itself in a release
  integer,  // INTEGER NOT NULL
  flag,  // INTEGER NOT NULL, 0 or 1: derived from the other columns and never read back (verified);
  // true or false in a release
  real,  // REAL; a NaN is stored as NULL and read back as NaN. In a release a number, or "NaN",
  // "Infinity", "-Infinity"
  optional_real,  // REAL, NULL when absent; null in a release
  // A member of a group that is there or not as a whole (paired rounds, a timing summary): NULL in
  // every member's column when it is not (and its object null in a release). The group's first
  // column says which; a NULL in another member reads as NaN (real) or 0 (integer).
  group_integer,  // INTEGER
  group_real,  // REAL
};

// The parts of a release's evaluation object, in the order it writes them (docs/releases.md): keys
// of its own, then an object each for paired rounds, the error metrics, the three timings (inside
// "timing") and the environment, then keys of its own again.
enum class release_part { head, paired, errors, candidate_timing, eager_timing, compiled_timing, environment, tail };

struct evaluation_column {
  std::string name;  // in the evaluations table
  column_kind kind = column_kind::text;
  bool key = false;  // of the row's identity: UNIQUE, and what a write of an existing row replaces
  bool starts_line = false;  // begins a line of the CREATE TABLE text (the golden schema pins its layout)
  release_part part = release_part::head;
  std::string release_key;  // its key in that part of a release
  int release_since = 1;  // the release schema version that added it; older releases lack it (absent)
  std::function<cell(const evaluation&)> get;
  // `where` names the row or release line for an input_error, when the cell is not a valid value.
  std::function<void(evaluation&, cell&&, std::string_view where)> set;
};

// Every column, in the table's order.
const std::vector<evaluation_column>& evaluation_columns();

// The type CREATE TABLE declares for a kind of column ("TEXT NOT NULL", "REAL").
std::string_view sql_type(column_kind kind);

// Whether a column of this kind belongs to a group that is there or not as a whole.
bool in_group(column_kind kind);

// CREATE TABLE evaluations (...); in SQLite's dialect, as tests/cpu/store/golden/results_schema.sql
// pins it.
const std::string& evaluations_table_sql();

}  // namespace headroom::store
