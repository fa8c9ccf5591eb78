#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "headroom/eval/audit_fakes.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/unwritten.hpp"
#include "headroom/util/error.hpp"

namespace {

using namespace headroom::eval;
using headroom::record::reason;

// ---- realistic outputs, built the way the kernels under test would compute them ----

std::vector<double> uniform(std::size_t n, double lo, double hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

double round_f32(double x) { return double(static_cast<float>(x)); }
double round_bf16(double x) { return bfloat16_value(bfloat16_bits(x)); }
double round_f16(double x) { return float16_value(float16_bits(x)); }
// TF32: float's exponent, 10 explicit mantissa bits (what tensor cores read from float32 inputs).
double round_tf32(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);  // x = m * 2^e, 0.5 <= |m| < 1
  return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
}

template <class Round>
std::vector<double> rounded(std::vector<double> v, Round round) {
  for (auto& x : v) x = round(x);
  return v;
}

struct matmul_problem {
  int m = 64, k = 512, n = 64;
  std::vector<double> a, b;  // float32 inputs, held as doubles
};

matmul_problem make_matmul() {
  matmul_problem p;
  p.a = rounded(uniform(std::size_t(p.m) * p.k, -1, 1, 1), round_f32);
  p.b = rounded(uniform(std::size_t(p.k) * p.n, -1, 1, 2), round_f32);
  return p;
}

// C = A B with the sum in double: the ground truth a reference stores.
std::vector<double> matmul_exact(const matmul_problem& p, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> c(std::size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      double s = 0;
      for (int l = 0; l < p.k; ++l) s += a[std::size_t(i) * p.k + l] * b[std::size_t(l) * p.n + j];
      c[std::size_t(i) * p.n + j] = s;
    }
  }
  return c;
}

// C = A B accumulated in float in reverse order: what a differently-tiled float32 kernel gives.
std::vector<double> matmul_float_reversed(const matmul_problem& p, const std::vector<double>& a,
                                          const std::vector<double>& b) {
  std::vector<double> c(std::size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int l = p.k - 1; l >= 0; --l) {
        s += float(a[std::size_t(i) * p.k + l]) * float(b[std::size_t(l) * p.n + j]);
      }
      c[std::size_t(i) * p.n + j] = s;
    }
  }
  return c;
}

tensor f32(const std::vector<double>& v, std::vector<std::int64_t> shape) {
  return make_tensor(dtype::f32, std::move(shape), v);
}

bool has_reason(const tensor_check& c, const std::string& code) {
  return std::any_of(c.reasons.begin(), c.reasons.end(), [&](const reason& r) { return r.code == code; });
}

// softmax over rows of uniform [0, 1) inputs: every output is close to 1/cols, so small that
// KernelBench's atol of 1e-2 accepts anything near zero.
struct softmax_problem {
  int rows = 16, cols = 4096;
  std::vector<double> x;
  std::vector<double> y;
};

softmax_problem make_softmax() {
  softmax_problem p;
  p.x = rounded(uniform(std::size_t(p.rows) * p.cols, 0, 1, 3), round_f32);
  p.y.resize(p.x.size());
  for (int r = 0; r < p.rows; ++r) {
    const double* row = p.x.data() + std::size_t(r) * p.cols;
    const double top = *std::max_element(row, row + p.cols);
    double sum = 0;
    for (int c = 0; c < p.cols; ++c) sum += std::exp(row[c] - top);
    for (int c = 0; c < p.cols; ++c) p.y[std::size_t(r) * p.cols + c] = std::exp(row[c] - top) / sum;
  }
  return p;
}

// ---- float32 reference: what passes, what fails ----

TEST(Compare, IdenticalTensorsPassWithZeroError) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const tensor_check c = compare(r, r);
  EXPECT_TRUE(c.pass);
  EXPECT_TRUE(c.reasons.empty());
  EXPECT_EQ(c.normwise_error, 0.0);
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_EQ(c.mismatched, 0);
  EXPECT_EQ(c.elements, p.m * p.n);
  EXPECT_GT(c.reference_rms, 1.0);  // sqrt(512/9): the sum of 512 products of U(-1,1)
}

