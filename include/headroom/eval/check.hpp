#pragma once
// The correctness check, run by the trusted parent in float64 (docs/eval.md, "Correctness").
// Scale-invariant: a normwise relative error plus a per-element mixed tolerance whose absolute part
// is scaled by the reference's root-mean-square, with thresholds chosen by the reference dtype.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/eval/tensor.hpp"
#include "headroom/eval/verdict.hpp"

namespace headroom::eval {

inline constexpr int checker_version = 1;

struct thresholds {
  double normwise;  // ||c - r||_2 / ||r||_2 must not exceed this
  double rtol;      // per element: |c - r| <= rtol * |r| + atol_rel * rms(r)
  double atol_rel;
};
// Exact types (integers, bool) return all zeros: every element must be equal.
thresholds thresholds_for(dtype reference_type);

struct mismatch_example {
  std::int64_t index;  // flat row-major index
  double expected;
  double got;
};

struct tensor_check {
  bool pass = false;
  std::vector<reason> reasons;  // empty when pass
  double normwise_error = 0;    // ||c - r|| / ||r|| (|| c || when r is all zeros)
  double max_abs_error = 0;
  double reference_rms = 0;
  std::int64_t elements = 0;
  std::int64_t mismatched = 0;  // elements outside the per-element tolerance
  std::int64_t nonfinite = 0;   // non-finite in the candidate where the reference is finite
  std::vector<mismatch_example> first_mismatches;  // at most 5
};

// Shape and dtype must match exactly; NaN/Inf where the reference is finite fail (a non-finite
// reference element must be matched by the same class: NaN, +inf, -inf). Elements non-finite in
// the reference are left out of the norms, those non-finite only in the candidate out of the
// error's. An all-zero reference leaves a per-element tolerance of 0: every element must then be
// exactly 0. Reason details name no output index (the caller prefixes "output k: "). A malformed
// tensor (bytes that do not match the shape) is input_error.
// `threads` share the passes over the elements (0: the machine's cores, at most 16). The result
// does not depend on it: the elements are cut into fixed chunks whose sums, counts and first
// mismatches are combined in index order.
tensor_check compare(const tensor& reference, const tensor& candidate, unsigned threads = 0);

// Elements the candidate never wrote: the same call made twice on the same inputs, once with every
// fresh allocation filled with byte `poison_a` and once with `poison_b`; an element whose bytes are
// all `poison_a` in the first output and all `poison_b` in the second was never written. The two
// outputs must have the same dtype and shape (input_error otherwise: compare each with the
// reference first).
std::int64_t count_unwritten(const tensor& with_poison_a, std::byte poison_a, const tensor& with_poison_b,
                             std::byte poison_b, unsigned threads = 0);
// The same without keeping the first output whole: one bit per element of it, set where the element
// is all `poison_a` (an output of gigabytes is marked, compared and let go before the second call's
// arrives; docs/eval.md, "Memory").
struct poison_marks {
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint64_t> bits;  // 64 elements a word
};
poison_marks mark_poisoned(const tensor& with_poison_a, std::byte poison_a, unsigned threads = 0);
std::int64_t count_unwritten(const poison_marks& first, const tensor& with_poison_b, std::byte poison_b,
                             unsigned threads = 0);

// Whether every element is finite (integer and bool tensors always are).
bool all_finite(const tensor& t);

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
