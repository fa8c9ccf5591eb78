#include "headroom/eval/suite.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "headroom/eval/loaders.hpp"
#include "headroom/record/evaluation.hpp"
#include "headroom/util/error.hpp"

namespace headroom::eval {

using record::disqualifies_speedup;
using record::evaluation;
using record::parse_verdict;
using record::reason;
using record::verdict;
using record::verdict_name;

namespace fs = std::filesystem;

std::vector<suite_case> load_suite(const fs::path& manifest, const std::string& source) {
  toml::table doc;
  try {
    doc = toml::parse_file(manifest.string());
  } catch (const toml::parse_error& e) {
    throw input_error(fmt::format("{}: {}", manifest.string(), e.description()));
  }
  std::vector<suite_case> out;
  const toml::array* cases = doc["case"].as_array();
  if (!cases) throw input_error(fmt::format("{}: no [[case]] entries", manifest.string()));
  std::map<std::string, problem_spec> problems;
  fs::path base = manifest.parent_path();
  for (const auto& node : *cases) {
    const toml::table* t = node.as_table();
    if (!t) continue;
    suite_case c;
    c.name = (*t)["name"].value_or(std::string());
    c.exploit = (*t)["exploit"].value_or(std::string());
    std::string problem = (*t)["problem"].value_or(std::string());
    std::string candidate = (*t)["candidate"].value_or(std::string());
    std::string expect = (*t)["expect"].value_or(std::string());
    if (c.name.empty() || problem.empty() || candidate.empty() || expect.empty())
      throw input_error(fmt::format("{}: a case needs name, problem, candidate and expect", manifest.string()));
    auto v = parse_verdict(expect);
    if (!v) throw input_error(fmt::format("{}: case {}: unknown verdict '{}'", manifest.string(), c.name, expect));
    c.expect = *v;
    if (const toml::array* r = (*t)["reasons"].as_array())
      for (const auto& x : *r) c.reasons.push_back(x.value_or(std::string()));
    if (const toml::array* d = (*t)["devices"].as_array())
      for (const auto& x : *d) c.devices.push_back(x.value_or(std::string()));
    if (c.devices.empty()) c.devices = {"cpu", "cuda"};
    if (auto m = (*t)["max_speedup"].value<double>()) c.max_speedup = *m;
    fs::path pp = base / problem;
    auto it = problems.find(pp.string());
    if (it == problems.end()) it = problems.emplace(pp.string(), load_problem(pp)).first;
    c.job = {it->second, load_candidate(base / candidate, source)};
    out.push_back(std::move(c));
  }
  return out;
}

bool meets_expectation(const suite_case& c, const evaluation& e, std::string& why) {
  if (e.result != c.expect) {
    why = fmt::format("expected {}, got {}", verdict_name(c.expect), verdict_name(e.result));
    if (!e.reasons.empty()) why += fmt::format(" ({}: {})", e.reasons.front().code, e.reasons.front().detail);
    return false;
  }
  for (const std::string& code : c.reasons)
    if (std::none_of(e.reasons.begin(), e.reasons.end(), [&](const reason& r) { return r.code == code; })) {
      why = fmt::format("{} without the reason {}", verdict_name(e.result), code);
      return false;
    }
  if (c.expect == verdict::correct && c.reasons.empty())
    for (const reason& r : e.reasons)
      if (disqualifies_speedup(r.code)) {
        why = fmt::format("correct but flagged {}: {}", r.code, r.detail);
        return false;
      }
  if (c.max_speedup && e.speedup && *e.speedup >= *c.max_speedup) {
    why = fmt::format("a speedup of {:.3f}, at or above the bound of {:.3f} a slower candidate must stay under",
                      *e.speedup, *c.max_speedup);
    return false;
  }
  return true;
}

std::vector<suite_case> cases_for(std::vector<suite_case> cases, const std::string& device_kind) {
  std::erase_if(cases, [&](const suite_case& c) {
    return std::find(c.devices.begin(), c.devices.end(), device_kind) == c.devices.end();
  });
  return cases;
}

std::vector<case_outcome> judge_cases(const std::vector<suite_case>& cases, const std::vector<evaluation>& results) {
  std::vector<case_outcome> out;
  for (const auto& c : cases) {
    case_outcome o;
    o.c = &c;
    for (const auto& e : results)
      if (e.candidate_hash == c.job.candidate.hash && e.problem_hash == c.job.problem.hash) o.got = &e;
    if (o.got) o.ok = meets_expectation(c, *o.got, o.why);
    else o.why = "not evaluated";
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace headroom::eval
