#include "headroom/project/join.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>

#include "resample.hpp"

namespace headroom::project {
namespace {

constexpr std::size_t category_count = classify::category_count;
using fraction_array = std::array<double, category_count>;

// One problem's evaluations, reduced to what the estimates need.
struct problem_figures {
  int evaluations = 0;
  std::vector<double> wins;  // effective speedups above 1
  double mean_gain = 0;  // mean of 1 - 1/s over its evaluations
  double best_gain = 0;  // 1 - 1/s of its best candidate
};

problem_figures figures_of(const problem_result& p) {
  problem_figures f;
  f.evaluations = static_cast<int>(p.effective.size());
  double best = 1.0, gain_sum = 0;
  for (double s : p.effective) {
    if (s > 1.0) f.wins.push_back(s);
    gain_sum += 1.0 - 1.0 / s;
    best = std::max(best, s);
  }
  f.mean_gain = f.evaluations > 0 ? gain_sum / f.evaluations : 0;
  f.best_gain = 1.0 - 1.0 / best;
  return f;
}

double median(std::vector<double>& v) {
  const std::size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end());
  const double upper = v[n / 2];
  if (n % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2)) + upper) / 2;
}

// The three gains (time saved per unit of f) of a set of problems, drawn with repetition.
struct pooled {
  int problems = 0;
  int evaluations = 0;
  int wins = 0;
  std::optional<double> median_win;
  double published = 0;
  double expectation = 0;
  double best = 0;
};

pooled pool(const std::vector<problem_figures>& all, std::span<const std::size_t> drawn, std::vector<double>& scratch) {
  pooled p;
  scratch.clear();
  for (auto i : drawn) {
    const auto& f = all[i];
    p.evaluations += f.evaluations;
    scratch.insert(scratch.end(), f.wins.begin(), f.wins.end());
    p.expectation += f.mean_gain;
    p.best += f.best_gain;
  }
  p.problems = static_cast<int>(drawn.size());
  if (p.problems > 0) {
    p.expectation /= p.problems;
    p.best /= p.problems;
  }
  p.wins = static_cast<int>(scratch.size());
  if (!scratch.empty()) {
    p.median_win = median(scratch);
    p.published = published_time_saved(1.0, static_cast<double>(p.wins) / p.evaluations, *p.median_win);
  }
  return p;
}

std::vector<classify::category> categories_by_fraction(const fraction_array& fractions) {
  std::vector<classify::category> v;
  for (std::size_t i = 0; i < category_count; ++i) {
    if (fractions[i] > 0) v.push_back(static_cast<classify::category>(i));
  }
  std::stable_sort(v.begin(), v.end(), [&](auto a, auto b) {
    return fractions[static_cast<std::size_t>(a)] > fractions[static_cast<std::size_t>(b)];
  });
  return v;
}

std::string interval_note(const join_options& o, std::string_view what) {
  return fmt::format("intervals: {:g}% percentile bootstrap, {} resamples (seed {}), {}", 100 * o.confidence,
                     o.resamples, o.seed, what);
}

void set_interval(estimate& e, std::vector<double>& samples, double confidence) {
  if (samples.empty()) return;
  const auto [lo, hi] = percentile_interval(samples, confidence);
  e.low = lo;
  e.high = hi;
}

