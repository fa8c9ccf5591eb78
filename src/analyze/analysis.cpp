#include "headroom/analyze/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "headroom/analyze/activity_classes.hpp"
#include "headroom/analyze/attribution.hpp"
#include "headroom/analyze/intervals.hpp"
#include "headroom/analyze/launch_ranges.hpp"
#include "headroom/analyze/steps.hpp"
#include "headroom/analyze/timeline.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::analyze {
namespace {

using classify::category;
using classify::provenance;

class group_matcher {
 public:
  group_matcher(const trace::trace& t, const std::vector<activity_group>& groups) : t_(t), groups_(groups) {
    for (const auto& g : groups) {
      regex_.emplace_back(g.name_regex, "kernel pattern");
      cache_.emplace_back(t.strings.size(), -1);
      in_range_.push_back(g.range_regex.empty() ? std::vector<bool>{}
                                                : launched_in_ranges(t, util::regex(g.range_regex, "range pattern")));
    }
  }

  // Index of the first group that takes the activity, or -1.
  int group_of(const trace::activity& a, const classify::classification& k) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const auto& grp = groups_[g];
      if (grp.category && *grp.category != k.cat) continue;
      if (grp.addressable_only && !k.addressable()) continue;
      if (!grp.range_regex.empty() && !in_range_[g][static_cast<std::size_t>(&a - t_.activities.data())]) continue;
      if (!grp.name_regex.empty()) {
        auto& hit = cache_[g][a.name];
        if (hit < 0) hit = regex_[g].search(t_.strings[a.name]) ? 1 : 0;
        if (hit == 0) continue;
      }
      return static_cast<int>(g);
    }
    return -1;
  }

 private:
  const trace::trace& t_;
  const std::vector<activity_group>& groups_;
  std::vector<util::regex> regex_;
  std::vector<std::vector<signed char>> cache_;
  std::vector<std::vector<bool>> in_range_;  // per group with a range pattern: per activity
};

struct name_total {
  time_ns total = 0;
  std::uint64_t count = 0;
};
using name_totals = std::unordered_map<trace::string_id, name_total>;

// The console's unit style, kept here because report/ depends on analyze/, not the reverse.
std::string offset_text(time_ns ns) {
  const double v = static_cast<double>(ns);
  if (ns == 0) return "0";
  if (ns % 1000000 == 0) return fmt::format("{}ms", ns / 1000000);
  if (ns % 1000 == 0) return fmt::format("{}us", ns / 1000);
  if (v >= 1e6) return fmt::format("{:.6f}ms", v / 1e6);
  return fmt::format("{}ns", ns);
}

std::string timeline_label(const trace::trace& t, std::uint16_t process, std::int16_t device) {
  std::string who;
  if (process < t.processes.size()) {
    const auto& p = t.processes[process];
    who = p.rank >= 0 ? fmt::format("rank {}", p.rank) : fmt::format("pid {}", p.pid);
  } else {
    who = fmt::format("process {}", process);
  }
  if (device < 0) return who + " / unknown device";
  for (const auto& d : t.devices) {
    if (d.process == process && d.id == device && !d.name.empty())
      return fmt::format("{} / GPU {} ({})", who, device, d.name);
  }
  return fmt::format("{} / GPU {}", who, device);
}

window whole_window(const trace::trace& t, const timeline& tl) {
  window w;
  w.source = window_source::whole_span;
  if (tl.activities.empty()) return w;
  w.start = t.activities[tl.activities.front()].start;
  w.end = w.start;
  std::uint32_t last = tl.activities.front();
  for (auto i : tl.activities) {
    if (t.activities[i].end > w.end) w.end = t.activities[i].end, last = i;
  }
  w.description = "whole span of the timeline (first activity start to last activity end)";
  w.boundaries = {{tl.activities.front(), false}, {last, true}};
  return w;
}

