#pragma once
// One request to a model endpoint, asked again while that is worth it (retry.hpp): every attempt is
// reported as it ends, for the log and the progress line.
#include <atomic>
#include <functional>
#include <optional>
#include <random>
#include <string>

#include "headroom/generate/chat.hpp"
#include "headroom/generate/model_config.hpp"
#include "headroom/generate/retry.hpp"

namespace headroom::generate {

struct attempt_report {
  int attempt = 1;
  long status = 0;
  double latency_s = 0;
  std::optional<chat_answer> answer;  // set on success
  std::string error;  // set on failure: what went wrong, for people
  std::optional<double> retry_in_s;  // set when another attempt follows
};

struct ask_result {
  std::optional<chat_answer> answer;
  std::string error;  // the last attempt's, when no answer came
  // The endpoint itself is at fault (unreachable after every retry, the key refused, no such path or
  // model): its configuration's other requests would fail the same way.
  bool endpoint_failed = false;
};

// POSTs `body` to config.base_url + "/chat/completions" with the key (when the configuration names
// one) as a bearer token. `stop` set by another thread ends the waits between attempts early.
ask_result ask(const model_config& config, const std::string& api_key, const std::string& body,
               const retry_policy& policy, std::mt19937_64& rng, const std::atomic<bool>& stop,
               const std::function<void(const attempt_report&)>& on_attempt);

}  // namespace headroom::generate
