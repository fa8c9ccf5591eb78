// The discrimination audit's side of the checker (docs/eval.md, "Discrimination audit"): KernelBench's
// legacy allclose and the fake outputs that probe both checks.
#include "headroom/eval/audit_fakes.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/compensated_sum.hpp"
#include "eval/tensor_access.hpp"
#include "headroom/util/parallel.hpp"

namespace headroom::eval {
namespace {

using detail::block_size;
using detail::compensated_sum;

// Elements [begin, end) of `values` set to `element` (by value, so the compiler turns the loop
// into wide stores).
template <class Word>
void fill_elements(std::byte* values, Word element, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) std::memcpy(values + i * sizeof(Word), &element, sizeof(Word));
}

// Makes `out` a tensor of the reference's dtype and shape with every element `value` rounded to
// the dtype, in out's own buffer when it is large enough.
void fill_like(const tensor& reference, double value, tensor& out) {
  validate(reference, "reference");
  out.type = reference.type;
  out.shape = reference.shape;
  std::byte one[8] = {};
  detail::store_value(out.type, value, one, 0);
  const std::size_t size = dtype_size(out.type);
  const std::size_t n = std::size_t(reference.numel());
  out.bytes.resize(n * size);
  std::byte* values = out.bytes.data();
  std::uint8_t u8;
  std::uint16_t u16;
  std::uint32_t u32;
  std::uint64_t u64;
  std::memcpy(&u8, one, 1);
  std::memcpy(&u16, one, 2);
  std::memcpy(&u32, one, 4);
  std::memcpy(&u64, one, 8);
  util::for_each_range(n, 0, [&](std::size_t begin, std::size_t end, std::size_t) {
    switch (size) {
      case 1:
        return fill_elements(values, u8, begin, end);
      case 2:
        return fill_elements(values, u16, begin, end);
      case 4:
        return fill_elements(values, u32, begin, end);
      default:
        return fill_elements(values, u64, begin, end);
    }
  });
}

tensor filled_like(const tensor& reference, double value) {
  tensor t;
  fill_like(reference, value, t);
  return t;
}

// The mean of the reference's finite elements; for exact dtypes the nearest integer (not truncation).
double mean_of(const tensor& reference) {
  validate(reference, "reference");
  const std::size_t n = std::size_t(reference.numel());
  struct partial {
    double sum = 0;
    std::size_t finite = 0;
  };
  std::vector<partial> partials(util::chunk_count(n));
  detail::dispatch_dtype(reference.type, [&](auto t) {
    util::for_each_range(n, 0, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
      compensated_sum total;
      std::size_t finite = 0;
      for (std::size_t start = begin; start < end; start += block_size) {
        const std::size_t stop = std::min(end, start + block_size);
        double lanes[4] = {};  // independent chains, as in the comparison's first pass
        for (std::size_t i = start; i < stop; ++i) {
          const double v = detail::load<decltype(t)::value>(reference.bytes.data(), i);
          const bool ok = std::isfinite(v);
          lanes[i % 4] += ok ? v : 0.0;
          finite += ok;
        }
        total.add((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]));
      }
      partials[chunk] = {total.value(), finite};
    });
  });
  compensated_sum total;
  std::size_t finite = 0;
  for (const partial& p : partials) {
    total.add(p.sum);
    finite += p.finite;
  }
  const double mean = finite > 0 ? total.value() / double(finite) : 0.0;
  return is_floating(reference.type) ? mean : std::nearbyint(mean);
}

// The first input with the reference's element count, in the reference's dtype and shape, written
// into `out`; false when there is none.
bool passthrough_into(const tensor& reference, const std::vector<tensor>& inputs, tensor& out) {
  validate(reference, "reference");
  const std::int64_t n = reference.numel();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const tensor& input = inputs[k];
    validate(input, fmt::format("input {}", k));
    if (input.numel() != n) continue;
    out.type = reference.type;
    out.shape = reference.shape;
    out.bytes.resize(std::size_t(n) * dtype_size(out.type));
    std::byte* to = out.bytes.data();
    const std::byte* from = input.bytes.data();
    detail::dispatch_dtype(input.type, [&](auto it) {
      util::for_each_range(std::size_t(n), 0, [&](std::size_t begin, std::size_t end, std::size_t) {
        if (input.type == out.type) {  // same dtype: the exact bytes (int64 beyond 2^53 survives)
          const std::size_t size = dtype_size(out.type);
          std::memcpy(to + begin * size, from + begin * size, (end - begin) * size);
          return;
        }
        for (std::size_t i = begin; i < end; ++i)
          detail::store_value(out.type, detail::load<decltype(it)::value>(from, i), to, i);
      });
    });
    return true;
  }
  return false;
}

}  // namespace

bool legacy_allclose(const tensor& reference, const tensor& candidate, double atol, double rtol) {
  validate(reference, "reference output");
  validate(candidate, "candidate output");
  if (reference.shape != candidate.shape) return false;
  const std::size_t n = std::size_t(reference.numel());
  std::atomic<bool> close{true};  // a chunk that finds a far element stops the others early
  detail::dispatch_dtype(reference.type, [&](auto rt) {
    detail::dispatch_dtype(candidate.type, [&](auto ct) {
      util::for_each_range(n, 0, [&](std::size_t begin, std::size_t end, std::size_t) {
        if (!close.load(std::memory_order_relaxed)) return;
        for (std::size_t i = begin; i < end; ++i) {
          const double r = detail::load<decltype(rt)::value>(reference.bytes.data(), i);
          const double c = detail::load<decltype(ct)::value>(candidate.bytes.data(), i);
          const bool far =
              std::isnan(r) || std::isnan(c) ||  // equal_nan=False
              // equal infinities are close, as in torch.isclose
              (r != c && (!std::isfinite(r) || !std::isfinite(c) || !(std::abs(r - c) <= atol + rtol * std::abs(c))));
          if (far) {
            close = false;
            return;
          }
        }
      });
    });
  });
  return close;
}

tensor zeros_like(const tensor& reference) { return filled_like(reference, 0.0); }

tensor constant_like(const tensor& reference, double value) { return filled_like(reference, value); }

tensor mean_like(const tensor& reference) { return filled_like(reference, mean_of(reference)); }

std::optional<tensor> passthrough_like(const tensor& reference, const std::vector<tensor>& inputs) {
  tensor t;
  if (!passthrough_into(reference, inputs, t)) return std::nullopt;
  return t;
}

bool form_fake(std::string_view name, const tensor& reference, const std::vector<tensor>& inputs, tensor& out) {
  if (name == "zeros") fill_like(reference, 0.0, out);
  else if (name == "constant") fill_like(reference, 1.0, out);
  else if (name == "mean") fill_like(reference, mean_of(reference), out);
  else if (name == "passthrough") return passthrough_into(reference, inputs, out);
  else throw std::invalid_argument(fmt::format("no fake output named '{}'", name));
  return true;
}

}  // namespace headroom::eval