std::optional<window> repeating_unit_window(const trace::trace& t, const timeline& tl, int warmup) {
  std::vector<std::uint32_t> kernels;
  std::vector<trace::string_id> seq;
  for (auto i : tl.activities) {
    if (t.activities[i].kind != trace::activity_kind::kernel) continue;
    kernels.push_back(i);
    seq.push_back(t.activities[i].name);
  }
  const auto unit = find_repeating_unit(seq, warmup);
  if (!unit) return std::nullopt;
  window w;
  w.source = window_source::repeating_unit;
  w.start = t.activities[kernels[unit->first]].start;
  w.end = t.activities[kernels[unit->first + static_cast<std::size_t>(unit->units) * unit->period]].start;
  w.steps = unit->units;
  w.skipped_warmup = unit->skipped;
  for (int k = 0; k <= unit->units; ++k) {
    w.boundaries.push_back({kernels[unit->first + static_cast<std::size_t>(k) * unit->period], false});
  }
  std::string anchor(t.strings[unit->anchor]);
  if (anchor.size() > 60) anchor = anchor.substr(0, 57) + "...";
  w.description = fmt::format(
      "repeating unit of {} kernels found in the kernel sequence ({} unit{}{}; anchor '{}', {:.0f}% of positions repeat; "
      "no step markers)",
      unit->period, unit->units, unit->units == 1 ? "" : "s",
      unit->skipped > 0 ? fmt::format(", {} skipped as warm-up", unit->skipped) : std::string(), anchor,
      100.0 * unit->match);
  return w;
}

void add(busy_share& into, const busy_share& from) {
  into.busy += from.busy;
  into.sum += from.sum;
  into.count += from.count;
}

timeline_report measure(const trace::trace& t, const timeline& tl, const window& w, activity_classes& classes,
                        group_matcher& groups, std::size_t group_count, name_totals& names, bool attribute) {
  timeline_report r;
  r.process = tl.process;
  r.device = tl.device;
  r.rank = tl.process < t.processes.size() ? t.processes[tl.process].rank : -1;
  r.label = timeline_label(t, tl.process, tl.device);
  r.win = w;
  r.wall = std::max<time_ns>(w.length(), 0);
  r.groups.resize(group_count);

  // tl.activities is ordered by start and clipping to the window keeps that order, so each class's
  // union is measured in the same pass with no copy of its intervals.
  running_union all, kernels, addressable, other;
  std::array<running_union, classify::category_count> by_cat;
  std::array<running_union, classify::provenance_count> by_prov;
  std::vector<running_union> by_group(group_count);
  constexpr std::size_t class_count = std::size_t{classify::provenance_count} * classify::category_count;
  std::optional<running_attribution> attribution;
  if (attribute) attribution.emplace(class_count);

  for (auto i : tl.activities) {
    const auto& a = t.activities[i];
    const interval c{std::max(a.start, w.start), std::min(a.end, w.end)};
    const bool instant_inside = a.start == a.end && a.start >= w.start && a.start < w.end;
    if (c.end <= c.start && !instant_inside) continue;
    const time_ns len = std::max<time_ns>(c.length(), 0);
    const auto k = classes.of(a);
    const auto cat = static_cast<std::size_t>(k.cat);
    const auto prov = static_cast<std::size_t>(k.prov);
    all.add(c);
    (k.addressable() ? addressable : other).add(c);
    by_cat[cat].add(c);
    r.by_category[cat].sum += len;
    ++r.by_category[cat].count;
    by_prov[prov].add(c);
    if (attribution) attribution->add(c, prov * classify::category_count + cat);
    r.by_provenance[prov].sum += len;
    ++r.by_provenance[prov].count;
    if (group_count > 0) {
      if (const int g = groups.group_of(a, k); g >= 0) {
        by_group[static_cast<std::size_t>(g)].add(c);
        r.groups[static_cast<std::size_t>(g)].sum += len;
        ++r.groups[static_cast<std::size_t>(g)].count;
      }
    }
    if (a.kind == trace::activity_kind::kernel) {
      kernels.add(c);
      auto& n = names[a.name];
      n.total += len;
      ++n.count;
    }
  }
  r.busy_all = all.length();
  r.busy_kernels = kernels.length();
  r.busy_addressable = addressable.length();
  // addressable \ other = all - other, since all = addressable u other.
  r.busy_addressable_exclusive = r.busy_all - other.length();
  for (std::size_t i = 0; i < by_cat.size(); ++i) r.by_category[i].busy = by_cat[i].length();
  for (std::size_t i = 0; i < by_prov.size(); ++i) r.by_provenance[i].busy = by_prov[i].length();
  for (std::size_t i = 0; i < group_count; ++i) r.groups[i].busy = by_group[i].length();
  if (attribution) {
    const auto given = attribution->finish();
    for (std::size_t i = 0; i < class_count; ++i)
      r.attributed[i / classify::category_count][i % classify::category_count] = given[i];
  }
  return r;
}

