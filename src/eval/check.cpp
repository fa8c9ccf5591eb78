#include "headroom/eval/check.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "headroom/util/parallel.hpp"
#include "eval/compensated_sum.hpp"
#include "eval/tensor_access.hpp"
#include "headroom/util/error.hpp"

namespace headroom::eval {
namespace {

using detail::block_size;
using detail::compensated_sum;

constexpr std::size_t max_examples = 5;

enum class value_class { finite, nan, positive_infinity, negative_infinity };

value_class classify(double x) {
  if (std::isnan(x)) return value_class::nan;
  if (std::isinf(x)) return x > 0 ? value_class::positive_infinity : value_class::negative_infinity;
  return value_class::finite;
}

void note(std::vector<mismatch_example>& examples, std::size_t i, double expected, double got) {
  if (examples.size() < max_examples) examples.push_back({std::int64_t(i), expected, got});
}

// A flat row-major index as the multi-index a person would type into the tensor.
std::string format_index(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return format_shape(index);
}

// ||x||_2 of a sequence that may overflow or underflow when squared (float64 values beyond
// ~1e154 or below ~1e-154): squares the values scaled by a power of two near 1 / max|x|.
template <class Value>
double scaled_norm(std::size_t n, double max_abs, Value&& value) {
  if (max_abs == 0) return 0;
  if (!std::isfinite(max_abs)) return max_abs;  // c - r itself overflowed: the error is beyond measure
  const double scale = std::ldexp(1.0, -std::ilogb(max_abs));
  compensated_sum total;
  for (std::size_t start = 0; start < n; start += block_size) {
    const std::size_t end = std::min(n, start + block_size);
    double partial = 0;
    for (std::size_t i = start; i < end; ++i) {
      const double v = value(i) * scale;
      partial += v * v;
    }
    total.add(partial);
  }
  return std::sqrt(total.value()) / scale;
}

bool needs_rescaling(double sum_of_squares, double max_abs) {
  return !std::isfinite(sum_of_squares) || max_abs > 1e150 || (max_abs > 0 && max_abs < 1e-150);
}

// Appends `from` to `to` up to max_examples: chunks are taken in index order, so `to` keeps the
// earliest examples of all chunks.
void take_examples(std::vector<mismatch_example>& to, const std::vector<mismatch_example>& from) {
  for (const mismatch_example& e : from) note(to, std::size_t(e.index), e.expected, e.got);
}

bool by_index(const mismatch_example& a, const mismatch_example& b) { return a.index < b.index; }

// What the first pass found in one chunk of elements; the sums are compensated over its blocks.
struct norms_partial {
  double r_squares = 0;
  double d_squares = 0;
  double max_r = 0;
  double max_d = 0;
  std::int64_t finite_reference = 0;
  std::int64_t nonfinite = 0;  // non-finite in the candidate where the reference is finite
  std::int64_t class_mismatches = 0;  // non-finite reference matched by another class
  std::vector<mismatch_example> class_examples;
  std::vector<mismatch_example> nonfinite_examples;
};

// Pass 1 over [begin, end): sums of squares (reference over its finite elements, difference over
// elements finite in both) and the non-finite pattern. A non-finite reference element must be
// matched by the same class in the candidate and is left out of the norms.
template <dtype T>
norms_partial norms_of_chunk(const std::byte* r_bytes, const std::byte* c_bytes, std::size_t begin, std::size_t end) {
  norms_partial p;
  compensated_sum r_squares;
  compensated_sum d_squares;
  for (std::size_t start = begin; start < end; start += block_size) {
    const std::size_t stop = std::min(end, start + block_size);
    // Fast path: four independent chains and no branch (a single running sum is bound by the
    // latency of the add). Any Inf or NaN, or a float64 square that overflows, makes the block's
    // sums non-finite; such a block is redone element by element below.
    double r_lanes[4] = {}, d_lanes[4] = {}, max_r_lanes[4] = {}, max_d_lanes[4] = {};
    std::size_t i = start;
    for (; i + 4 <= stop; i += 4) {
      for (std::size_t lane = 0; lane < 4; ++lane) {
        const double r = detail::load<T>(r_bytes, i + lane);
        const double d = detail::load<T>(c_bytes, i + lane) - r;
        r_lanes[lane] += r * r;
        d_lanes[lane] += d * d;
        max_r_lanes[lane] = std::max(max_r_lanes[lane], std::abs(r));
        max_d_lanes[lane] = std::max(max_d_lanes[lane], std::abs(d));
      }
    }
    for (; i < stop; ++i) {
      const double r = detail::load<T>(r_bytes, i);
      const double d = detail::load<T>(c_bytes, i) - r;
      r_lanes[0] += r * r;
      d_lanes[0] += d * d;
      max_r_lanes[0] = std::max(max_r_lanes[0], std::abs(r));
      max_d_lanes[0] = std::max(max_d_lanes[0], std::abs(d));
    }
    double r_partial = (r_lanes[0] + r_lanes[1]) + (r_lanes[2] + r_lanes[3]);
    double d_partial = (d_lanes[0] + d_lanes[1]) + (d_lanes[2] + d_lanes[3]);
    std::size_t block_finite = stop - start;
    if (std::isfinite(r_partial) && std::isfinite(d_partial)) [[likely]] {
      p.max_r = std::max({p.max_r, max_r_lanes[0], max_r_lanes[1], max_r_lanes[2], max_r_lanes[3]});
      p.max_d = std::max({p.max_d, max_d_lanes[0], max_d_lanes[1], max_d_lanes[2], max_d_lanes[3]});
    } else {
      r_partial = 0;
      d_partial = 0;
      block_finite = 0;
      for (std::size_t k = start; k < stop; ++k) {
        const double r = detail::load<T>(r_bytes, k);
        const double c = detail::load<T>(c_bytes, k);
        if (std::isfinite(r) && std::isfinite(c)) {
          const double d = c - r;
          r_partial += r * r;
          d_partial += d * d;
          p.max_r = std::max(p.max_r, std::abs(r));
          p.max_d = std::max(p.max_d, std::abs(d));
          ++block_finite;
        } else if (std::isfinite(r)) {  // NaN or Inf where the reference is finite
          r_partial += r * r;
          p.max_r = std::max(p.max_r, std::abs(r));
          ++block_finite;
          ++p.nonfinite;
          note(p.nonfinite_examples, k, r, c);
        } else if (classify(r) != classify(c)) {
          ++p.class_mismatches;
          note(p.class_examples, k, r, c);
        }
      }
    }
    r_squares.add(r_partial);
    d_squares.add(d_partial);
    p.finite_reference += std::int64_t(block_finite);
  }
  p.r_squares = r_squares.value();
  p.d_squares = d_squares.value();
  return p;
}

// Elements outside the per-element tolerance in one chunk, once rms(r) is known.
struct tolerance_partial {
  std::int64_t outside = 0;
  std::vector<mismatch_example> examples;
};

template <dtype T>
void compare_floating(const tensor& reference, const tensor& candidate, const thresholds& limits, unsigned threads,
                      tensor_check& out, std::vector<mismatch_example>& tolerance_examples,
                      std::vector<mismatch_example>& nonfinite_examples) {
  const std::byte* r_bytes = reference.bytes.data();
  const std::byte* c_bytes = candidate.bytes.data();
  const std::size_t n = std::size_t(out.elements);

  std::vector<norms_partial> norms(util::chunk_count(n));
  util::for_each_range(n, threads, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    norms[chunk] = norms_of_chunk<T>(r_bytes, c_bytes, begin, end);
  });
  compensated_sum r_squares;
  compensated_sum d_squares;
  double max_r = 0;
  double max_d = 0;
  std::int64_t finite_reference = 0;
  std::vector<mismatch_example> class_examples;
  for (const norms_partial& p : norms) {
    r_squares.add(p.r_squares);
    d_squares.add(p.d_squares);
    max_r = std::max(max_r, p.max_r);
    max_d = std::max(max_d, p.max_d);
    finite_reference += p.finite_reference;
    out.nonfinite += p.nonfinite;
    out.mismatched += p.class_mismatches;
    take_examples(class_examples, p.class_examples);
    take_examples(nonfinite_examples, p.nonfinite_examples);
  }
  double reference_norm = std::sqrt(r_squares.value());
  double difference_norm = std::sqrt(d_squares.value());
  if (needs_rescaling(r_squares.value(), max_r)) {
    reference_norm = scaled_norm(n, max_r, [&](std::size_t i) {
      const double r = detail::load<T>(r_bytes, i);
      return std::isfinite(r) ? r : 0.0;
    });
  }
  if (needs_rescaling(d_squares.value(), max_d)) {
    difference_norm = scaled_norm(n, max_d, [&](std::size_t i) {
      const double r = detail::load<T>(r_bytes, i);
      const double c = detail::load<T>(c_bytes, i);
      return std::isfinite(r) && std::isfinite(c) ? c - r : 0.0;
    });
  }

