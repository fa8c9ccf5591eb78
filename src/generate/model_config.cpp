#include "headroom/generate/model_config.hpp"

#include <toml++/toml.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>

#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"

namespace headroom::generate {
namespace fs = std::filesystem;

namespace {

const std::set<std::string, std::less<>> known_keys = {"name",
                                                       "base_url",
                                                       "model",
                                                       "api_key_env",
                                                       "temperature",
                                                       "top_p",
                                                       "max_tokens",
                                                       "max_tokens_field",
                                                       "samples",
                                                       "turns",
                                                       "concurrency",
                                                       "stream",
                                                       "timeout_s",
                                                       "max_retries",
                                                       "reasoning_effort",
                                                       "price_in_per_mtok",
                                                       "price_out_per_mtok",
                                                       "system_prompt",
                                                       "user_template",
                                                       "feedback_template",
                                                       "example"};

// Reads one table's keys over `c` (the defaults, then a [[model]] entry).
class reader {
 public:
  reader(const std::string& origin, const std::string& where, const fs::path& base_dir)
      : origin_(origin), where_(where), base_dir_(base_dir) {}

  void apply(const toml::table& t, model_config& c, bool top_level) const {
    for (const auto& [k, v] : t) {
      if (top_level && k.str() == "model" && v.is_array_of_tables()) continue;
      if (!known_keys.contains(k.str()))
        fail(fmt::format(
            "unknown key '{}' (known: name, base_url, model, api_key_env, temperature, top_p, max_tokens, "
            "max_tokens_field, "
            "samples, turns, concurrency, stream, timeout_s, max_retries, reasoning_effort, "
            "price_in_per_mtok, price_out_per_mtok, system_prompt, user_template, feedback_template, example)",
            k.str()));
    }
    text(t, "name", c.name);
    text(t, "base_url", c.base_url);
    if (!top_level || !t["model"].is_array_of_tables()) text(t, "model", c.model);
    text(t, "api_key_env", c.api_key_env);
    if (t.contains("temperature")) c.temperature = number(t, "temperature", 0, 2);
    if (t.contains("top_p")) c.top_p = number(t, "top_p", 0, 1);
    integer(t, "max_tokens", c.max_tokens, 1, 10'000'000);
    text(t, "max_tokens_field", c.max_tokens_field);
    if (c.max_tokens_field != "max_tokens" && c.max_tokens_field != "max_completion_tokens")
      fail(fmt::format("max_tokens_field: \"{}\" is neither \"max_tokens\" nor \"max_completion_tokens\"",
                       c.max_tokens_field));
    integer(t, "samples", c.samples, 1, 10'000);
    integer(t, "turns", c.turns, 1, 100);
    integer(t, "concurrency", c.concurrency, 1, 1024);
    if (t.contains("stream")) {
      auto b = t["stream"].value<bool>();
      if (!b) fail("stream: expected true or false");
      c.stream = *b;
    }
    if (t.contains("example")) {
      auto b = t["example"].value<bool>();
      if (!b) fail("example: expected true or false");
      c.example = *b;
    }
    if (t.contains("timeout_s")) c.timeout_s = number(t, "timeout_s", 0.001, 86400);
    integer(t, "max_retries", c.max_retries, 0, 100);
    if (t.contains("reasoning_effort")) {
      std::string r;
      text(t, "reasoning_effort", r);
      c.reasoning_effort = r;
    }
    if (t.contains("price_in_per_mtok")) c.price_in_per_mtok = number(t, "price_in_per_mtok", 0, 1e6);
    if (t.contains("price_out_per_mtok")) c.price_out_per_mtok = number(t, "price_out_per_mtok", 0, 1e6);
    path(t, "system_prompt", c.system_prompt);
    path(t, "user_template", c.user_template);
    path(t, "feedback_template", c.feedback_template);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw input_error(fmt::format("{}: {}: {}", origin_, where_, what));
  }

 private:
  void text(const toml::table& t, std::string_view key, std::string& out) const {
    if (!t.contains(key)) return;
    auto s = t[key].value<std::string>();
    if (!s) fail(fmt::format("{}: expected a string", key));
    out = *s;
  }
  void path(const toml::table& t, std::string_view key, std::string& out) const {
    text(t, key, out);
    if (t.contains(key) && !out.empty() && fs::path(out).is_relative()) out = (base_dir_ / out).string();
  }
  double number(const toml::table& t, std::string_view key, double lo, double hi) const {
    auto d = t[key].value<double>();
    if (!d) fail(fmt::format("{}: expected a number", key));
    if (!(*d >= lo && *d <= hi)) fail(fmt::format("{}: {} is outside [{}, {}]", key, *d, lo, hi));
    return *d;
  }
  void integer(const toml::table& t, std::string_view key, int& out, int lo, int hi) const {
    if (!t.contains(key)) return;
    auto i = t[key].value<std::int64_t>();
    if (!i || !t[key].is_integer()) fail(fmt::format("{}: expected a whole number", key));
    if (*i < lo || *i > hi) fail(fmt::format("{}: {} is outside [{}, {}]", key, *i, lo, hi));
    out = static_cast<int>(*i);
  }

  std::string origin_, where_;
  fs::path base_dir_;
};

}  // namespace

std::vector<model_config> parse_models(std::string_view text, const std::string& origin, const fs::path& base_dir) {
  toml::table doc;
  try {
    doc = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw input_error(
        fmt::format("{}:{}:{}: {}", origin, e.source().begin.line, e.source().begin.column, e.description()));
  }
  model_config defaults;
  reader(origin, "top level", base_dir).apply(doc, defaults, true);
  if (!defaults.name.empty()) reader(origin, "top level", base_dir).fail("name belongs in a [[model]] table");
  const toml::array* models = doc["model"].as_array();
  if (!models || models->empty() || !models->is_array_of_tables())
    throw input_error(
        fmt::format("{}: no [[model]] tables: each configuration is one [[model]] with name, "
                    "base_url and model (docs/generate.md)",
                    origin));
  static const std::regex name_pattern("[A-Za-z0-9._-]+");
  std::vector<model_config> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < models->size(); ++i) {
    const toml::table& t = *models->get(i)->as_table();
    std::string where = fmt::format("[[model]] #{}", i + 1);
    if (auto n = t["name"].value<std::string>()) where = fmt::format("[[model]] '{}'", *n);
    reader r(origin, where, base_dir);
    model_config c = defaults;
    r.apply(t, c, false);
    if (c.name.empty()) r.fail("no name (it names the runs folder and the evaluation's source)");
    if (!std::regex_match(c.name, name_pattern) || c.name == "." || c.name == "..")
      r.fail("name: letters, digits, '.', '_' and '-' only (it is a folder's name)");
    if (c.name.find(".turn") != std::string::npos) r.fail("name: '.turn' is kept for the folders of later turns");
    if (c.base_url.empty()) r.fail("no base_url (such as http://localhost:8000/v1)");
    if (c.base_url.rfind("http://", 0) != 0 && c.base_url.rfind("https://", 0) != 0)
      r.fail(fmt::format("base_url: {} is not an http:// or https:// URL", c.base_url));
    while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
    if (c.model.empty()) r.fail("no model (the name the endpoint serves it under)");
    if (!names.insert(c.name).second) r.fail("name used by an earlier [[model]]");
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<model_config> load_models(const fs::path& path) {
  auto text = util::read_file(path);
  if (!text) throw input_error(fmt::format("{}: cannot read the model configurations", path.string()));
  return parse_models(*text, path.string(), path.parent_path());
}

}  // namespace headroom::generate
