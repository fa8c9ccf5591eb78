// The release format (docs/releases.md): one JSON object a line. The first is the header; then every
// problem, every candidate, every evaluation, each a line of its own with a "record" field saying
// which. Numbers are written in the shortest form that reads back as the same double; a NaN or an
// infinity, which JSON cannot hold, as the strings "NaN", "Infinity", "-Infinity". An evaluation's
// keys are the results store's columns (evaluation_columns.cpp), each in the part of the object
// that its column names; evaluation_json() lays the parts out.
#include "headroom/store/release.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <optional>
#include <set>
#include <variant>

#include "evaluation_columns.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"

namespace headroom::store {

namespace {

// Writing ---------------------------------------------------------------------------------------

class object {
 public:
  object& text(std::string_view key, std::string_view v) {
    field(key);
    util::append_json_string(out_, v);
    return *this;
  }
  object& integer(std::string_view key, std::int64_t v) {
    field(key);
    out_ += std::to_string(v);
    return *this;
  }
  object& real(std::string_view key, double v) {
    field(key);
    if (std::isnan(v)) out_ += "\"NaN\"";
    else if (std::isinf(v)) out_ += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    else out_ += fmt::format("{}", v);
    return *this;
  }
  object& real(std::string_view key, const std::optional<double>& v) {
    if (v) return real(key, *v);
    return raw(key, "null");
  }
  object& boolean(std::string_view key, bool v) { return raw(key, v ? "true" : "false"); }
  object& raw(std::string_view key, std::string_view json) {
    field(key);
    out_ += json;
    return *this;
  }
  std::string done() { return out_ + "}"; }

 private:
  void field(std::string_view key) {
    out_ += out_.size() > 1 ? ", " : "";
    util::append_json_string(out_, key);
    out_ += ": ";
  }
  std::string out_ = "{";
};

// One column's cell under its key.
void write_cell(object& o, const evaluation_column& c, const cell& v) {
  const std::string_view key = c.release_key;
  switch (c.kind) {
    case column_kind::text:
      o.text(key, std::get<std::string>(v));
      return;
    case column_kind::json:
      o.raw(key, std::get<std::string>(v));
      return;
    case column_kind::integer:
    case column_kind::group_integer:
      o.integer(key, std::get<std::int64_t>(v));
      return;
    case column_kind::flag:
      o.boolean(key, std::get<std::int64_t>(v) != 0);
      return;
    case column_kind::real:
    case column_kind::group_real:
      o.real(key, std::get<double>(v));
      return;
    case column_kind::optional_real:
      o.real(key, std::holds_alternative<double>(v) ? std::optional<double>(std::get<double>(v)) : std::nullopt);
      return;
  }
}

// Writes the columns of one part of the evaluation object into `o`; false, writing nothing, for a
// group that is not there.
bool write_part(object& o, const evaluation& e, release_part part) {
  bool first = true;
  for (const evaluation_column& c : evaluation_columns()) {
    if (c.part != part) continue;
    const cell v = c.get(e);
    if (first && in_group(c.kind) && std::holds_alternative<std::monostate>(v)) return false;
    first = false;
    write_cell(o, c, v);
  }
  return true;
}

// One part of the evaluation object as an object of its own: null for a group that is not there.
std::string part_object(const evaluation& e, release_part part) {
  object o;
  return write_part(o, e, part) ? o.done() : "null";
}

// Reading ---------------------------------------------------------------------------------------

class fields {
 public:
  fields(simdjson::dom::element e, std::string where) : e_(e), where_(std::move(where)) {}
  [[noreturn]] void bad(std::string_view what) const { throw input_error(fmt::format("{}: {}", where_, what)); }
  simdjson::dom::element at(std::string_view key) const {
    simdjson::dom::element v;
    if (e_[key].get(v) != simdjson::SUCCESS) bad(fmt::format("no \"{}\"", key));
    return v;
  }
  bool is_null(std::string_view key) const { return at(key).is_null(); }
  bool has(std::string_view key) const {
    simdjson::dom::element v;
    return e_[key].get(v) == simdjson::SUCCESS;
  }
  std::string text(std::string_view key) const {
    std::string_view v;
    if (at(key).get_string().get(v) != simdjson::SUCCESS) bad(fmt::format("\"{}\" is not a string", key));
    return std::string(v);
  }
  std::int64_t integer(std::string_view key) const {
    std::int64_t v = 0;
    if (at(key).get_int64().get(v) != simdjson::SUCCESS) bad(fmt::format("\"{}\" is not an integer", key));
    return v;
  }
  double real(std::string_view key) const {
    const auto v = at(key);
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS) return d;
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) {
      if (s == "NaN") return std::nan("");
      if (s == "Infinity") return INFINITY;
      if (s == "-Infinity") return -INFINITY;
    }
    bad(fmt::format("\"{}\" is not a number", key));
  }
  std::optional<double> optional_real(std::string_view key) const {
    if (is_null(key)) return std::nullopt;
    return real(key);
  }
  fields object_at(std::string_view key) const {
    const auto v = at(key);
    if (!v.is_object()) bad(fmt::format("\"{}\" is not an object", key));
    return fields(v, where_);
  }
  simdjson::dom::element element() const { return e_; }
  const std::string& where() const { return where_; }

