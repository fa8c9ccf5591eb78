// The evaluations table's columns (evaluation_columns.hpp), each declared once in `lines()` below,
// in the table's order and a line of the CREATE TABLE text per braced line.
#include "evaluation_columns.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"

namespace headroom::store {

using record::reason;

namespace {

// The kind of column that holds a field of type T.
template <class T>
constexpr column_kind kind_of() {
  if constexpr (std::is_same_v<T, std::string>) return column_kind::text;
  else if constexpr (std::is_same_v<T, double>) return column_kind::real;
  else if constexpr (std::is_same_v<T, std::optional<double>>) return column_kind::optional_real;
  else {
    static_assert(std::is_integral_v<T>, "a column holds a text, an integer or a number");
    return column_kind::integer;
  }
}

template <class T>
cell cell_of(const T& v) {
  if constexpr (std::is_same_v<T, std::optional<double>>) return v ? cell(*v) : cell();
  else if constexpr (std::is_integral_v<T>) return cell(static_cast<std::int64_t>(v));
  else return cell(v);
}

// A cell into a field: nothing into a number that must be one is NaN, into an integer 0.
template <class T>
void assign(T& field, cell&& v) {
  if constexpr (std::is_same_v<T, std::optional<double>>) {
    field = std::holds_alternative<double>(v) ? std::optional<double>(std::get<double>(v)) : std::nullopt;
  } else if constexpr (std::is_same_v<T, std::string>) {
    field = std::move(std::get<std::string>(v));
  } else if constexpr (std::is_same_v<T, double>) {
    field = std::holds_alternative<double>(v) ? std::get<double>(v) : std::nan("");
  } else {
    field = std::holds_alternative<std::int64_t>(v) ? static_cast<T>(std::get<std::int64_t>(v)) : T{};
  }
}

// `o.*m`, or `(o.*m).*n`: a member of the evaluation, or of its `env` or `errors`.
template <class Object, class Member>
auto& member_of(Object& o, Member m) {
  return o.*m;
}
template <class Object, class Member, class... Rest>
auto& member_of(Object& o, Member m, Rest... rest) {
  return member_of(o.*m, rest...);
}

evaluation_column column(std::string name, column_kind kind, release_part part, std::string release_key) {
  evaluation_column c;
  c.name = std::move(name);
  c.kind = kind;
  c.part = part;
  c.release_key = std::move(release_key);
  return c;
}

// The column of one field of the evaluation, reached through `path`: its kind follows the field's
// type, and its release key is its name.
template <class... Path>
evaluation_column field(std::string name, release_part part, Path... path) {
  using type = std::remove_cvref_t<decltype(member_of(std::declval<evaluation&>(), path...))>;
  evaluation_column c = column(name, kind_of<type>(), part, name);
  c.get = [=](const evaluation& e) { return cell_of(member_of(e, path...)); };
  c.set = [=](evaluation& e, cell&& v, std::string_view) { assign(member_of(e, path...), std::move(v)); };
  return c;
}

// The column of one member of a group of the evaluation that is there or not as a whole; the
// group's `first` column says which.
template <class Group, class T>
evaluation_column group_member(std::string name, release_part part, std::string release_key,
                               std::optional<Group> evaluation::*group, T Group::*member, bool first) {
  evaluation_column c =
      column(std::move(name), std::is_integral_v<T> ? column_kind::group_integer : column_kind::group_real, part,
             std::move(release_key));
  c.get = [=](const evaluation& e) { return e.*group ? cell_of((*(e.*group)).*member) : cell(); };
  c.set = [=](evaluation& e, cell&& v, std::string_view) {
    std::optional<Group>& g = e.*group;
    if (first) {
      if (std::holds_alternative<std::monostate>(v)) return;
      g.emplace();
    }
    if (g) assign((*g).*member, std::move(v));
  };
  return c;
}

// A timing summary's columns: one per kept statistic, named after the timing ("candidate_median_ms"),
// keyed by the statistic in its release object.
std::vector<evaluation_column> timing_columns(std::string_view timing, release_part part,
                                              std::optional<record::timing_summary> evaluation::*group) {
  std::vector<evaluation_column> out;
  for (const record::timing_statistic& s : record::kept_timing_statistics) {
    out.push_back(std::visit(
        [&](auto member) {
          const bool first = out.empty();
          return group_member(fmt::format("{}_{}", timing, s.name), part, std::string(s.name), group, member, first);
        },
        s.member));
  }
  return out;
}

evaluation_column key(evaluation_column c) {
  c.key = true;
  return c;
}

evaluation_column since_release(int version, evaluation_column c) {
  c.release_since = version;
  return c;
}

// The verdict, by its name (record::verdict_name).
evaluation_column verdict_column() {
  evaluation_column c = column("verdict", column_kind::text, release_part::head, "verdict");
  c.get = [](const evaluation& e) { return cell(std::string(record::verdict_name(e.result))); };
  c.set = [](evaluation& e, cell&& v, std::string_view where) {
    const std::string& name = std::get<std::string>(v);
    const auto parsed = record::parse_verdict(name);
    if (!parsed) throw input_error(fmt::format("{}: unknown verdict \"{}\"", where, name));
    e.result = *parsed;
  };
  return c;
}

// Whether the evaluation counts as verified, for those who read the table or a release; the
// library recomputes it from the rest (record::verified).
evaluation_column verified_column() {
  evaluation_column c = column("verified", column_kind::flag, release_part::head, "verified");
  c.get = [](const evaluation& e) { return cell(std::int64_t{verified(e) ? 1 : 0}); };
  c.set = [](evaluation&, cell&&, std::string_view) {};
  return c;
}

std::string reasons_json(const std::vector<reason>& reasons) {
  std::string out = "[";
  for (std::size_t i = 0; i < reasons.size(); ++i) {
    out += i ? ", {\"code\": " : "{\"code\": ";
    util::append_json_string(out, reasons[i].code);
    out += ", \"detail\": ";
    util::append_json_string(out, reasons[i].detail);
    out += "}";
  }
  return out + "]";
}

std::vector<reason> parse_reasons(std::string_view text, std::string_view where) {
  std::vector<reason> out;
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::array array;
  if (parser.parse(padded).get_array().get(array) != simdjson::SUCCESS)
    throw input_error(fmt::format("{}: the reasons are not a JSON array: {}", where, text));
  for (simdjson::dom::element item : array) {
    std::string_view code, detail;
    if (item["code"].get_string().get(code) != simdjson::SUCCESS)
      throw input_error(fmt::format("{}: a reason without a \"code\" string: {}", where, text));
    if (item["detail"].get_string().get(detail) != simdjson::SUCCESS) detail = {};
    out.push_back({std::string(code), std::string(detail)});
  }
  return out;
}

// The reasons, as the JSON array [{"code": ..., "detail": ...}] (docs/eval-results.md).
evaluation_column reasons_column() {
  evaluation_column c = column("reasons", column_kind::json, release_part::head, "reasons");
  c.get = [](const evaluation& e) { return cell(reasons_json(e.reasons)); };
  c.set = [](evaluation& e, cell&& v, std::string_view where) {
    e.reasons = parse_reasons(std::get<std::string>(v), where);
  };
  return c;
}

// Every column, a line of the CREATE TABLE text per braced list.
std::vector<std::vector<evaluation_column>> lines() {
  using enum release_part;
  using record::error_metrics;
  const auto env = &evaluation::env;
  const auto err = &evaluation::errors;
  const auto paired_group = &evaluation::paired;
  return {
      {key(field("candidate_hash", head, &evaluation::candidate_hash)), field("source", head, &evaluation::source),
       field("candidate_path", head, &evaluation::candidate_path)},
      {field("problem", head, &evaluation::problem), key(field("problem_hash", head, &evaluation::problem_hash)),
       key(field("checker", head, &evaluation::checker)),
       key(field("device", environment, env, &record::environment::device))},
      {verdict_column(), verified_column(), reasons_column()},
      {field("speedup", head, &evaluation::speedup), field("speedup_compiled", head, &evaluation::speedup_compiled),
       field("speed_of_light_ms", head, &evaluation::speed_of_light_ms),
       group_member("paired_rounds", paired, "rounds", paired_group, &record::paired_timing::rounds, /*first=*/true),
       group_member("paired_spread", paired, "rel_spread", paired_group, &record::paired_timing::rel_spread,
                    /*first=*/false)},
      {since_release(2, field("roofline_ms", head, &evaluation::roofline_ms)),
       since_release(2, field("sol_gap_closed", head, &evaluation::sol_gap_closed))},
      {field("normwise_error", errors, err, &error_metrics::normwise_error),
       field("max_abs_error", errors, err, &error_metrics::max_abs_error),
       field("mismatched", errors, err, &error_metrics::mismatched),
       field("unwritten", errors, err, &error_metrics::unwritten)},
      {field("trials", errors, err, &error_metrics::trials),
       field("trials_passed", errors, err, &error_metrics::trials_passed)},
      timing_columns("candidate", candidate_timing, &evaluation::candidate_timing),
      timing_columns("eager", eager_timing, &evaluation::eager_timing),
      timing_columns("compiled", compiled_timing, &evaluation::compiled_timing),
      {field("gpu", environment, env, &record::environment::gpu),
       field("driver", environment, env, &record::environment::driver),
       field("cuda", environment, env, &record::environment::cuda),
       field("torch", environment, env, &record::environment::torch),
       field("python", environment, env, &record::environment::python),
       field("host", environment, env, &record::environment::host),
       field("clocks", environment, env, &record::environment::clocks)},
      {field("started_at", tail, &evaluation::started_at), field("duration_s", tail, &evaluation::duration_s),
       field("log", tail, &evaluation::log)},
  };
}

}  // namespace

const std::vector<evaluation_column>& evaluation_columns() {
  static const std::vector<evaluation_column> columns = [] {
    std::vector<evaluation_column> out;
    for (std::vector<evaluation_column>& line : lines()) {
      for (evaluation_column& c : line) {
        c.starts_line = &c == &line.front();
        out.push_back(std::move(c));
      }
    }
    return out;
  }();
  return columns;
}

std::string_view sql_type(column_kind kind) {
  switch (kind) {
    case column_kind::text:
    case column_kind::json:
      return "TEXT NOT NULL";
    case column_kind::integer:
    case column_kind::flag:
      return "INTEGER NOT NULL";
    case column_kind::real:
    case column_kind::optional_real:
    case column_kind::group_real:
      return "REAL";
    case column_kind::group_integer:
      return "INTEGER";
  }
  throw std::logic_error("sql_type: not a column kind");
}

bool in_group(column_kind kind) { return kind == column_kind::group_integer || kind == column_kind::group_real; }

const std::string& evaluations_table_sql() {
  static const std::string sql = [] {
    std::string columns, keys;
    for (const evaluation_column& c : evaluation_columns()) {
      columns += fmt::format("{}{} {}", c.starts_line ? ",\n  " : ", ", c.name, sql_type(c.kind));
      if (c.key) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", c.name);
    }
    return fmt::format("CREATE TABLE evaluations (\n  id INTEGER PRIMARY KEY{},\n  UNIQUE ({})\n);\n", columns, keys);
  }();
  return sql;
}

}  // namespace headroom::store
