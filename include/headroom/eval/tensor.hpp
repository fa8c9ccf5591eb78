#pragma once
// The tensor as the trusted parent sees it: a dtype, a shape and the contiguous row-major bytes,
// copied out of a worker. Vendor types (DLPack, PyObject*) stop in the worker; this is what crosses
// the process boundary and what the checker compares.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "headroom/util/dtype.hpp"

namespace headroom::eval {

// The element types live in util (the worker shares them); the checker names them as its own.
using headroom::dtype;
using headroom::dtype_name;
using headroom::dtype_size;
using headroom::is_floating;
using headroom::parse_dtype;

struct tensor {
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;  // numel() * dtype_size(type) bytes, row-major, contiguous

  std::int64_t numel() const;
  // Element i converted to double (bf16/f16 widened exactly; bool as 0/1).
  double element(std::size_t i) const;
};

// A tensor of `type` and `shape` whose elements are `values` rounded to `type` (bf16/f16 round to
// nearest even). For tests and the audit's fake outputs.
tensor make_tensor(dtype type, std::vector<std::int64_t> shape, const std::vector<double>& values);

// IEEE binary16 and bfloat16 bit patterns. Widening is exact. Narrowing rounds to nearest, ties to
// even, straight from double (no float in between, so no double rounding); beyond the largest finite
// value it gives inf, NaN stays NaN (quiet), subnormals are kept.
std::uint16_t float16_bits(double x);
double float16_value(std::uint16_t bits);
std::uint16_t bfloat16_bits(double x);
double bfloat16_value(std::uint16_t bits);

// n when the tensor is floating, n x n in its last two dimensions (n >= 2) and symmetric there, exactly,
// in every batch; else 0. The fresh inputs of timed calls keep such a tensor symmetric.
std::uint64_t symmetric_size(const tensor& t);

// Throws headroom::input_error when the bytes do not hold numel() elements of the dtype or a
// dimension is negative; `what` names the tensor in the message ("output 0 of the candidate").
void validate(const tensor& t, std::string_view what);

// A shape as messages write it: "[2, 3]".
std::string format_shape(const std::vector<std::int64_t>& shape);

}  // namespace headroom::eval