 private:
  simdjson::dom::element e_;
  std::string where_;
};

// One column's cell from its part of the evaluation object (none: a group written as null).
cell read_cell(const std::optional<fields>& f, const evaluation_column& c) {
  if (!f) return {};
  const std::string_view key = c.release_key;
  if (c.release_since > 1 && !f->has(key)) return {};  // a release older than the column
  switch (c.kind) {
    case column_kind::text:
      return f->text(key);
    case column_kind::json: {
      const simdjson::dom::element v = f->at(key);
      if (!v.is_array()) f->bad(fmt::format("\"{}\" is not an array", key));
      return simdjson::minify(v);
    }
    case column_kind::integer:
    case column_kind::group_integer:
      return f->integer(key);
    case column_kind::flag:
      return {};  // derived from the rest, not read back
    case column_kind::real:
    case column_kind::group_real:
      return f->real(key);
    case column_kind::optional_real:
      return f->is_null(key) ? cell() : cell(f->real(key));
  }
  return {};
}

// Reads the columns of one part of the evaluation object from `f` (none: a group written as null).
void read_part(const std::optional<fields>& f, std::string_view where, evaluation& e, release_part part) {
  for (const evaluation_column& c : evaluation_columns())
    if (c.part == part) c.set(e, read_cell(f, c), where);
}

// A group's object, or none where it is null.
std::optional<fields> group_at(const fields& f, std::string_view key) {
  if (f.is_null(key)) return std::nullopt;
  return f.object_at(key);
}

evaluation evaluation_from(const fields& f) {
  using enum release_part;
  evaluation e;
  const std::string& where = f.where();
  const fields timing = f.object_at("timing");
  read_part(f, where, e, head);
  read_part(group_at(f, "paired"), where, e, paired);
  read_part(f.object_at("errors"), where, e, errors);
  read_part(group_at(timing, "candidate"), where, e, candidate_timing);
  read_part(group_at(timing, "eager"), where, e, eager_timing);
  read_part(group_at(timing, "compiled"), where, e, compiled_timing);
  read_part(f.object_at("environment"), where, e, environment);
  read_part(f, where, e, tail);
  return e;
}

}  // namespace

std::string evaluation_json(const evaluation& e) {
  using enum release_part;
  object o;
  o.text("record", "evaluation");
  write_part(o, e, head);
  o.raw("paired", part_object(e, paired))
      .raw("errors", part_object(e, errors))
      .raw("timing", object()
                         .raw("candidate", part_object(e, candidate_timing))
                         .raw("eager", part_object(e, eager_timing))
                         .raw("compiled", part_object(e, compiled_timing))
                         .done())
      .raw("environment", part_object(e, environment));
  write_part(o, e, tail);
  return o.done();
}

