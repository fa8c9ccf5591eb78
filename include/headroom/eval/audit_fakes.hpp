#pragma once
// The discrimination audit's fakes and KernelBench's legacy check (docs/eval.md, "Discrimination
// audit"): what a checker must reject, and the check that accepts some of it.
#include <optional>
#include <string_view>
#include <vector>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval {

// KernelBench's check: torch.allclose(reference, candidate, atol, rtol), i.e. every element
// |r - c| <= atol + rtol * |c|, NaN never equal; shapes must match.
bool legacy_allclose(const tensor& reference, const tensor& candidate, double atol, double rtol);

// The audit's fake outputs (docs/eval.md, "Discrimination audit"), shaped and typed like `reference`.
tensor zeros_like(const tensor& reference);
tensor constant_like(const tensor& reference, double value);
tensor mean_like(const tensor& reference);  // every element the reference's mean
// The first input with as many elements as the reference, converted to the reference's dtype and
// shape; nullopt when no input has that many elements.
std::optional<tensor> passthrough_like(const tensor& reference, const std::vector<tensor>& inputs);
// The fake `name` (zeros, constant (1), mean, passthrough) written into `out`, whose buffer is
// reused: the audit forms four fakes for every output of every trial, and a fresh buffer of
// gigabytes for each costs more than comparing it. False when it cannot be formed (passthrough
// without an input of the output's element count).
bool form_fake(std::string_view name, const tensor& reference, const std::vector<tensor>& inputs, tensor& out);

}  // namespace headroom::eval
