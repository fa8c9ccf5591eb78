#include "headroom/generate/retry.hpp"

#include <algorithm>
#include <cmath>

namespace headroom::generate {

bool retryable_status(long status) { return status == 408 || status == 409 || status == 429 || status >= 500; }

double retry_delay_s(const retry_policy& p, int attempt, std::optional<double> retry_after_s, std::mt19937_64& rng) {
  if (retry_after_s) return std::clamp(*retry_after_s, 0.0, p.retry_after_cap_s);
  const double full = std::min(p.cap_s, p.base_s * std::pow(2.0, std::max(0, attempt - 1)));
  // Half fixed, half random: clients that failed together do not all come back together.
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return full * jitter(rng);
}

}  // namespace headroom::generate
