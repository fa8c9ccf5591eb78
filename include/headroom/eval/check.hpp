#pragma once
// The correctness check, run by the trusted parent in float64 (docs/eval.md, "Correctness").
// Scale-invariant: a normwise relative error plus a per-element mixed tolerance whose absolute part
// is scaled by the reference's root-mean-square, with thresholds chosen by the reference dtype.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "headroom/eval/tensor.hpp"
#include "headroom/record/verdict.hpp"

namespace headroom::eval {

// The version of the judge that gives a verdict, stored with it (docs/eval-results.md, "Identity and versions"): a
// newer one adds rows beside the older ones, and `headroom reverify` judges stored candidates again.
// 2: degenerate problems flagged, outputs the candidate keeps judged on their values, the
// speed-of-light floor from the bytes a kernel must move (on the CPU too), torch_fallback on the
// reference's operand sizes.
// 3: the GPU proved idle before the reference or a baseline is timed, and a candidate whose frozen
// processes left work running there fails (gpu_left_busy); the timed calls picked to check a timing
// answer come from those not sent back whole, and every call run again has its sketch compared.
inline constexpr int checker_version = 3;

struct thresholds {
  double normwise;  // ||c - r||_2 / ||r||_2 must not exceed this
  double rtol;  // per element: |c - r| <= rtol * |r| + atol_rel * rms(r)
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
  std::vector<record::reason> reasons;  // empty when pass
  double normwise_error = 0;  // ||c - r|| / ||r|| (|| c || when r is all zeros)
  double max_abs_error = 0;
  double reference_rms = 0;
  std::int64_t elements = 0;
  std::int64_t mismatched = 0;  // elements outside the per-element tolerance
  std::int64_t nonfinite = 0;  // non-finite in the candidate where the reference is finite
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

// Whether every element is finite (integer and bool tensors always are).
bool all_finite(const tensor& t);

}  // namespace headroom::eval