source_join join_distribution(const fraction_array& fractions, const measured_source& s, const join_options& o) {
  source_join j;
  j.source = s.name;
  j.origin = s.origin;
  std::vector<problem_figures> figs;
  std::map<std::size_t, std::vector<std::size_t>> strata;  // kernel category -> problems; category_count: none
  int unmapped = 0;
  for (const auto& p : s.problems) {
    const std::size_t key = p.category ? static_cast<std::size_t>(p.category->kernels) : category_count;
    if (!p.category) ++unmapped;
    strata[key].push_back(figs.size());
    figs.push_back(figures_of(p));
  }
  std::vector<std::size_t> everything(figs.size());
  for (std::size_t i = 0; i < figs.size(); ++i) everything[i] = i;

  std::vector<double> scratch;
  const pooled all = pool(figs, everything, scratch);
  const auto order = categories_by_fraction(fractions);
  for (auto cat : order) {
    category_join c;
    c.cat = cat;
    c.fraction = fractions[static_cast<std::size_t>(cat)];
    const auto it = strata.find(static_cast<std::size_t>(cat));
    pooled p;
    if (it != strata.end()) {
      p = pool(figs, it->second, scratch);
      c.applied = basis::measured;
      c.basis_text = fmt::format("{} problem{}", p.problems, p.problems == 1 ? "" : "s");
    } else if (o.uncovered == uncovered_policy::pooled) {
      p = all;
      c.applied = basis::pooled;
      c.basis_text = fmt::format("no {} problem: pooled over all {} problems", classify::to_string(cat), all.problems);
    } else {
      c.applied = basis::none;
      c.basis_text = fmt::format("no {} problem: 1x", classify::to_string(cat));
    }
    c.problems = p.problems;
    c.evaluations = p.evaluations;
    c.wins = p.wins;
    c.win_rate = p.evaluations > 0 ? static_cast<double>(p.wins) / p.evaluations : 0;
    c.median_win = p.median_win;
    c.saved_published = c.fraction * p.published;
    c.saved_expectation = c.fraction * p.expectation;
    c.saved_best = c.fraction * p.best;
    j.published.time_saved += c.saved_published;
    j.expectation.time_saved += *c.saved_expectation;
    j.best.time_saved += *c.saved_best;
    j.categories.push_back(std::move(c));
  }
  j.published.available = j.expectation.available = j.best.available = true;

  if (o.resamples > 0 && !figs.empty()) {
    resampler rng(o.seed);
    std::vector<double> pub, expc, best;
    std::map<std::size_t, std::vector<std::size_t>> drawn;
    std::vector<std::size_t> drawn_all;
    for (int b = 0; b < o.resamples; ++b) {
      drawn_all.clear();
      for (const auto& [key, members] : strata) {  // each category keeps its number of problems
        auto& d = drawn[key];
        d.clear();
        for (std::size_t k = 0; k < members.size(); ++k) d.push_back(members[rng.below(members.size())]);
        drawn_all.insert(drawn_all.end(), d.begin(), d.end());
      }
      std::optional<pooled> all_b;
      double sp = 0, se = 0, sb = 0;
      for (const auto& c : j.categories) {
        if (c.applied == basis::none) continue;
        pooled p;
        if (c.applied == basis::measured) {
          p = pool(figs, drawn[static_cast<std::size_t>(c.cat)], scratch);
        } else {
          if (!all_b) all_b = pool(figs, drawn_all, scratch);
          p = *all_b;
        }
        sp += c.fraction * p.published;
        se += c.fraction * p.expectation;
        sb += c.fraction * p.best;
      }
      pub.push_back(sp);
      expc.push_back(se);
      best.push_back(sb);
    }
    set_interval(j.published, pub, o.confidence);
    set_interval(j.expectation, expc, o.confidence);
    set_interval(j.best, best, o.confidence);
    j.notes.push_back(interval_note(o, "problems drawn with replacement within each category"));
  }
  if (unmapped > 0) {
    j.notes.push_back(
        fmt::format("{} of {} problems have no category (data/problems/categories.toml; add them with "
                    "--problem-categories FILE): they count only in the pooled distribution",
                    unmapped, figs.size()));
  }
  std::vector<std::string> absent;
  for (const auto& [key, members] : strata) {
    if (key < category_count && fractions[key] <= 0) {
      absent.push_back(
          fmt::format("{} ({})", classify::to_string(static_cast<classify::category>(key)), members.size()));
    }
  }
  if (!absent.empty()) {
    std::string list;
    for (const auto& a : absent) list += (list.empty() ? "" : ", ") + a;
    j.notes.push_back(fmt::format("problems of categories with no addressable time here, not applied: {}", list));
  }
  return j;
}

