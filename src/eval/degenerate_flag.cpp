#include "degenerate_flag.hpp"

#include <algorithm>

namespace headroom::eval {

void flag_degenerate(record::evaluation& e, const audit_result& audit) {
  if (audit.degenerate.empty() || e.result == record::verdict::reference_error) return;
  const bool flagged = std::any_of(e.reasons.begin(), e.reasons.end(),
                                   [](const record::reason& r) { return r.code == "degenerate_problem"; });
  if (!flagged)
    e.reasons.push_back({"degenerate_problem", "the problem cannot tell a kernel from a trivial output (" +
                                                   audit.degenerate + "); a speedup on it measures nothing"});
}

}  // namespace headroom::eval
