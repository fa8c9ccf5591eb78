// Speedups from a CSV file: published figures (a win rate and a median per category) or a
// distribution (one row per evaluation). docs/method.md, "Speedups from a CSV file", is the format.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>

#include "headroom/project/measured_speedups.hpp"
#include "headroom/util/csv.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"

namespace headroom::project {
namespace {

struct csv_context {
  const util::csv_table& t;
  std::string origin;
  std::string at(std::size_t row, std::string_view col) const {
    return fmt::format("{}:{}: column '{}'", origin, t.lines[row], col);
  }
  std::string cell(std::size_t row, std::optional<std::size_t> col) const {
    return col ? t.rows[row][*col] : std::string();
  }
};

std::optional<double> parse_number(const csv_context& c, std::size_t row, std::optional<std::size_t> col,
                                   std::string_view name) {
  const std::string text = c.cell(row, col);
  if (text.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v < 0) {
    throw input_error(fmt::format("{}: '{}' is not a non-negative number", c.at(row, name), text));
  }
  return v;
}

std::optional<int> parse_count(const csv_context& c, std::size_t row, std::optional<std::size_t> col,
                               std::string_view name) {
  const auto v = parse_number(c, row, col, name);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v)) throw input_error(fmt::format("{}: '{}' is not a whole number", c.at(row, name), *v));
  return static_cast<int>(*v);
}

problem_category resolve_category(const csv_context& c, std::size_t row, std::size_t col,
                                  const problem_categories& cats) {
  const std::string name = c.t.rows[row][col];
  const auto cat = cats.category(name);
  if (!cat) {
    throw input_error(
        fmt::format("{}: unknown category '{}' (a kernel category of docs/rules.md, or one of the problem "
                    "categories in data/problems/categories.toml)",
                    c.at(row, "category"), name));
  }
  return *cat;
}

std::vector<measured_source> read_summaries(const csv_context& c, const std::string& default_source,
                                            const problem_categories& cats) {
  const auto& t = c.t;
  const auto src = t.column("source"), cat = t.column("category"), problems = t.column("problems"),
             wins = t.column("wins"), rate = t.column("win_rate"), median = t.column("median_speedup"),
             note = t.column("note");
  if (!cat || !median)
    throw input_error(fmt::format("{}: published figures need the columns category and median_speedup", c.origin));
  std::map<std::string, measured_source> by_source;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    published_summary s;
    const std::string scope = t.rows[r][*cat];
    if (scope != "all") s.scope = resolve_category(c, r, *cat, cats);
    s.problems = parse_count(c, r, problems, "problems");
    s.wins = parse_count(c, r, wins, "wins");
    const auto given_rate = parse_number(c, r, rate, "win_rate");
    if (s.wins && !s.problems) throw input_error(fmt::format("{}: wins without problems", c.at(r, "wins")));
    if (s.wins && s.problems) {
      if (*s.problems == 0 || *s.wins > *s.problems) {
        throw input_error(fmt::format("{}: {} wins of {} problems", c.at(r, "wins"), *s.wins, *s.problems));
      }
      s.win_rate = static_cast<double>(*s.wins) / *s.problems;
      // A published rate is rounded; it must still be the rate of these counts.
      if (given_rate && std::abs(*given_rate - s.win_rate) > 0.0005 + 1e-12) {
        throw input_error(
            fmt::format("{}: {} is not {} of {}", c.at(r, "win_rate"), *given_rate, *s.wins, *s.problems));
      }
    } else if (given_rate) {
      s.win_rate = *given_rate;
    } else {
      throw input_error(fmt::format("{}:{}: give wins (with problems) or win_rate", c.origin, t.lines[r]));
    }
    if (s.win_rate > 1) throw input_error(fmt::format("{}: a win rate above 1", c.at(r, "win_rate")));
    const auto m = parse_number(c, r, median, "median_speedup");
    if (!m || *m < 1) {
      throw input_error(
          fmt::format("{}: the median speedup of the wins must be at least 1", c.at(r, "median_speedup")));
    }
    s.median_win = *m;
    s.note = c.cell(r, note);
    const std::string name = src && !t.rows[r][*src].empty() ? t.rows[r][*src] : default_source;
    auto& out = by_source[name];
    // Two problem categories may apply to one kernel category (loss and pooling to reduction); the
    // join needs one figure per kernel category.
    for (const auto& other : out.summaries) {
      const bool same = other.scope && s.scope ? other.scope->kernels == s.scope->kernels : !other.scope && !s.scope;
      if (same) {
        throw input_error(fmt::format("{}: source '{}' has two rows for kernel category '{}'", c.at(r, "category"),
                                      name, s.scope ? classify::to_string(s.scope->kernels) : "all"));
      }
    }
    out.name = name;
    out.origin = c.origin;
    out.summaries.push_back(std::move(s));
  }
  std::vector<measured_source> v;
  for (auto& [name, s] : by_source) v.push_back(std::move(s));
  return v;
}