std::vector<kernel_row> top_rows(const trace::trace& t, const name_totals& names, classify::classifier const& c,
                                 time_ns wall, std::size_t n) {
  std::vector<std::pair<trace::string_id, name_total>> v(names.begin(), names.end());
  const auto by_total = [&](const auto& a, const auto& b) {
    return a.second.total != b.second.total ? a.second.total > b.second.total : t.strings[a.first] < t.strings[b.first];
  };
  const std::size_t keep = std::min(n, v.size());
  std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(keep), v.end(), by_total);
  std::vector<kernel_row> rows;
  for (std::size_t i = 0; i < keep; ++i) {
    const auto k = c.classify(t.strings[v[i].first]);
    rows.push_back({std::string(t.strings[v[i].first]), k.cat, k.prov, std::string(k.rule), v[i].second.total,
                    v[i].second.count,
                    wall > 0 ? static_cast<double>(v[i].second.total) / static_cast<double>(wall) : 0.0});
  }
  return rows;
}

}  // namespace

std::vector<std::int16_t> assign_groups(const trace::trace& t, const classify::classifier& c,
                                        const std::vector<activity_group>& groups) {
  activity_classes classes(t, c);
  group_matcher matcher(t, groups);
  std::vector<std::int16_t> out(t.activities.size(), -1);
  if (groups.empty()) return out;
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    out[i] = static_cast<std::int16_t>(matcher.group_of(t.activities[i], classes.of(t.activities[i])));
  }
  return out;
}

