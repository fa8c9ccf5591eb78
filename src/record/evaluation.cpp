#include "headroom/record/evaluation.hpp"

#include <algorithm>

namespace headroom::record {

bool verified(const evaluation& e) {
  if (e.result != verdict::correct || !e.speedup) return false;
  return std::none_of(e.reasons.begin(), e.reasons.end(), [](const reason& r) { return disqualifies_speedup(r.code); });
}

}  // namespace headroom::record
