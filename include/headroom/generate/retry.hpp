#pragma once
// When to ask again, and after how long. Rate limits (429), server errors (5xx, 408), timeouts, cut
// connections and malformed answers are worth another attempt; a refused key (401, 403), a wrong
// path or model (404) and other 4xx answers are not.
#include <optional>
#include <random>

namespace headroom::generate {

struct retry_policy {
  int max_retries = 5;
  double base_s = 1;  // the first wait; it doubles with each attempt
  double cap_s = 60;  // the longest wait the backoff itself picks
  double retry_after_cap_s = 600;  // a server's Retry-After is honoured up to this
};

bool retryable_status(long status);

// The wait before attempt `attempt` + 1 (attempt counts from 1): the server's Retry-After when it
// sent one (capped at retry_after_cap_s), else exponential backoff with full jitter in
// [base * 2^(attempt-1) / 2, base * 2^(attempt-1)], capped at cap_s.
double retry_delay_s(const retry_policy& p, int attempt, std::optional<double> retry_after_s, std::mt19937_64& rng);

}  // namespace headroom::generate