TEST(Compare, Float32ReorderedSumPasses) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const tensor c = f32(matmul_float_reversed(p, p.a, p.b), {p.m, p.n});
  const tensor_check check = compare(r, c);
  EXPECT_TRUE(check.pass) << (check.reasons.empty() ? "" : check.reasons[0].detail);
  EXPECT_GT(check.normwise_error, 1e-8);  // it did differ
  EXPECT_LT(check.normwise_error, 1e-5);
}

TEST(Compare, Float32RelativeNoiseOf1e7Passes) {
  const auto p = make_matmul();
  const auto exact = matmul_exact(p, p.a, p.b);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 1e-7);
  auto noisy = exact;
  for (auto& v : noisy) v *= 1 + noise(rng);
  const tensor_check check = compare(f32(exact, {p.m, p.n}), f32(noisy, {p.m, p.n}));
  EXPECT_TRUE(check.pass) << (check.reasons.empty() ? "" : check.reasons[0].detail);
}

// The precision-downcast defence: the same matmul computed from inputs rounded to a narrower type
// (float accumulation, as tensor cores do) must not pass as float32.
TEST(Compare, BFloat16ComputationFailsFloat32Reference) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const auto out = rounded(matmul_float_reversed(p, rounded(p.a, round_bf16), rounded(p.b, round_bf16)), round_bf16);
  const tensor_check check = compare(r, f32(out, {p.m, p.n}));
  EXPECT_FALSE(check.pass);
  EXPECT_TRUE(has_reason(check, "mismatch"));
  EXPECT_GT(check.normwise_error, 1e-3);
}

TEST(Compare, Float16ComputationFailsFloat32Reference) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const auto out = rounded(matmul_float_reversed(p, rounded(p.a, round_f16), rounded(p.b, round_f16)), round_f16);
  const tensor_check check = compare(r, f32(out, {p.m, p.n}));
  EXPECT_FALSE(check.pass);
  EXPECT_TRUE(has_reason(check, "mismatch"));
  EXPECT_GT(check.normwise_error, thresholds_for(dtype::f32).normwise);
}

TEST(Compare, Float16InputsWithFloat32OutputFailFloat32Reference) {
  // Only the inputs downcast (the output stays float32): the smallest error of the family.
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const auto out = matmul_float_reversed(p, rounded(p.a, round_f16), rounded(p.b, round_f16));
  const tensor_check check = compare(r, f32(out, {p.m, p.n}));
  EXPECT_FALSE(check.pass);
  EXPECT_GT(check.normwise_error, thresholds_for(dtype::f32).normwise);
}

TEST(Compare, Tf32ComputationFailsFloat32Reference) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const auto out = matmul_float_reversed(p, rounded(p.a, round_tf32), rounded(p.b, round_tf32));
  const tensor_check check = compare(r, f32(out, {p.m, p.n}));
  EXPECT_FALSE(check.pass);
  EXPECT_TRUE(has_reason(check, "mismatch"));
  EXPECT_GT(check.normwise_error, thresholds_for(dtype::f32).normwise);
}