source_join join_published(const fraction_array& fractions, const measured_source& s, const join_options& o) {
  source_join j;
  j.source = s.name;
  j.origin = s.origin;
  j.published_only = true;
  const published_summary* all_row = nullptr;
  for (const auto& r : s.summaries) {
    if (!r.scope) all_row = &r;
  }
  std::vector<const published_summary*> used;  // per category row, parallel to j.categories
  for (auto cat : categories_by_fraction(fractions)) {
    category_join c;
    c.cat = cat;
    c.fraction = fractions[static_cast<std::size_t>(cat)];
    const published_summary* row = nullptr;
    for (const auto& r : s.summaries) {
      if (r.scope && r.scope->kernels == cat) row = &r;
    }
    if (row) {
      c.applied = basis::measured;
      c.basis_text = fmt::format("published, {}", row->scope->name);
    } else if (all_row && o.uncovered == uncovered_policy::pooled) {
      row = all_row;
      c.applied = basis::pooled;
      c.basis_text = "published, all categories";
    } else {
      c.applied = basis::none;
      c.basis_text = fmt::format("no published {} figure: 1x", classify::to_string(cat));
    }
    if (row) {
      c.problems = row->problems.value_or(0);
      c.wins = row->wins.value_or(0);
      c.win_rate = row->win_rate;
      c.median_win = row->median_win;
      c.saved_published = published_time_saved(c.fraction, row->win_rate, row->median_win);
      j.published.time_saved += c.saved_published;
    }
    used.push_back(row);
    j.categories.push_back(std::move(c));
  }
  j.published.available = true;
  j.notes.push_back("published figures hold no distribution: the expectation and the best candidate need one");

  const bool counted =
      std::all_of(used.begin(), used.end(), [](const auto* r) { return !r || (r->problems && r->wins); });
  if (o.resamples > 0 && counted) {
    resampler rng(o.seed);
    std::vector<double> samples;
    std::map<const published_summary*, double> gain;  // one draw per row and resample
    for (int b = 0; b < o.resamples; ++b) {
      gain.clear();
      double total = 0;
      for (std::size_t i = 0; i < used.size(); ++i) {
        const auto* r = used[i];
        if (!r) continue;
        if (!gain.count(r)) {
          int k = 0;
          for (int n = 0; n < *r->problems; ++n) k += rng.chance(r->win_rate) ? 1 : 0;
          gain[r] = published_time_saved(1.0, static_cast<double>(k) / *r->problems, r->median_win);
        }
        total += j.categories[i].fraction * gain[r];
      }
      samples.push_back(total);
    }
    set_interval(j.published, samples, o.confidence);
    j.notes.push_back(interval_note(o,
                                    "the win count redrawn from its problems (binomial); the median is as published, "
                                    "so its own spread is not in the interval"));
  } else if (o.resamples > 0) {
    j.notes.push_back("no interval: the published figures do not give the number of problems and wins");
  }
  return j;
}

}  // namespace

double published_time_saved(double fraction, double win_rate, double median_win) {
  return fraction * win_rate * (1.0 - 1.0 / median_win);
}

std::string_view to_string(uncovered_policy p) { return p == uncovered_policy::pooled ? "pooled" : "none"; }

std::optional<uncovered_policy> parse_uncovered_policy(std::string_view s) {
  if (s == "pooled") return uncovered_policy::pooled;
  if (s == "none") return uncovered_policy::none;
  return std::nullopt;
}

std::string_view to_string(basis b) {
  switch (b) {
    case basis::measured:
      return "measured";
    case basis::pooled:
      return "pooled";
    case basis::none:
      return "none";
  }
  return "?";
}

std::vector<source_join> join_speedups(const fraction_array& fractions, const std::vector<measured_source>& sources,
                                       const join_options& o) {
  std::vector<source_join> out;
  for (const auto& s : sources) {
    out.push_back(s.published_only() ? join_published(fractions, s, o) : join_distribution(fractions, s, o));
  }
  return out;
}

measured_projection project_measured(const trace::trace& t, const classify::classifier& c, analyze::analyze_options o,
                                     const std::vector<measured_source>& sources, const join_options& jo) {
  o.groups.clear();
  for (int i = 0; i < classify::category_count; ++i) {
    analyze::activity_group g;
    g.category = static_cast<classify::category>(i);
    g.label = fmt::format("addressable {}", classify::to_string(*g.category));
    g.addressable_only = true;
    o.groups.push_back(std::move(g));
  }
  o.attribute_wall_clock = true;
  measured_projection p;
  p.options = jo;
  p.analysis = analyze::analyze(t, c, o);
  const auto& total = p.analysis.total;
  for (std::size_t i = 0; i < category_count; ++i) p.fractions[i] = total.share(total.groups[i].busy);
  p.sources = join_speedups(p.fractions, sources, jo);
  return p;
}

}  // namespace headroom::project
