#pragma once
// A model configuration: one OpenAI-compatible endpoint, one model and the settings it is asked
// with. A MODELS.toml file holds several (docs/generate.md, "The configuration file"); keys are
// named by environment variable, never written in the file.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace headroom::generate {

struct model_config {
  std::string name;  // the runs folder's name and the evaluation's source: [a-zA-Z0-9._-]+
  std::string base_url;  // up to and including /v1: http://localhost:8000/v1
  std::string model;  // the `model` field of each request
  std::string api_key_env;  // the variable that holds the key; empty: no Authorization header
  std::optional<double> temperature;
  std::optional<double> top_p;
  int max_tokens = 8192;
  // The request field that carries max_tokens: OpenAI's reasoning models take only
  // "max_completion_tokens"; vLLM, SGLang and most others take "max_tokens".
  std::string max_tokens_field = "max_tokens";
  int samples = 1;  // candidates per problem
  int turns = 1;  // attempts per sample; each further one is shown the last one's evaluation
  int concurrency = 4;  // requests of this configuration in flight at once
  bool stream = false;  // server-sent events instead of one JSON answer
  double timeout_s = 600;  // one request, from connect to the last byte
  int max_retries = 5;  // after the first attempt, on 429, 5xx, timeouts and malformed answers
  std::optional<std::string> reasoning_effort;  // sent as `reasoning_effort` when set
  double price_in_per_mtok = 0;  // currency per million prompt tokens; 0: cost not counted
  double price_out_per_mtok = 0;  // per million completion tokens
  std::string system_prompt;  // path of a template replacing the built-in system prompt; empty: built-in
  std::string user_template;  // path of a template replacing the built-in first-turn prompt
  std::string feedback_template;  // path of a template replacing the built-in further-turn prompt
  bool example = true;  // the worked example in the first turn's prompt
};

// Reads MODELS.toml: a [[model]] table per configuration, top-level keys giving defaults for all
// (docs/generate.md). Throws input_error naming the file, the configuration and the key for an
// unknown key, a missing name/base_url/model, a value out of range or a name used twice. Relative
// template paths are taken from the file's folder.
std::vector<model_config> load_models(const std::filesystem::path& path);
std::vector<model_config> parse_models(std::string_view text, const std::string& origin,
                                       const std::filesystem::path& base_dir);

}  // namespace headroom::generate