std::vector<measured_source> read_distribution(const csv_context& c, const std::string& default_source,
                                               const problem_categories& cats) {
  const auto& t = c.t;
  const auto src = t.column("source"), problem = t.column("problem"), speedup = t.column("speedup"),
             cat = t.column("category"), verdict = t.column("verdict");
  if (!speedup) throw input_error(fmt::format("{}: a distribution needs the columns problem and speedup", c.origin));
  std::vector<record::evaluation> rows;
  std::map<std::pair<std::string, std::string>, problem_category> given;  // (source, problem) -> category
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    record::evaluation e;
    e.source = src && !t.rows[r][*src].empty() ? t.rows[r][*src] : default_source;
    e.problem = t.rows[r][*problem];
    if (e.problem.empty()) throw input_error(fmt::format("{}: empty", c.at(r, "problem")));
    e.speedup = parse_number(c, r, speedup, "speedup");
    if (e.speedup && *e.speedup <= 0)
      throw input_error(fmt::format("{}: a speedup must be above 0", c.at(r, "speedup")));
    e.result = e.speedup ? record::verdict::correct : record::verdict::incorrect;
    if (const std::string v = c.cell(r, verdict); !v.empty()) {
      const auto parsed = record::parse_verdict(v);
      if (!parsed) throw input_error(fmt::format("{}: unknown verdict '{}'", c.at(r, "verdict"), v));
      e.result = *parsed;
      if (e.result != record::verdict::correct) e.speedup.reset();
    }
    if (cat && !t.rows[r][*cat].empty()) given[{e.source, e.problem}] = resolve_category(c, r, *cat, cats);
    rows.push_back(std::move(e));
  }
  auto sources = sources_from_evaluations(rows, cats, c.origin);
  for (auto& s : sources) {
    for (auto& p : s.problems) {
      if (const auto it = given.find({s.name, p.problem}); it != given.end()) p.category = it->second;
    }
  }
  return sources;
}

}  // namespace

std::vector<measured_source> read_speedups_csv(const std::filesystem::path& file,
                                               const std::optional<std::string>& source,
                                               const problem_categories& categories) {
  const auto text = util::read_file(file);
  if (!text) throw input_error(fmt::format("cannot read speedups '{}'", file.string()));
  const auto table = util::parse_csv(*text, file.string());
  const csv_context c{table, file.string()};
  const std::string default_source = file.stem().string();
  std::vector<measured_source> all;
  if (table.column("problem")) {
    all = read_distribution(c, default_source, categories);
  } else if (table.column("win_rate") || table.column("wins")) {
    all = read_summaries(c, default_source, categories);
  } else {
    throw input_error(
        fmt::format("{}: expected a distribution (columns problem, speedup) or published figures "
                    "(columns category, wins and problems or win_rate, median_speedup)",
                    file.string()));
  }
  if (source) std::erase_if(all, [&](const auto& s) { return s.name != *source; });
  if (all.empty()) {
    throw input_error(source ? fmt::format("{} has no source '{}'", file.string(), *source)
                             : fmt::format("{} holds no rows", file.string()));
  }
  return all;
}

}  // namespace headroom::project