  out.max_abs_error = max_d;
  out.reference_rms = finite_reference > 0 ? reference_norm / std::sqrt(double(finite_reference)) : 0.0;
  // An all-zero reference has no scale: the normwise error is then the candidate's own norm, and
  // the per-element tolerance below is 0, so every element must be exactly zero.
  out.normwise_error = reference_norm > 0 ? difference_norm / reference_norm : difference_norm;

  // Pass 2: the per-element mixed tolerance, now that rms(r) is known.
  const double absolute = limits.atol_rel * out.reference_rms;
  const double rtol = limits.rtol;
  std::vector<tolerance_partial> tolerance(norms.size());
  util::for_each_range(n, threads, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    tolerance_partial& p = tolerance[chunk];
    std::int64_t outside = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const double r = detail::load<T>(r_bytes, i);
      const double c = detail::load<T>(c_bytes, i);
      const bool both_finite = std::isfinite(r) && std::isfinite(c);
      const bool bad = both_finite && std::abs(c - r) > rtol * std::abs(r) + absolute;
      outside += bad;
      if (bad) [[unlikely]] {
        note(p.examples, i, r, c);
      }
    }
    p.outside = outside;
  });
  std::vector<mismatch_example> outside_examples;
  for (const tolerance_partial& p : tolerance) {
    out.mismatched += p.outside;
    take_examples(outside_examples, p.examples);
  }
  // The earliest of both kinds: class mismatches (pass 1) and elements outside the tolerance.
  tolerance_examples = std::move(class_examples);
  tolerance_examples.insert(tolerance_examples.end(), outside_examples.begin(), outside_examples.end());
  std::sort(tolerance_examples.begin(), tolerance_examples.end(), by_index);
}

