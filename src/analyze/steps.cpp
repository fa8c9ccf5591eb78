#include "headroom/analyze/steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "headroom/util/error.hpp"

namespace headroom::analyze {

std::string_view to_string(step_mapping m) {
  switch (m) {
    case step_mapping::correlation:
      return "GPU spans through launch correlation";
    case step_mapping::gpu_annotation:
      return "GPU spans from gpu_user_annotation ranges";
    case step_mapping::cpu_range:
      return "host ranges used as they are (no launch correlation)";
  }
  return "?";
}

namespace {

// "ProfilerStep#3" and "ProfilerStep#7" read as "ProfilerStep#3..#7".
std::string step_span_name(std::string_view a, std::string_view b) {
  if (a == b) return std::string(a);
  std::size_t p = 0;
  while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
  while (p > 0 && std::isdigit(static_cast<unsigned char>(b[p - 1]))) --p;
  std::string tail(b.substr(p));
  if (p > 0 && b[p - 1] == '#') tail = "#" + tail;
  return fmt::format("{}..{}", a, tail);
}

bool launches_work(std::string_view api_name) { return api_name.find("Launch") != std::string_view::npos; }

}  // namespace

step_finder::step_finder(const trace::trace& t, const std::string& marker_regex)
    : t_(t), marker_(marker_regex, "--step-marker"), marker_cache_(t.strings.size(), -1) {
  cpu_steps_.resize(t.processes.size());
  for (std::uint32_t i = 0; i < t.ranges.size(); ++i) {
    const auto& r = t.ranges[i];
    if (r.kind == trace::range_kind::mark || r.end <= r.start || !is_marker(r.name)) continue;
    if (r.kind == trace::range_kind::gpu_annotation) {
      gpu_steps_.push_back(i);
    } else {
      if (r.process >= cpu_steps_.size()) cpu_steps_.resize(r.process + 1u);
      cpu_steps_[r.process].push_back(i);
    }
  }
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return t.ranges[a].start < t.ranges[b].start; };
  for (auto& v : cpu_steps_) std::sort(v.begin(), v.end(), by_start);
  std::sort(gpu_steps_.begin(), gpu_steps_.end(), by_start);

  // Calls come from api_calls or, for readers asked for launch pairs only, from launches; one index
  // runs over both (api_calls first).
  api_by_process_.resize(cpu_steps_.size());
  const auto consider = [&](std::uint64_t correlation, std::uint16_t process, std::uint32_t i) {
    if (correlation == 0 || process >= cpu_steps_.size() || cpu_steps_[process].empty()) return;
    api_by_process_[process].push_back(i);
  };
  const auto api_count = static_cast<std::uint32_t>(t.api_calls.size());
  for (std::uint32_t i = 0; i < api_count; ++i) consider(t.api_calls[i].correlation, t.api_calls[i].process, i);
  for (std::uint32_t i = 0; i < t.launches.size(); ++i)
    consider(t.launches[i].correlation, t.launches[i].process, api_count + i);
  const auto by_call_start = [&](std::uint32_t a, std::uint32_t b) { return call_at(a).start < call_at(b).start; };
  // Readers mostly keep the file's order, which is usually time order already.
  for (auto& v : api_by_process_) {
    if (!std::is_sorted(v.begin(), v.end(), by_call_start)) std::sort(v.begin(), v.end(), by_call_start);
  }
  std::size_t correlated = 0;
  for (const auto& a : t.activities) correlated += a.correlation != 0;
  by_correlation_.reserve(correlated);
  for (std::uint32_t i = 0; i < t.activities.size(); ++i) {
    if (t.activities[i].correlation != 0) by_correlation_.push_back(i);
  }
  const auto by_key = [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = t.activities[a];
    const auto& y = t.activities[b];
    return std::tie(x.process, x.correlation) < std::tie(y.process, y.correlation);
  };
  if (!std::is_sorted(by_correlation_.begin(), by_correlation_.end(), by_key)) {
    std::sort(by_correlation_.begin(), by_correlation_.end(), by_key);
  }
}

step_finder::call step_finder::call_at(std::uint32_t i) const {
  if (i < t_.api_calls.size()) {
    const auto& c = t_.api_calls[i];
    return {c.start, c.correlation, c.name, c.process};
  }
  const auto& l = t_.launches[i - t_.api_calls.size()];
  return {l.start, l.correlation, l.name, l.process};
}

bool step_finder::is_marker(trace::string_id name) {
  auto& cached = marker_cache_[name];
  if (cached < 0) cached = marker_.search(t_.strings[name]) ? 1 : 0;
  return cached == 1;
}

