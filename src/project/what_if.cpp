#include "headroom/project/what_if.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/util/error.hpp"

namespace headroom::project {
namespace {

double parse_speedup(std::string_view text, std::string_view flag, std::string_view whole) {
  if (text == "inf" || text == "infinity") return infinite_speedup;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(v > 0) || !std::isfinite(v)) {
    throw input_error(fmt::format("{} '{}': the speedup '{}' must be a positive number or inf", flag, whole, text));
  }
  return v;
}

std::pair<std::string_view, double> split(std::string_view text, std::string_view flag, std::string_view form) {
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0) throw input_error(fmt::format("{} '{}': expected {}", flag, text, form));
  return {text.substr(0, eq), parse_speedup(text.substr(eq + 1), flag, text)};
}

}  // namespace

std::string speedup_rule::label() const {
  switch (what) {
    case target::addressable:
      return "addressable (rest)";
    case target::category:
      return fmt::format("category {}", classify::to_string(cat));
    case target::kernel_pattern:
      return fmt::format("kernels /{}/", pattern);
    case target::host_range:
      return fmt::format("kernels launched in ranges /{}/", pattern);
  }
  return "?";
}

speedup_rule parse_category_speedup(std::string_view text) {
  const auto [name, s] = split(text, "--category", "CATEGORY=SPEEDUP such as gemm=1.5");
  const auto cat = classify::parse_category(name);
  if (!cat) {
    std::string known;
    for (int i = 0; i < classify::category_count; ++i) {
      known += fmt::format("{}{}", i ? ", " : "", classify::to_string(static_cast<classify::category>(i)));
    }
    throw input_error(fmt::format("--category '{}': unknown category '{}' (one of: {})", text, name, known));
  }
  speedup_rule r;
  r.what = speedup_rule::target::category;
  r.cat = *cat;
  r.speedup = s;
  return r;
}

// "REGEX=SPEEDUP" for a rule over names: kernel names or the host ranges around their launches.
speedup_rule pattern_rule(std::string_view text, speedup_rule::target what, std::string_view flag,
                          std::string_view form) {
  const auto [pattern, s] = split(text, flag, form);
  speedup_rule r;
  r.what = what;
  r.pattern = std::string(pattern);
  r.speedup = s;
  return r;
}

speedup_rule parse_kernel_speedup(std::string_view text) {
  return pattern_rule(text, speedup_rule::target::kernel_pattern, "--kernel", "REGEX=SPEEDUP such as 'triton_.*=2'");
}

speedup_rule parse_range_speedup(std::string_view text) {
  return pattern_rule(text, speedup_rule::target::host_range, "--range",
                      "REGEX=SPEEDUP such as 'embedding_bag_forward=2'");
}

std::string host_rule::label() const { return fmt::format("host calls in ranges /{}/", pattern); }

host_rule parse_host_range_speedup(std::string_view text) {
  const auto [pattern, s] = split(text, "--host-range", "REGEX=SPEEDUP such as 'rowwise_adagrad_update=2'");
  return {std::string(pattern), s};
}

speedup_rule parse_addressable_speedup(std::string_view text) {
  speedup_rule r;
  r.speedup = parse_speedup(text, "--speedup", text);
  return r;
}

std::vector<const speedup_rule*> rules_in_order(const std::vector<speedup_rule>& rules) {
  std::vector<const speedup_rule*> ordered;
  for (auto w : {speedup_rule::target::kernel_pattern, speedup_rule::target::host_range, speedup_rule::target::category,
                 speedup_rule::target::addressable}) {
    for (const auto& r : rules) {
      if (r.what == w) ordered.push_back(&r);
    }
  }
  return ordered;
}

std::vector<analyze::activity_group> rule_groups(const std::vector<const speedup_rule*>& ordered) {
  std::vector<analyze::activity_group> groups;
  for (const auto* r : ordered) {
    analyze::activity_group g;
    g.label = r->label();
    if (r->what == speedup_rule::target::kernel_pattern) g.name_regex = r->pattern;
    if (r->what == speedup_rule::target::host_range) g.range_regex = r->pattern;
    if (r->what == speedup_rule::target::category) g.category = r->cat;
    g.addressable_only = r->what == speedup_rule::target::addressable;
    groups.push_back(std::move(g));
  }
  return groups;
}

projection project_amdahl(const trace::trace& t, const classify::classifier& c, analyze::analyze_options o,
                          const std::vector<speedup_rule>& rules) {
  const auto ordered = rules_in_order(rules);
  o.groups = rule_groups(ordered);
  projection p;
  p.analysis = analyze::analyze(t, c, o);
  const auto& total = p.analysis.total;
  std::vector<part> parts;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    projected_part pp{o.groups[i].label, total.groups[i].busy, total.share(total.groups[i].busy), ordered[i]->speedup};
    parts.push_back({pp.fraction, pp.speedup});
    p.parts.push_back(std::move(pp));
  }
  p.speedup = amdahl(parts);
  p.ceiling = ceiling(parts);
  for (double s : reference_speedups()) {
    auto uniform = parts;
    for (auto& u : uniform) u.speedup = s;
    p.at_reference.push_back(amdahl(uniform));
  }
  return p;
}

}  // namespace headroom::project
