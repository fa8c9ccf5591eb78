#pragma once
// PyTorch's Python functions that switch its RecordFunction off: _enable_record_function (on the
// calling thread) and _clear_callbacks (every callback, the operator record's among them). Once the
// C++ record is in use, every module's binding of them is replaced by a function of the worker's
// that obeys nothing and notes the call (docs/eval.md, "Verdicts"). Part of the Python gateway.
#include <string>
#include <vector>

#include "worker/python_ref.hpp"

namespace headroom::worker {

// Replaces each function of the list `originals` wherever a module holds it, through the driver's
// `replace_everywhere(old, new)`. Returns false when Python raised (the error is left pending).
bool take_record_switches(_object* originals, _object* replace_everywhere);

// The switches called since, by their qualified names, each once, in the order first called.
const std::vector<std::string>& record_switch_calls();

}  // namespace headroom::worker