// One chunk of an exact comparison.
struct exact_partial {
  double r_squares = 0;
  double d_squares = 0;
  double max_abs_error = 0;
  std::int64_t mismatched = 0;
  std::vector<mismatch_example> examples;
  std::string first_values;  // of the chunk's first mismatch, in the dtype's own digits
};

template <dtype T>
void compare_exact(const tensor& reference, const tensor& candidate, unsigned threads, tensor_check& out,
                   std::vector<mismatch_example>& examples, std::string& first_values) {
  const std::byte* r_bytes = reference.bytes.data();
  const std::byte* c_bytes = candidate.bytes.data();
  const std::size_t n = std::size_t(out.elements);
  std::vector<exact_partial> partials(util::chunk_count(n));
  util::for_each_range(n, threads, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    exact_partial& p = partials[chunk];
    compensated_sum r_squares;
    compensated_sum d_squares;
    for (std::size_t start = begin; start < end; start += block_size) {
      const std::size_t stop = std::min(end, start + block_size);
      double r_partial = 0;
      double d_partial = 0;
      for (std::size_t i = start; i < stop; ++i) {
        auto r = detail::load_raw<T>(r_bytes, i);
        auto c = detail::load_raw<T>(c_bytes, i);
        if constexpr (T == dtype::boolean) {
          r = r != 0;
          c = c != 0;
        }
        const double rd = double(r);
        const double d = double(c) - rd;  // informative only: int64 beyond 2^53 is compared exactly below
        r_partial += rd * rd;
        d_partial += d * d;
        if (r != c) [[unlikely]] {
          if (p.mismatched == 0) p.first_values = fmt::format("expected {}, got {}", +r, +c);
          ++p.mismatched;
          p.max_abs_error = std::max(p.max_abs_error, std::abs(d));
          note(p.examples, i, rd, double(c));
        }
      }
      r_squares.add(r_partial);
      d_squares.add(d_partial);
    }
    p.r_squares = r_squares.value();
    p.d_squares = d_squares.value();
  });
  compensated_sum r_squares;
  compensated_sum d_squares;
  for (const exact_partial& p : partials) {
    r_squares.add(p.r_squares);
    d_squares.add(p.d_squares);
    if (out.mismatched == 0 && p.mismatched > 0) first_values = p.first_values;
    out.mismatched += p.mismatched;
    out.max_abs_error = std::max(out.max_abs_error, p.max_abs_error);
    take_examples(examples, p.examples);
  }
  const double r_norm = std::sqrt(r_squares.value());
  const double d_norm = std::sqrt(d_squares.value());
  out.reference_rms = n > 0 ? r_norm / std::sqrt(double(n)) : 0.0;
  out.normwise_error = r_norm > 0 ? d_norm / r_norm : d_norm;
}