evaluation evaluation_from_json(std::string_view line, const std::string& where) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const simdjson::padded_string padded(line);
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS || !doc.is_object())
    throw input_error(fmt::format("{}: not a JSON object", where));
  return evaluation_from(fields(doc, where));
}

release_counts write_release(results_store& from, std::ostream& out) {
  evaluation_filter all;
  all.latest_only = false;
  const auto rows = from.evaluations(all);
  std::set<std::string> candidates, problems;
  for (const auto& e : rows) {
    candidates.insert(e.candidate_hash);
    problems.insert(e.problem_hash);
  }
  release_counts n;
  out << object()
             .text("kind", release_kind)
             .integer("schema_version", release_schema_version)
             .text("created_by", "headroom 0.1.0")
             .integer("evaluations", static_cast<std::int64_t>(rows.size()))
             .done()
      << "\n";
  for (const auto& p : from.problems()) {
    if (!problems.count(p.hash)) continue;
    out << object()
               .text("record", "problem")
               .text("hash", p.hash)
               .text("id", p.id)
               .text("path", p.path)
               .text("text", p.text)
               .done()
        << "\n";
    ++n.problems;
  }
  for (const auto& c : from.candidates()) {
    if (!candidates.count(c.hash)) continue;
    out << object()
               .text("record", "candidate")
               .text("hash", c.hash)
               .text("source", c.source)
               .text("path", c.path)
               .text("text", c.text)
               .done()
        << "\n";
    ++n.candidates;
  }
  for (const auto& e : rows) {
    out << evaluation_json(e) << "\n";
    ++n.evaluations;
  }
  return n;
}

release_counts read_release(std::istream& in, const std::string& name, results_store& into) {
  release_counts n;
  simdjson::dom::parser parser;
  transaction t(into.db());
  std::string line;
  std::int64_t promised = -1;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", name, number);
    simdjson::dom::element doc;
    const simdjson::padded_string padded(line);
    if (parser.parse(padded).get(doc) != simdjson::SUCCESS || !doc.is_object())
      throw input_error(fmt::format("{}: not a JSON object", where));
    const fields f(doc, where);
    if (number == 1) {
      std::string_view kind;
      if (doc["kind"].get_string().get(kind) != simdjson::SUCCESS || kind != release_kind)
        throw input_error(
            fmt::format("{}: not a headroom release (the first line's \"kind\" is not \"{}\")", where, release_kind));
      const auto version = f.integer("schema_version");
      if (version > release_schema_version || version < 1)
        throw input_error(fmt::format("{}: release schema v{}; this build reads up to v{}: upgrade headroom", where,
                                      version, release_schema_version));
      promised = f.integer("evaluations");
      continue;
    }
    const std::string record = f.text("record");
    if (record == "problem") {
      into.put_problem({f.text("id"), f.text("hash"), f.text("path"), f.text("text")});
      ++n.problems;
    } else if (record == "candidate") {
      into.put_candidate({f.text("hash"), f.text("source"), f.text("path"), f.text("text")});
      ++n.candidates;
    } else if (record == "evaluation") {
      put_evaluation(into.db(), evaluation_from(f));
      ++n.evaluations;
    } else {
      f.bad(fmt::format("unknown record \"{}\"", record));
    }
  }
  if (promised < 0) throw input_error(fmt::format("{}: empty, not a headroom release", name));
  // A release cut short (a partial download) is refused whole.
  if (promised != n.evaluations)
    throw input_error(
        fmt::format("{}: the header promises {} evaluations and the file holds {}", name, promised, n.evaluations));
  t.commit();
  return n;
}

}  // namespace headroom::store