TEST(Compare, MismatchDetailGivesErrorCountAndFirstElement) {
  const auto p = make_matmul();
  const tensor r = f32(matmul_exact(p, p.a, p.b), {p.m, p.n});
  const auto out = rounded(matmul_float_reversed(p, rounded(p.a, round_bf16), rounded(p.b, round_bf16)), round_bf16);
  const tensor_check check = compare(r, f32(out, {p.m, p.n}));
  ASSERT_EQ(check.reasons.size(), 1u);
  const std::string& d = check.reasons[0].detail;
  EXPECT_NE(d.find("normwise error"), std::string::npos) << d;
  EXPECT_NE(d.find("> 1e-04"), std::string::npos) << d;
  EXPECT_NE(d.find(std::to_string(check.mismatched) + " of 4096 elements outside tolerance"), std::string::npos) << d;
  ASSERT_FALSE(check.first_mismatches.empty());
  const auto& first = check.first_mismatches[0];
  const std::string where =
      "first at [" + std::to_string(first.index / p.n) + ", " + std::to_string(first.index % p.n) + "]";
  EXPECT_NE(d.find(where), std::string::npos) << d;
  EXPECT_EQ(d.find('\n'), std::string::npos);
  EXPECT_LE(check.first_mismatches.size(), 5u);
  EXPECT_TRUE(std::is_sorted(check.first_mismatches.begin(), check.first_mismatches.end(),
                             [](const auto& a, const auto& b) { return a.index < b.index; }));
  // The examples are the elements that really are out of tolerance.
  const double tol_abs = 1e-4 * check.reference_rms;
  for (const auto& e : check.first_mismatches) {
    EXPECT_EQ(e.expected, r.element(std::size_t(e.index)));
    EXPECT_GT(std::abs(e.got - e.expected), 1e-3 * std::abs(e.expected) + tol_abs);
  }
}

// ---- lower-precision references accept their own arithmetic ----

TEST(Compare, Float16ReferenceAcceptsHalfPrecisionArithmetic) {
  auto p = make_matmul();
  p.a = rounded(p.a, round_f16);
  p.b = rounded(p.b, round_f16);
  const tensor r = make_tensor(dtype::f16, {p.m, p.n}, matmul_exact(p, p.a, p.b));
  const tensor c = make_tensor(dtype::f16, {p.m, p.n}, matmul_float_reversed(p, p.a, p.b));
  const tensor_check check = compare(r, c);
  EXPECT_TRUE(check.pass) << (check.reasons.empty() ? "" : check.reasons[0].detail);
  EXPECT_GT(check.mismatched + check.normwise_error, 0.0);  // some elements rounded the other way
}

TEST(Compare, BFloat16ReferenceAcceptsSplitKPartialsRoundedToBFloat16) {
  // A split-K kernel that stores each of four partial sums in bfloat16 before adding them: a few
  // bfloat16 ulps from the reference, which a bfloat16 reference must accept.
  auto p = make_matmul();
  p.a = rounded(p.a, round_bf16);
  p.b = rounded(p.b, round_bf16);
  std::vector<double> split(std::size_t(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      double total = 0;
      for (int part = 0; part < 4; ++part) {
        float s = 0;
        for (int l = part * p.k / 4; l < (part + 1) * p.k / 4; ++l) {
          s += float(p.a[std::size_t(i) * p.k + l]) * float(p.b[std::size_t(l) * p.n + j]);
        }
        total = round_bf16(total + round_bf16(s));
      }
      split[std::size_t(i) * p.n + j] = total;
    }
  }
  const tensor r = make_tensor(dtype::bf16, {p.m, p.n}, matmul_exact(p, p.a, p.b));
  const tensor_check check = compare(r, make_tensor(dtype::bf16, {p.m, p.n}, split));
  EXPECT_TRUE(check.pass) << (check.reasons.empty() ? "" : check.reasons[0].detail);
  EXPECT_GT(check.normwise_error, 1e-3);  // it really is bfloat16-sized noise
}

TEST(Compare, Float64ReferenceRejectsFloat32Arithmetic) {
  const auto p = make_matmul();
  const auto exact = matmul_exact(p, p.a, p.b);
  const tensor r = make_tensor(dtype::f64, {p.m, p.n}, exact);
  EXPECT_FALSE(compare(r, make_tensor(dtype::f64, {p.m, p.n}, matmul_float_reversed(p, p.a, p.b))).pass);
  // A reordered double sum passes.
  std::vector<double> reordered(exact.size());
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      double s = 0;
      for (int l = p.k - 1; l >= 0; --l) s += p.a[std::size_t(i) * p.k + l] * p.b[std::size_t(l) * p.n + j];
      reordered[std::size_t(i) * p.n + j] = s;
    }
  }
  ASSERT_NE(reordered, exact);
  EXPECT_TRUE(compare(r, make_tensor(dtype::f64, {p.m, p.n}, reordered)).pass);
}

// ---- the discrimination audit's fakes ----