std::string format_example(const mismatch_example& e, const std::vector<std::int64_t>& shape) {
  return fmt::format("first at {}: expected {:.6g}, got {:.6g}", format_index(e.index, shape), e.expected, e.got);
}

}  // namespace

thresholds thresholds_for(dtype reference_type) {
  switch (reference_type) {
    case dtype::f64:
      return {1e-10, 1e-8, 1e-10};
    case dtype::f32:
      return {1e-4, 1e-3, 1e-4};
    case dtype::f16:
      return {2e-3, 1e-2, 1e-3};
    case dtype::bf16:
      return {1e-2, 3e-2, 1e-2};
    default:
      return {0, 0, 0};
  }
}

tensor_check compare(const tensor& reference, const tensor& candidate, unsigned threads) {
  validate(reference, "reference output");
  validate(candidate, "candidate output");
  tensor_check out;
  out.elements = reference.numel();
  if (candidate.type != reference.type) {
    out.reasons.push_back(
        {"wrong_dtype", fmt::format("dtype {}, expected {}", dtype_name(candidate.type), dtype_name(reference.type))});
  }
  if (candidate.shape != reference.shape) {
    out.reasons.push_back({"wrong_shape", fmt::format("shape {}, expected {}", format_shape(candidate.shape),
                                                      format_shape(reference.shape))});
  }
  if (!out.reasons.empty()) return out;

  const thresholds limits = thresholds_for(reference.type);
  std::vector<mismatch_example> tolerance_examples;
  std::vector<mismatch_example> nonfinite_examples;
  if (is_floating(reference.type)) {
    detail::dispatch_dtype(reference.type, [&](auto t) {
      constexpr dtype type = decltype(t)::value;
      if constexpr (type == dtype::f64 || type == dtype::f32 || type == dtype::f16 || type == dtype::bf16) {
        compare_floating<type>(reference, candidate, limits, threads, out, tolerance_examples, nonfinite_examples);
      }
    });
    if (out.nonfinite > 0) {
      out.reasons.push_back(
          {"nan_inf", fmt::format("{} of {} elements NaN or Inf where the reference is finite; {}", out.nonfinite,
                                  out.elements, format_example(nonfinite_examples.front(), reference.shape))});
    }
    const bool normwise_fails = !(out.normwise_error <= limits.normwise);
    if (normwise_fails || out.mismatched > 0) {
      std::string detail =
          fmt::format("normwise error {:.1e} {} {:.0e}; {} of {} elements outside tolerance", out.normwise_error,
                      normwise_fails ? ">" : "<=", limits.normwise, out.mismatched, out.elements);
      if (!tolerance_examples.empty()) detail += "; " + format_example(tolerance_examples.front(), reference.shape);
      out.reasons.push_back({"mismatch", std::move(detail)});
    }
  } else {
    std::string first_values;
    detail::dispatch_dtype(reference.type, [&](auto t) {
      compare_exact<decltype(t)::value>(reference, candidate, threads, out, tolerance_examples, first_values);
    });
    if (out.mismatched > 0) {
      out.reasons.push_back(
          {"mismatch", fmt::format("{} of {} elements differ (exact dtype {}); first at {}: {}", out.mismatched,
                                   out.elements, dtype_name(reference.type),
                                   format_index(tolerance_examples.front().index, reference.shape), first_values)});
    }
  }

  // The earliest failing elements of either kind, in index order.
  out.first_mismatches = std::move(tolerance_examples);
  out.first_mismatches.insert(out.first_mismatches.end(), nonfinite_examples.begin(), nonfinite_examples.end());
  std::sort(out.first_mismatches.begin(), out.first_mismatches.end(), by_index);
  if (out.first_mismatches.size() > max_examples) out.first_mismatches.resize(max_examples);
  out.pass = out.reasons.empty();
  return out;
}

bool all_finite(const tensor& t) {
  validate(t, "tensor");
  if (!is_floating(t.type)) return true;
  std::atomic<bool> finite{true};
  detail::dispatch_dtype(t.type, [&](auto type) {
    util::for_each_range(std::size_t(t.numel()), 0, [&](std::size_t begin, std::size_t end, std::size_t) {
      if (!finite.load(std::memory_order_relaxed)) return;
      bool chunk_finite = true;  // no early exit inside a chunk: the loop stays branch-free
      for (std::size_t i = begin; i < end; ++i)
        chunk_finite &= std::isfinite(detail::load<decltype(type)::value>(t.bytes.data(), i));
      if (!chunk_finite) finite = false;
    });
  });
  return finite;
}

}  // namespace headroom::eval
