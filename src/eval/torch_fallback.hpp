#pragma once
// The `torch_fallback` flag (docs/eval.md, "Verdicts"): a candidate whose calls dispatched every
// compute operator of the reference's forward, on operands of the same sizes, has handed the work
// back to PyTorch.
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace headroom::eval {

// Whether an operator computes, as opposed to allocating, viewing, copying or filling memory (which
// every implementation does and none gives away). Names as the worker reports them: "relu",
// "_softmax", "my_ext::relu"; a record's entry with its operands' sizes ("relu(2097152)") is judged
// by its name.
bool is_compute_operator(std::string_view name);

// reference: the operators of the reference's forward as its record saw them, outermost kernels
// only; candidate: every operator the candidate's calls dispatched, at any depth, on any thread. Each
// entry is an operator with the elements each of its tensor operands read, "div(2097152,512)"
// (src/worker/op_record.h). A fallback is every compute operator of the reference dispatched on
// operands of the reference's sizes: an algorithmic rewrite built of the same operators on other
// operands (a product of two sums for the sum of an outer product, a reassociated chain of products)
// is the candidate's own work. Returns the reference's compute operators, ", "-joined, when the
// candidate dispatched all of them (and there is at least one); nothing otherwise.
std::optional<std::string> torch_fallback(std::span<const std::string> reference,
                                          const std::set<std::string>& candidate);

}  // namespace headroom::eval