std::vector<step_finder::step> step_finder::mapped_steps(const timeline& tl, step_mapping& how, int& dropped) const {
  std::vector<step> steps;
  dropped = 0;
  static const std::vector<std::uint32_t> none;
  const auto& cpu = tl.process < cpu_steps_.size() ? cpu_steps_[tl.process] : none;
  const auto& api = tl.process < api_by_process_.size() ? api_by_process_[tl.process] : none;

  if (!cpu.empty() && !api.empty()) {
    how = step_mapping::correlation;
    struct mapped {
      step s;
      bool work;
      std::uint64_t unrecorded;
    };
    std::vector<mapped> all;
    for (auto ri : cpu) {
      const auto& r = t_.ranges[ri];
      mapped m{{r.name, 0, 0, no_activity, no_activity}, false, 0};
      auto it = std::lower_bound(api.begin(), api.end(), r.start,
                                 [&](std::uint32_t i, time_ns t) { return call_at(i).start < t; });
      for (; it != api.end(); ++it) {
        const auto c = call_at(*it);
        if (c.start >= r.end) break;
        auto lo =
            std::lower_bound(by_correlation_.begin(), by_correlation_.end(), c, [&](std::uint32_t i, const call& k) {
              const auto& a = t_.activities[i];
              return std::tie(a.process, a.correlation) < std::tie(k.process, k.correlation);
            });
        bool any = false;
        for (; lo != by_correlation_.end(); ++lo) {
          const auto& a = t_.activities[*lo];
          if (a.process != c.process || a.correlation != c.correlation) break;
          any = true;
          if (a.device != tl.device) continue;
          if (!m.work || a.start < m.s.start) m.s.start = a.start, m.s.first = *lo;
          if (!m.work || a.end > m.s.end) m.s.end = a.end, m.s.last = *lo;
          m.work = true;
        }
        if (!any && launches_work(t_.strings[c.name])) ++m.unrecorded;
      }
      all.push_back(m);
    }
    std::erase_if(all, [&](const mapped& m) {
      dropped += !m.work;
      return !m.work;
    });
    // A step at either edge whose launches never reached the trace was cut off by the profiler.
    if (!all.empty() && all.front().unrecorded > 0) all.erase(all.begin()), ++dropped;
    if (!all.empty() && all.back().unrecorded > 0) all.pop_back(), ++dropped;
    for (const auto& m : all) steps.push_back(m.s);
    if (!steps.empty()) return steps;
    dropped = 0;
  }

  for (auto ri : gpu_steps_) {
    const auto& r = t_.ranges[ri];
    if (r.process == tl.process && r.device == tl.device) steps.push_back({r.name, r.start, r.end});
  }
  if (!steps.empty()) {
    how = step_mapping::gpu_annotation;
    return steps;
  }
  how = step_mapping::cpu_range;
  for (auto ri : cpu) steps.push_back({t_.ranges[ri].name, t_.ranges[ri].start, t_.ranges[ri].end});
  return steps;
}

std::optional<window> step_finder::steady_window(const timeline& tl, int warmup) const {
  step_mapping how = step_mapping::cpu_range;
  int dropped = 0;
  const auto steps = mapped_steps(tl, how, dropped);
  if (steps.empty()) return std::nullopt;
  const int n = static_cast<int>(steps.size());
  window w;
  w.source = window_source::step_markers;
  std::string extra;
  int first = 0;
  int last = n - 1;  // the last step inside the window
  // Steps are measured start to start, as repeating units are: a step lasts until the next one
  // begins on the GPU, so idle time between steps (host-bound launches, data loading) counts
  // against the step that caused it. The last recorded step only closes the window: how long the
  // GPU stayed idle after it is not in the trace. A single step is measured as it is.
  const bool start_to_start = n >= 2 && steps.back().start > steps.front().start;
  if (start_to_start) {
    last = n - 2;
    const int periods = n - 1;
    first = periods - warmup >= 2 ? std::max(warmup, 0) : 0;
    w.start = steps[static_cast<std::size_t>(first)].start;
    w.end = steps.back().start;
    extra += fmt::format("; start to start, closed by the start of {}", t_.strings[steps.back().name]);
  } else {
    w.start = steps.front().start;
    w.end = w.start;
    for (const auto& s : steps) w.end = std::max(w.end, s.end);
  }
  w.steps = last - first + 1;
  w.skipped_warmup = first;
  const auto anchor = [&](const step& s) {
    return s.first != no_activity ? s.first : first_starting_at(t_, tl, s.start);
  };
  if (start_to_start) {
    for (int k = first; k < n; ++k) w.boundaries.push_back({anchor(steps[static_cast<std::size_t>(k)]), false});
  } else {
    std::uint32_t closing = steps.front().last != no_activity ? steps.front().last : last_ending_by(t_, tl, w.end);
    for (const auto& s : steps) {
      if (s.last != no_activity && t_.activities[s.last].end > t_.activities[closing].end) closing = s.last;
    }
    w.boundaries = {{anchor(steps.front()), false}, {closing, true}};
  }
  std::string counts;
  if (first > 0) counts += fmt::format(", {} skipped as warm-up", first);
  if (dropped > 0)
    counts += fmt::format(", {} without work on this device or cut off at the trace's edge dropped", dropped);
  w.description = fmt::format("steps {} ({} step{}{}; {}{})",
                              step_span_name(t_.strings[steps[static_cast<std::size_t>(first)].name],
                                             t_.strings[steps[static_cast<std::size_t>(last)].name]),
                              w.steps, w.steps == 1 ? "" : "s", counts, to_string(how), extra);
  return w;
}

}  // namespace headroom::analyze