analysis_report analyze(const trace::trace& t, const classify::classifier& c, const analyze_options& o) {
  analysis_report rep;
  rep.platform = t.platform;
  const auto timelines = split_timelines(t);
  activity_classes classes(t, c);
  group_matcher groups(t, o.groups);
  std::optional<step_finder> steps;
  if (o.mode == window_mode::steady_state) steps.emplace(t, o.step_marker);

  time_ns first = std::numeric_limits<time_ns>::max();
  for (const auto& a : t.activities) first = std::min(first, a.start);
  rep.origin = t.activities.empty() ? 0 : first;

  name_totals all_names;
  std::vector<std::string> fallbacks;
  for (const auto& tl : timelines) {
    window w;
    switch (o.mode) {
      case window_mode::whole:
        w = whole_window(t, tl);
        break;
      case window_mode::explicit_bounds:
        w.source = window_source::explicit_bounds;
        w.start = first + o.window_start;
        w.end = first + o.window_end;
        w.description = fmt::format("explicit window +{} to +{} from the trace's first activity",
                                    offset_text(o.window_start), offset_text(o.window_end));
        if (!tl.activities.empty()) {
          const auto a = first_starting_at(t, tl, w.start);
          const auto b = last_ending_by(t, tl, w.end);
          if (t.activities[a].start < w.end && t.activities[b].end > t.activities[a].start)
            w.boundaries = {{a, false}, {b, true}};
        }
        break;
      case window_mode::steady_state:
        if (auto sw = steps->steady_window(tl, o.warmup_steps)) {
          w = *sw;
        } else if (auto rw = repeating_unit_window(t, tl, o.warmup_steps)) {
          w = *rw;
        } else {
          w = whole_window(t, tl);
          w.description = "whole span of the timeline: no step markers and no repeating kernel sequence found";
          fallbacks.push_back(timeline_label(t, tl.process, tl.device));
        }
        break;
    }
    name_totals names;
    auto r = measure(t, tl, w, classes, groups, o.groups.size(), names, o.attribute_wall_clock);
    r.top_kernels = top_rows(t, names, c, r.wall, o.top_kernels);
    for (const auto& [id, n] : names) {
      auto& into = all_names[id];
      into.total += n.total;
      into.count += n.count;
    }
    rep.timelines.push_back(std::move(r));
  }

  auto& tot = rep.total;
  tot.label = "all timelines (device-time weighted)";
  tot.groups.resize(o.groups.size());
  if (!rep.timelines.empty()) {
    tot.win.start = std::numeric_limits<time_ns>::max();
    tot.win.end = std::numeric_limits<time_ns>::min();
  }
  for (const auto& r : rep.timelines) {
    tot.win.start = std::min(tot.win.start, r.win.start);
    tot.win.end = std::max(tot.win.end, r.win.end);
    tot.wall += r.wall;
    tot.busy_all += r.busy_all;
    tot.busy_kernels += r.busy_kernels;
    tot.busy_addressable += r.busy_addressable;
    tot.busy_addressable_exclusive += r.busy_addressable_exclusive;
    for (std::size_t i = 0; i < r.by_category.size(); ++i) add(tot.by_category[i], r.by_category[i]);
    for (std::size_t i = 0; i < r.by_provenance.size(); ++i) add(tot.by_provenance[i], r.by_provenance[i]);
    for (std::size_t i = 0; i < r.groups.size(); ++i) add(tot.groups[i], r.groups[i]);
    for (std::size_t p = 0; p < r.attributed.size(); ++p) {
      for (std::size_t k = 0; k < r.attributed[p].size(); ++k) tot.attributed[p][k] += r.attributed[p][k];
    }
  }
  tot.win.source = rep.timelines.empty() ? window_source::whole_span : rep.timelines.front().win.source;
  tot.win.description =
      fmt::format("sum of the {} timeline window{}", rep.timelines.size(), rep.timelines.size() == 1 ? "" : "s");
  tot.top_kernels = top_rows(t, all_names, c, tot.wall, o.top_kernels);

  auto& notes = rep.notes;
  // Lost input first: every figure below is of what could be read (docs/method.md, "Partial input").
  for (const auto& w : t.warnings) {
    if (w.lost) notes.push_back(fmt::format("partial input, the figures cover only what was read: {}", w.what));
  }
  if (t.activities.empty()) notes.push_back("no GPU activity in this trace: nothing to measure");
  if (!t.platform.empty() && t.platform != "cuda") {
    notes.push_back(
        fmt::format("platform {}: the classification rules are CUDA-centric, so vendor kernels of this "
                    "platform may count as custom (addressable)",
                    t.platform));
  }
  for (const auto& f : fallbacks) {
    notes.push_back(
        fmt::format("{}: no step markers and no repeating kernel sequence; the window is the whole span, "
                    "warm-up included",
                    f));
  }
  for (const auto& r : rep.timelines) {
    if (r.device < 0)
      notes.push_back(
          fmt::format("{}: activities without a device id are measured on a timeline of their own", r.label));
    if (r.wall <= 0) notes.push_back(fmt::format("{}: the window is empty", r.label));
    // A step of one or two kernels gives exact but meaningless shares (one kernel is 100% busy).
    std::uint64_t in_window = 0;
    for (const auto& c : r.by_category) in_window += c.count;
    constexpr std::uint64_t few_activities = 20;
    if (r.wall > 0 && in_window < few_activities) {
      notes.push_back(
          fmt::format("{}: the window holds only {} GPU activit{} over {} ns; its shares describe that span "
                      "alone (--window whole measures the whole trace)",
                      r.label, in_window, in_window == 1 ? "y" : "ies", r.wall));
    }
  }
  if (t.dropped_records > 0) {
    notes.push_back(fmt::format("the profiler reported {} lost records: busy times may be too low", t.dropped_records));
  }
  for (const auto& w : t.warnings) {
    if (w.lost) continue;
    notes.push_back(w.count > 1 ? fmt::format("reader: {} ({} times)", w.what, w.count)
                                : fmt::format("reader: {}", w.what));
  }
  return rep;
}

}  // namespace headroom::analyze
