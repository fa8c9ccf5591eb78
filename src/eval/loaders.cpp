// A job's texts (loaders.hpp): read from files into specs, and stored in the results store.
#include "headroom/eval/loaders.hpp"

#include <map>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/read_file.hpp"
#include "headroom/util/sha256.hpp"

namespace headroom::eval {

namespace {

std::string read_file(const std::filesystem::path& p) {
  auto text = util::read_file(p);
  if (!text) throw input_error(fmt::format("cannot read {}", p.string()));
  return std::move(*text);
}

// The floor a problem declares beside its file: `<stem>.toml` with [formulas] compulsory_bytes (and
// the [variables] it names), the metadata suites/dlrm-bench keeps. None without that file or key.
std::optional<declared_floor> read_declared_floor(const std::filesystem::path& problem) {
  std::filesystem::path file = problem;
  file.replace_extension(".toml");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  toml::table doc;
  try {
    doc = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw input_error(fmt::format("{}: {}", file.string(), e.description()));
  }
  std::optional<std::string> formula = doc["formulas"]["compulsory_bytes"].value<std::string>();
  if (!formula) return std::nullopt;
  declared_floor d{file, *formula, "{"};
  if (const toml::table* vars = doc["variables"].as_table())
    for (const auto& [name, value] : *vars) {
      std::optional<std::string> text = value.value<std::string>();
      if (!text) throw input_error(fmt::format("{}: variable {} is not a string", file.string(), name.str()));
      d.variables_json += fmt::format("{}{}:{}", d.variables_json.size() > 1 ? "," : "",
                                      util::json_string(std::string(name.str())), util::json_string(*text));
    }
  d.variables_json += "}";
  return d;
}

}  // namespace

problem_spec load_problem(const std::filesystem::path& path) {
  problem_spec p;
  p.path = path;
  p.text = read_file(path);
  p.hash = util::sha256_hex(p.text);
  p.id = path.parent_path().filename().string() + "/" + path.stem().string();
  p.floor = read_declared_floor(path);
  return p;
}

candidate_spec load_candidate(const std::filesystem::path& path, const std::string& source) {
  candidate_spec c;
  c.path = path;
  c.text = read_file(path);
  c.hash = util::sha256_hex(c.text);
  c.source = source;
  return c;
}

void put_texts(store::results_store& store, const std::vector<const eval_job*>& jobs) {
  std::map<std::string, const problem_spec*> problems;
  std::map<std::string, const candidate_spec*> candidates;
  for (const eval_job* j : jobs) {
    problems.emplace(j->problem.hash, &j->problem);
    candidates.emplace(j->candidate.hash, &j->candidate);
  }
  for (const auto& [hash, p] : problems) store.put_problem({p->id, hash, p->path.string(), p->text});
  for (const auto& [hash, c] : candidates) store.put_candidate({hash, c->source, c->path.string(), c->text});
}

}  // namespace headroom::eval
