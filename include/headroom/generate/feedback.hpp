#pragma once
// What a further turn shows the model of its last attempt: the evaluation's verdict, its reasons
// (the first mismatch with its index and values, unwritten outputs, ...), the build or run log's
// tail for a failure, and for a correct kernel its speedup and its share of the speed of light.
#include <optional>
#include <string>

#include "headroom/record/evaluation.hpp"

namespace headroom::generate {

struct feedback {
  std::string evaluation;  // {{evaluation}}: what the harness found
  std::string request;  // {{request}}: what to do about it
};

// `e` is the evaluation of the last turn's candidate; none when its answer held no code.
// The log's tail is cut to `log_chars` (its last characters: a compiler's first error is often
// repeated at the end, and the end is where Python's traceback names the failure).
feedback feedback_for(const std::optional<record::evaluation>& e, std::size_t log_chars = 4000);

}  // namespace headroom::generate