TEST(Audit, ZerosPassKernelBenchCheckButFailOursOnSoftmax) {
  const auto p = make_softmax();
  const tensor r = f32(p.y, {p.rows, p.cols});
  const tensor zeros = zeros_like(r);
  EXPECT_TRUE(legacy_allclose(r, zeros, 1e-2, 1e-2));  // the KernelBench hole
  const tensor_check check = compare(r, zeros);
  EXPECT_FALSE(check.pass);
  EXPECT_TRUE(has_reason(check, "mismatch"));
  EXPECT_DOUBLE_EQ(check.normwise_error, 1.0);
  EXPECT_EQ(check.mismatched, p.rows * p.cols);
}

TEST(Audit, EveryFakeFailsOnSoftmaxWhileTheRealComputationPasses) {
  const auto p = make_softmax();
  const tensor r = f32(p.y, {p.rows, p.cols});
  const tensor x = f32(p.x, {p.rows, p.cols});
  const tensor mean = mean_like(r);
  EXPECT_NEAR(mean.element(0), 1.0 / p.cols, 1e-9);
  EXPECT_TRUE(legacy_allclose(r, mean, 1e-2, 1e-2));  // the mean passes KernelBench's check too
  const auto passthrough = passthrough_like(r, {make_tensor(dtype::f32, {3}, {1, 2, 3}), x});
  ASSERT_TRUE(passthrough.has_value());
  EXPECT_EQ(passthrough->bytes, x.bytes);  // the second input: the first has the wrong size
  for (const tensor& fake : {zeros_like(r), constant_like(r, 1.0), mean, *passthrough}) {
    EXPECT_FALSE(compare(r, fake).pass);
  }
  // softmax computed in float, row by row: passes.
  std::vector<double> y(p.x.size());
  for (int row = 0; row < p.rows; ++row) {
    float top = -INFINITY, sum = 0;
    for (int c = 0; c < p.cols; ++c) top = std::max(top, float(p.x[std::size_t(row) * p.cols + c]));
    for (int c = 0; c < p.cols; ++c) sum += std::exp(float(p.x[std::size_t(row) * p.cols + c]) - top);
    for (int c = 0; c < p.cols; ++c)
      y[std::size_t(row) * p.cols + c] = std::exp(float(p.x[std::size_t(row) * p.cols + c]) - top) / sum;
  }
  const tensor_check real = compare(r, f32(y, {p.rows, p.cols}));
  EXPECT_TRUE(real.pass) << (real.reasons.empty() ? "" : real.reasons[0].detail);
}

TEST(Audit, FakesKeepTheReferenceDtypeAndShape) {
  const tensor r = make_tensor(dtype::bf16, {2, 3}, {1, 2, 3, 4, 5, 6});
  for (const tensor& fake : {zeros_like(r), constant_like(r, 1.0), mean_like(r)}) {
    EXPECT_EQ(fake.type, dtype::bf16);
    EXPECT_EQ(fake.shape, r.shape);
    EXPECT_EQ(fake.bytes.size(), r.bytes.size());
  }
  EXPECT_EQ(mean_like(r).element(5), 3.5);
  EXPECT_EQ(constant_like(r, 1.0).element(4), 1.0);
  // Passthrough converts an integer input of the right size to the reference's dtype and shape.
  const auto pt = passthrough_like(r, {make_tensor(dtype::i64, {6}, {7, 8, 9, 10, 11, 12})});
  ASSERT_TRUE(pt.has_value());
  EXPECT_EQ(pt->type, dtype::bf16);
  EXPECT_EQ(pt->shape, r.shape);
  EXPECT_EQ(pt->element(2), 9.0);
  EXPECT_FALSE(passthrough_like(r, {make_tensor(dtype::f32, {5}, {1, 2, 3, 4, 5})}).has_value());
}

