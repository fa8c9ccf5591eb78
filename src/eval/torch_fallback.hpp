#pragma once
// The `torch_fallback` flag (docs/eval.md, "Verdicts"): a candidate whose calls dispatched every
// compute operator of the reference's forward has handed the work back to PyTorch.
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace headroom::eval {

// Whether an operator computes, as opposed to allocating, viewing, copying or filling memory (which
// every implementation does and none gives away). Names as the worker reports them: "relu",
// "_softmax", "my_ext::relu".
bool is_compute_operator(std::string_view name);

// reference: the operators of the reference's forward as its record saw them, outermost kernels
// only; candidate: every operator the candidate's calls dispatched, at any depth, on any thread.
// Returns the reference's compute operators, ", "-joined, when the candidate dispatched all of them
// (and there is at least one); nothing otherwise.
std::optional<std::string> torch_fallback(std::span<const std::string> reference,
                                          const std::set<std::string>& candidate);

}  // namespace headroom::eval
