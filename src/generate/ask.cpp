#include "headroom/generate/ask.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "headroom/generate/http_client.hpp"

namespace headroom::generate {

namespace {

void wait(double seconds, const std::atomic<bool>& stop) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(seconds));
  // In slices, so that a stop is seen within 50 ms.
  while (!stop.load()) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(50), left));
  }
}

}  // namespace

ask_result ask(const model_config& config, const std::string& api_key, const std::string& body,
               const retry_policy& policy, std::mt19937_64& rng, const std::atomic<bool>& stop,
               const std::function<void(const attempt_report&)>& on_attempt) {
  http_request request;
  request.url = config.base_url + "/chat/completions";
  request.headers = {"Content-Type: application/json", "Accept: application/json"};
  if (config.stream) request.headers.back() = "Accept: text/event-stream";
  if (!api_key.empty()) request.headers.push_back("Authorization: Bearer " + api_key);
  request.body = body;
  request.timeout_s = config.timeout_s;
  request.connect_timeout_s = std::min(30.0, config.timeout_s);
  ask_result result;
  for (int attempt = 1;; ++attempt) {
    attempt_report r;
    r.attempt = attempt;
    const auto start = std::chrono::steady_clock::now();
    const http_response response = http_post(request);
    r.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.status = response.status;
    bool retry = true;
    bool endpoint_fault = false;
    switch (response.failure) {
      case transport_failure::none:
        break;
      case transport_failure::unreachable:
        r.error = fmt::format("cannot reach {}: {}", request.url, response.error);
        endpoint_fault = true;
        break;
      case transport_failure::timeout:
        r.error = fmt::format("no whole answer within the timeout of {} s ({})", config.timeout_s, response.error);
        break;
      case transport_failure::cut_short:
        r.error = fmt::format("the connection ended before the answer did ({})", response.error);
        break;
      case transport_failure::other:
        r.error = fmt::format("the request failed: {}", response.error);
        break;
    }
    if (response.failure == transport_failure::none) {
      if (response.status == 200) {
        chat_parse parsed = config.stream ? parse_chat_stream(response.body) : parse_chat_answer(response.body);
        if (parsed.answer) {
          r.answer = std::move(parsed.answer);
        } else {
          r.error = parsed.error;  // a malformed answer: a proxy's error page, a server cut mid-body
        }
      } else {
        const std::string message = error_message(response.body);
        if (response.status == 401 || response.status == 403) {
          r.error = fmt::format(
              "HTTP {}: the endpoint refused the key{}: {}", response.status,
              config.api_key_env.empty() ? " (api_key_env names none)" : fmt::format(" in ${}", config.api_key_env),
              message);
          endpoint_fault = true;
        } else if (response.status == 404) {
          r.error = fmt::format("HTTP 404 from {} (is base_url right, up to /v1, and is model '{}' served?): {}",
                                request.url, config.model, message);
          endpoint_fault = true;
        } else {
          r.error = fmt::format("HTTP {}: {}", response.status, message);
        }
        retry = retryable_status(response.status);
      }
    }
    if (r.answer) {
      on_attempt(r);
      result.answer = std::move(r.answer);
      return result;
    }
    if (!retry || attempt > policy.max_retries || stop.load()) {
      on_attempt(r);
      result.error = r.error;
      result.endpoint_failed = endpoint_fault;
      return result;
    }
    r.retry_in_s = retry_delay_s(policy, attempt, response.retry_after_s, rng);
    on_attempt(r);
    wait(*r.retry_in_s, stop);
  }
}

}  // namespace headroom::generate