// The audit forms every fake in one buffer: the same bytes as the *_like functions, no new buffer
// once it is large enough.
TEST(Audit, FormFakeWritesEachFakeIntoOneBuffer) {
  const tensor r = make_tensor(dtype::f32, {2, 3}, {1, -2, 3, 4, 5, 6.5});
  const std::vector<tensor> inputs = {make_tensor(dtype::f32, {4}, {1, 2, 3, 4}),
                                      make_tensor(dtype::i64, {3, 2}, {7, 8, 9, 10, 11, 12})};
  tensor fake;
  ASSERT_TRUE(form_fake("zeros", r, inputs, fake));
  EXPECT_EQ(fake.bytes, zeros_like(r).bytes);
  const std::byte* buffer = fake.bytes.data();
  ASSERT_TRUE(form_fake("constant", r, inputs, fake));
  EXPECT_EQ(fake.bytes, constant_like(r, 1.0).bytes);
  ASSERT_TRUE(form_fake("mean", r, inputs, fake));
  EXPECT_EQ(fake.bytes, mean_like(r).bytes);
  EXPECT_EQ(fake.element(0), double(float(17.5 / 6)));
  ASSERT_TRUE(form_fake("passthrough", r, inputs, fake));
  EXPECT_EQ(fake.bytes, passthrough_like(r, inputs)->bytes);
  EXPECT_EQ(fake.shape, r.shape);
  EXPECT_EQ(fake.element(5), 12.0);
  EXPECT_EQ(fake.bytes.data(), buffer);
  EXPECT_FALSE(form_fake("passthrough", r, {inputs[0]}, fake));
  EXPECT_THROW(form_fake("ones", r, inputs, fake), std::invalid_argument);
}

TEST(Audit, MeanIgnoresNonFiniteReferenceElements) {
  const tensor r = make_tensor(dtype::f32, {4}, {1.0, 3.0, NAN, INFINITY});
  EXPECT_EQ(mean_like(r).element(0), 2.0);
}

TEST(LegacyAllclose, FollowsTorchAllcloseSemantics) {
  const tensor r = f32({1.0, 2.0, INFINITY}, {3});
  EXPECT_TRUE(legacy_allclose(r, f32({1.0, 2.0, INFINITY}, {3}), 0, 0));
  EXPECT_FALSE(legacy_allclose(r, f32({1.0, 2.0, -INFINITY}, {3}), 1, 1));
  // |r - c| <= atol + rtol * |c|: the tolerance scales with the candidate, not the reference.
  EXPECT_TRUE(legacy_allclose(f32({1.0}, {1}), f32({2.0}, {1}), 0, 0.5));
  EXPECT_FALSE(legacy_allclose(f32({2.0}, {1}), f32({1.0}, {1}), 0, 0.5));
  EXPECT_FALSE(legacy_allclose(f32({NAN}, {1}), f32({NAN}, {1}), 1, 1));  // equal_nan=False
  EXPECT_FALSE(legacy_allclose(r, f32({1.0, 2.0, INFINITY}, {1, 3}), 1, 1));  // shapes must match
  // dtypes may differ: values are compared.
  EXPECT_TRUE(legacy_allclose(r, make_tensor(dtype::f16, {3}, {1.0, 2.0, INFINITY}), 0, 0));
}

// ---- scale invariance ----

TEST(Compare, VerdictIsInvariantToTheScaleOfTheOutput) {
  const auto p = make_matmul();
  const auto exact = matmul_exact(p, p.a, p.b);
  const auto reordered = matmul_float_reversed(p, p.a, p.b);
  const auto half = rounded(matmul_float_reversed(p, rounded(p.a, round_f16), rounded(p.b, round_f16)), round_f16);
  auto scaled = [](std::vector<double> v, double s) {
    for (auto& x : v) x *= s;
    return v;
  };
  const tensor_check good = compare(f32(exact, {p.m, p.n}), f32(reordered, {p.m, p.n}));
  const tensor_check bad = compare(f32(exact, {p.m, p.n}), f32(half, {p.m, p.n}));
  ASSERT_TRUE(good.pass);
  ASSERT_FALSE(bad.pass);
  for (const double s : {1e-6, 1e6}) {
    const tensor_check g = compare(f32(scaled(exact, s), {p.m, p.n}), f32(scaled(reordered, s), {p.m, p.n}));
    const tensor_check b = compare(f32(scaled(exact, s), {p.m, p.n}), f32(scaled(half, s), {p.m, p.n}));
    EXPECT_TRUE(g.pass) << s;
    EXPECT_FALSE(b.pass) << s;
    EXPECT_NEAR(b.normwise_error, bad.normwise_error, 0.01 * bad.normwise_error) << s;
    EXPECT_EQ(b.mismatched, bad.mismatched) << s;
  }
}

