// The release format (docs/releases.md): one JSON object a line. The first is the header; then every
// problem, every candidate, every evaluation, each a line of its own with a "record" field saying
// which. Numbers are written in the shortest form that reads back as the same double; a NaN or an
// infinity, which JSON cannot hold, as the strings "NaN", "Infinity", "-Infinity".
#include "headroom/store/release.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <set>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"

namespace headroom::store {

using record::timing_summary;

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

std::string timing_json(const std::optional<timing_summary>& t) {
  if (!t) return "null";
  return object()
      .integer("samples", t->samples)
      .real("median_ms", t->median_ms)
      .real("mean_ms", t->mean_ms)
      .real("stddev_ms", t->stddev_ms)
      .real("min_ms", t->min_ms)
      .real("max_ms", t->max_ms)
      .real("rel_spread", t->rel_spread)
      .real("wall_median_ms", t->wall_median_ms)
      .real("score_ms", t->score_ms)
      .done();
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

std::optional<timing_summary> timing_from(const fields& f, std::string_view key) {
  if (f.is_null(key)) return std::nullopt;
  const fields t = f.object_at(key);
  timing_summary s;
  s.samples = static_cast<int>(t.integer("samples"));
  s.median_ms = t.real("median_ms");
  s.mean_ms = t.real("mean_ms");
  s.stddev_ms = t.real("stddev_ms");
  s.min_ms = t.real("min_ms");
  s.max_ms = t.real("max_ms");
  s.rel_spread = t.real("rel_spread");
  s.wall_median_ms = t.real("wall_median_ms");
  s.score_ms = t.real("score_ms");
  return s;
}

evaluation evaluation_from(const fields& f) {
  evaluation e;
  e.candidate_hash = f.text("candidate_hash");
  e.source = f.text("source");
  e.candidate_path = f.text("candidate_path");
  e.problem = f.text("problem");
  e.problem_hash = f.text("problem_hash");
  e.checker = static_cast<int>(f.integer("checker"));
  const std::string v = f.text("verdict");
  const auto parsed = record::parse_verdict(v);
  if (!parsed) f.bad(fmt::format("unknown verdict \"{}\"", v));
  e.result = *parsed;
  simdjson::dom::array reasons;
  if (f.at("reasons").get_array().get(reasons) != simdjson::SUCCESS) f.bad("\"reasons\" is not an array");
  for (simdjson::dom::element r : reasons) {
    const fields rf(r, f.where());
    e.reasons.push_back({rf.text("code"), rf.text("detail")});
  }
  e.speedup = f.optional_real("speedup");
  e.speedup_compiled = f.optional_real("speedup_compiled");
  e.speed_of_light_ms = f.optional_real("speed_of_light_ms");
  // Since release schema version 2; absent from version 1.
  if (f.has("roofline_ms")) e.roofline_ms = f.optional_real("roofline_ms");
  if (f.has("sol_gap_closed")) e.sol_gap_closed = f.optional_real("sol_gap_closed");
  if (!f.is_null("paired")) {
    const fields p = f.object_at("paired");
    e.paired = record::paired_timing{static_cast<int>(p.integer("rounds")), p.real("rel_spread")};
  }
  const fields err = f.object_at("errors");
  e.errors.normwise_error = err.real("normwise_error");
  e.errors.max_abs_error = err.real("max_abs_error");
  e.errors.mismatched = err.integer("mismatched");
  e.errors.unwritten = err.integer("unwritten");
  e.errors.trials = static_cast<int>(err.integer("trials"));
  e.errors.trials_passed = static_cast<int>(err.integer("trials_passed"));
  const fields t = f.object_at("timing");
  e.candidate_timing = timing_from(t, "candidate");
  e.eager_timing = timing_from(t, "eager");
  e.compiled_timing = timing_from(t, "compiled");
  const fields env = f.object_at("environment");
  e.env.device = env.text("device");
  e.env.gpu = env.text("gpu");
  e.env.driver = env.text("driver");
  e.env.cuda = env.text("cuda");
  e.env.torch = env.text("torch");
  e.env.python = env.text("python");
  e.env.host = env.text("host");
  e.env.clocks = env.text("clocks");
  e.started_at = f.text("started_at");
  e.duration_s = f.real("duration_s");
  e.log = f.text("log");
  return e;
}

}  // namespace

std::string evaluation_json(const evaluation& e) {
  std::string reasons = "[";
  for (const auto& r : e.reasons)
    reasons += (reasons.size() > 1 ? ", " : "") + object().text("code", r.code).text("detail", r.detail).done();
  reasons += "]";
  const std::string paired =
      e.paired ? object().integer("rounds", e.paired->rounds).real("rel_spread", e.paired->rel_spread).done() : "null";
  return object()
      .text("record", "evaluation")
      .text("candidate_hash", e.candidate_hash)
      .text("source", e.source)
      .text("candidate_path", e.candidate_path)
      .text("problem", e.problem)
      .text("problem_hash", e.problem_hash)
      .integer("checker", e.checker)
      .text("verdict", record::verdict_name(e.result))
      .boolean("verified", verified(e))
      .raw("reasons", reasons)
      .real("speedup", e.speedup)
      .real("speedup_compiled", e.speedup_compiled)
      .real("speed_of_light_ms", e.speed_of_light_ms)
      .real("roofline_ms", e.roofline_ms)
      .real("sol_gap_closed", e.sol_gap_closed)
      .raw("paired", paired)
      .raw("errors", object()
                         .real("normwise_error", e.errors.normwise_error)
                         .real("max_abs_error", e.errors.max_abs_error)
                         .integer("mismatched", e.errors.mismatched)
                         .integer("unwritten", e.errors.unwritten)
                         .integer("trials", e.errors.trials)
                         .integer("trials_passed", e.errors.trials_passed)
                         .done())
      .raw("timing", object()
                         .raw("candidate", timing_json(e.candidate_timing))
                         .raw("eager", timing_json(e.eager_timing))
                         .raw("compiled", timing_json(e.compiled_timing))
                         .done())
      .raw("environment", object()
                              .text("device", e.env.device)
                              .text("gpu", e.env.gpu)
                              .text("driver", e.env.driver)
                              .text("cuda", e.env.cuda)
                              .text("torch", e.env.torch)
                              .text("python", e.env.python)
                              .text("host", e.env.host)
                              .text("clocks", e.env.clocks)
                              .done())
      .text("started_at", e.started_at)
      .real("duration_s", e.duration_s)
      .text("log", e.log)
      .done();
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