TEST(Compare, Float64NormsSurviveValuesWhoseSquaresOverflowOrUnderflow) {
  const auto p = make_matmul();
  const auto exact = matmul_exact(p, p.a, p.b);
  const auto reordered = matmul_float_reversed(p, p.a, p.b);  // float32-level error: about 1e-7
  const double baseline =
      compare(make_tensor(dtype::f64, {p.m, p.n}, exact), make_tensor(dtype::f64, {p.m, p.n}, reordered))
          .normwise_error;
  for (const double s : {1e-200, 1e200}) {
    std::vector<double> r = exact, c = reordered;
    for (auto& x : r) x *= s;
    for (auto& x : c) x *= s;
    const tensor_check check = compare(make_tensor(dtype::f64, {p.m, p.n}, r), make_tensor(dtype::f64, {p.m, p.n}, c));
    EXPECT_NEAR(check.normwise_error, baseline, 1e-6 * baseline) << s;
    EXPECT_GT(check.reference_rms, 0.0);
  }
}

// ---- non-finite values ----

TEST(Compare, NanInCandidateFailsWithNanInf) {
  std::vector<double> v = uniform(1000, -1, 1, 9);
  const tensor r = f32(v, {1000});
  v[417] = NAN;
  const tensor_check check = compare(r, f32(v, {1000}));
  EXPECT_FALSE(check.pass);
  EXPECT_TRUE(has_reason(check, "nan_inf"));
  EXPECT_FALSE(has_reason(check, "mismatch"));  // the other 999 elements are exact
  EXPECT_EQ(check.nonfinite, 1);
  ASSERT_EQ(check.first_mismatches.size(), 1u);
  EXPECT_EQ(check.first_mismatches[0].index, 417);
  EXPECT_TRUE(std::isnan(check.first_mismatches[0].got));
  EXPECT_TRUE(std::isfinite(check.normwise_error));  // the NaN is kept out of the norms
}

TEST(Compare, NanInOneBlockLeavesTheNormsOfTheOthersIntact) {
  // 10000 elements span several summation blocks; the block holding the NaN is summed on its own
  // path, the others on the fast one: both must agree.
  const auto r_values = uniform(10000, -1, 1, 15);
  std::mt19937_64 rng(16);
  std::normal_distribution<double> noise(0, 1e-3);
  auto c_values = r_values;
  for (auto& v : c_values) v *= 1 + noise(rng);
  c_values[5000] = r_values[5000];
  const tensor r = make_tensor(dtype::f64, {10000}, r_values);
  const tensor_check clean = compare(r, make_tensor(dtype::f64, {10000}, c_values));
  c_values[5000] = NAN;
  const tensor_check with_nan = compare(r, make_tensor(dtype::f64, {10000}, c_values));
  EXPECT_EQ(with_nan.nonfinite, 1);
  EXPECT_NEAR(with_nan.normwise_error, clean.normwise_error, 1e-12 * clean.normwise_error);
  EXPECT_NEAR(with_nan.reference_rms, clean.reference_rms, 1e-12 * clean.reference_rms);
  EXPECT_EQ(with_nan.max_abs_error, clean.max_abs_error);
  EXPECT_EQ(with_nan.mismatched, clean.mismatched);
}

TEST(Compare, InfInCandidateFailsWithNanInf) {
  std::vector<double> v = uniform(64, -1, 1, 10);
  const tensor r = f32(v, {64});
  v[3] = -INFINITY;
  EXPECT_TRUE(has_reason(compare(r, f32(v, {64})), "nan_inf"));
}

TEST(Compare, NonFiniteReferenceMustBeMatchedByTheSameClass) {
  std::vector<double> v = uniform(100, -1, 1, 11);
  v[5] = NAN;
  v[6] = INFINITY;
  v[7] = -INFINITY;
  const tensor r = f32(v, {100});
  EXPECT_TRUE(compare(r, f32(v, {100})).pass);  // NaN where the reference has NaN passes

  auto swapped = v;
  swapped[6] = -INFINITY;
  const tensor_check sign = compare(r, f32(swapped, {100}));
  EXPECT_FALSE(sign.pass);
  EXPECT_TRUE(has_reason(sign, "mismatch"));
  EXPECT_EQ(sign.mismatched, 1);
  EXPECT_EQ(sign.first_mismatches.at(0).index, 6);

  auto finite = v;
  finite[5] = 0.5;
  EXPECT_FALSE(compare(r, f32(finite, {100})).pass);  // a number where the reference has NaN
}

// ---- zero references ----

TEST(Compare, AllZeroReferenceRequiresExactZeros) {
  const tensor r = zeros_like(make_tensor(dtype::f32, {256}, std::vector<double>(256, 1.0)));
  EXPECT_TRUE(compare(r, r).pass);
  std::vector<double> tiny(256, 0.0);
  tiny[100] = 1e-30;
  const tensor_check check = compare(r, f32(tiny, {256}));
  EXPECT_FALSE(check.pass);
  EXPECT_EQ(check.mismatched, 1);
  EXPECT_EQ(check.reference_rms, 0.0);
  EXPECT_FLOAT_EQ(check.normwise_error, 1e-30f);  // the candidate's own norm
}

// ---- structure ----

TEST(Compare, WrongShapeFails) {
  const auto v = uniform(32, -1, 1, 12);
  const tensor_check check = compare(f32(v, {4, 8}), f32(v, {8, 4}));
  EXPECT_FALSE(check.pass);
  ASSERT_EQ(check.reasons.size(), 1u);
  EXPECT_EQ(check.reasons[0].code, "wrong_shape");
  EXPECT_EQ(check.reasons[0].detail, "shape [8, 4], expected [4, 8]");
}

TEST(Compare, WrongDtypeFailsEvenWhenValuesAgree) {
  const std::vector<double> v = {0.5, 0.25, 2.0};
  const tensor_check check = compare(f32(v, {3}), make_tensor(dtype::f16, {3}, v));
  EXPECT_FALSE(check.pass);
  ASSERT_EQ(check.reasons.size(), 1u);
  EXPECT_EQ(check.reasons[0].code, "wrong_dtype");
  EXPECT_EQ(check.reasons[0].detail, "dtype float16, expected float32");
}

TEST(Compare, MalformedTensorIsAnInputError) {
  tensor r = f32({1, 2, 3}, {3});
  tensor c = r;
  c.bytes.resize(5);
  EXPECT_THROW(compare(r, c), headroom::input_error);
}

// ---- exact types ----

TEST(Compare, IntegersMustBeExactBeyondDoublePrecision) {
  // 2^60 and 2^60 + 1 are the same double: the comparison must not go through double.
  tensor r;
  r.type = dtype::i64;
  r.shape = {3};
  const std::int64_t values[] = {std::int64_t{1} << 60, -7, 42};
  r.bytes.resize(sizeof(values));
  std::memcpy(r.bytes.data(), values, sizeof(values));
  EXPECT_TRUE(compare(r, r).pass);
  tensor c = r;
  const std::int64_t off_by_one = (std::int64_t{1} << 60) + 1;
  std::memcpy(c.bytes.data(), &off_by_one, sizeof(off_by_one));
  const tensor_check check = compare(r, c);
  EXPECT_FALSE(check.pass);
  EXPECT_EQ(check.mismatched, 1);
  ASSERT_EQ(check.reasons.size(), 1u);
  EXPECT_EQ(check.reasons[0].code, "mismatch");
  EXPECT_NE(check.reasons[0].detail.find("expected 1152921504606846976, got 1152921504606846977"), std::string::npos)
      << check.reasons[0].detail;
  EXPECT_EQ(thresholds_for(dtype::i64).normwise, 0.0);
}

TEST(Compare, BooleansAndSmallIntegersAreExact) {
  const tensor r = make_tensor(dtype::boolean, {4}, {1, 0, 1, 1});
  EXPECT_TRUE(compare(r, r).pass);
  EXPECT_FALSE(compare(r, make_tensor(dtype::boolean, {4}, {1, 0, 0, 1})).pass);
  const tensor bytes = make_tensor(dtype::u8, {3}, {255, 0, 128});
  const tensor_check check = compare(bytes, make_tensor(dtype::u8, {3}, {255, 1, 128}));
  EXPECT_FALSE(check.pass);
  EXPECT_EQ(check.first_mismatches.at(0).index, 1);
}

TEST(Thresholds, MatchTheDocumentedTable) {
  const thresholds f64 = thresholds_for(dtype::f64), f32t = thresholds_for(dtype::f32),
                   f16 = thresholds_for(dtype::f16), bf16 = thresholds_for(dtype::bf16);
  EXPECT_EQ(f64.normwise, 1e-10);
  EXPECT_EQ(f64.rtol, 1e-8);
  EXPECT_EQ(f32t.normwise, 1e-4);
  EXPECT_EQ(f32t.rtol, 1e-3);
  EXPECT_EQ(f32t.atol_rel, 1e-4);
  EXPECT_EQ(f16.normwise, 2e-3);
  EXPECT_EQ(f16.atol_rel, 1e-3);
  EXPECT_EQ(bf16.rtol, 3e-2);
  EXPECT_EQ(bf16.atol_rel, 1e-2);
  EXPECT_EQ(thresholds_for(dtype::boolean).rtol, 0.0);
}

// ---- unwritten outputs ----

// A kernel that writes every element except each third, run twice on outputs pre-filled with the
// poison bytes.
tensor run_partial_kernel(std::byte poison, const std::vector<double>& values) {
  tensor out;
  out.type = dtype::f32;
  out.shape = {std::int64_t(values.size())};
  out.bytes.assign(values.size() * 4, poison);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % 3 == 0) continue;
    const float v = float(values[i]);
    std::memcpy(out.bytes.data() + i * 4, &v, 4);
  }
  return out;
}

TEST(CountUnwritten, FindsExactlyTheUntouchedElements) {
  auto values = uniform(1000, -1, 1, 13);
  // Written elements whose value happens to be a poison pattern in one call are still written:
  // the other call's poison differs.
  const float all_ff = std::bit_cast<float>(0xffffffffu);
  const float all_7f = std::bit_cast<float>(0x7f7f7f7fu);
  values[1] = all_ff;
  values[2] = all_7f;
  const tensor a = run_partial_kernel(std::byte{0xff}, values);
  const tensor b = run_partial_kernel(std::byte{0x7f}, values);
  ASSERT_EQ(a.bytes[4], std::byte{0xff});  // the lookalikes really carry the poison bytes
  ASSERT_EQ(b.bytes[8], std::byte{0x7f});
  EXPECT_EQ(count_unwritten(a, std::byte{0xff}, b, std::byte{0x7f}), 334);  // indices 0, 3, ..., 999
  EXPECT_EQ(count_unwritten(b, std::byte{0x7f}, b, std::byte{0x7f}), 334 + 1);  // one poison lookalike
}

TEST(CountUnwritten, FullyWrittenOutputHasNone) {
  const auto values = uniform(100, -1, 1, 14);
  const tensor a = f32(values, {100});
  EXPECT_EQ(count_unwritten(a, std::byte{0xff}, a, std::byte{0x7f}), 0);
}

TEST(CountUnwritten, DifferentOutputShapesAreAnInputError) {
  EXPECT_THROW(count_unwritten(f32({1, 2}, {2}), std::byte{0xff}, f32({1, 2}, {1, 2}), std::byte{0x7f}),
               headroom::input_error);
}

}  // namespace
