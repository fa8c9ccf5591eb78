// Fresh inputs and output sketches on the GPU (include/headroom/worker/fresh_inputs.hpp): one pass
// over the tensor each, grid-stride, memory-bound. The factor and sign arithmetic is the shared
// header's, so both workers of an evaluation make the same inputs from the same seed.
#include "fresh_inputs.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "headroom/worker/fresh_inputs.hpp"

namespace headroom::cuda {
namespace {

using worker::factor_index;
using worker::perturb_factor;
using worker::sketch_signs;
using worker::sketch_width;

constexpr int block_threads = 256;

__device__ inline double to_double(float x) { return x; }
__device__ inline double to_double(double x) { return x; }
__device__ inline double to_double(__half x) { return __half2float(x); }
__device__ inline double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__device__ inline double to_double(T x) {
  return static_cast<double>(x);
}

__device__ inline float scaled(float x, double f) { return static_cast<float>(x * f); }
__device__ inline double scaled(double x, double f) { return x * f; }
__device__ inline __half scaled(__half x, double f) { return __float2half_rn(__half2float(x) * static_cast<float>(f)); }
__device__ inline __nv_bfloat16 scaled(__nv_bfloat16 x, double f) {
  return __float2bfloat16_rn(__bfloat162float(x) * static_cast<float>(f));
}

template <class T>
__global__ void perturbed_copy_kernel(T* dst, const T* src, std::size_t n, std::uint64_t seed,
                                      std::uint64_t symmetric_n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = scaled(src[i], perturb_factor(seed, factor_index(i, symmetric_n)));
}

// Each thread sums its elements into sketch_width registers; a warp's sums are added by shuffles
// and its first lane adds them to the output (16 double atomics a warp).
template <class T>
__global__ void sketch_kernel(const T* data, std::size_t n, std::uint64_t seed, double* sums) {
  double acc[sketch_width];
#pragma unroll
  for (int k = 0; k < sketch_width; ++k) acc[k] = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    double v = to_double(data[i]);
    std::uint32_t signs = sketch_signs(seed, i);
#pragma unroll
    for (int k = 0; k < sketch_width; ++k) acc[k] += (signs >> k) & 1u ? -v : v;
  }
#pragma unroll
  for (int k = 0; k < sketch_width; ++k) {
    double v = acc[k];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(&sums[k], v);
  }
}

unsigned blocks_for(std::size_t n) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  std::size_t want = (n + block_threads - 1) / block_threads;
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(want, static_cast<std::size_t>(sms) * 8)));
}

template <class T>
cudaError_t perturb(void* dst, const void* src, std::size_t n, std::uint64_t seed, std::uint64_t sym, cudaStream_t s) {
  perturbed_copy_kernel<T>
      <<<blocks_for(n), block_threads, 0, s>>>(static_cast<T*>(dst), static_cast<const T*>(src), n, seed, sym);
  return cudaGetLastError();
}

template <class T>
cudaError_t sketch(const void* data, std::size_t n, std::uint64_t seed, double* sums, cudaStream_t s) {
  sketch_kernel<T><<<blocks_for(n), block_threads, 0, s>>>(static_cast<const T*>(data), n, seed, sums);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_perturbed_copy(void* dst, const void* src, dtype type, std::size_t numel, std::uint64_t seed,
                                  std::uint64_t symmetric_n, cudaStream_t stream) {
  if (numel == 0) return cudaSuccess;
  switch (type) {
    case dtype::f64:
      return perturb<double>(dst, src, numel, seed, symmetric_n, stream);
    case dtype::f32:
      return perturb<float>(dst, src, numel, seed, symmetric_n, stream);
    case dtype::f16:
      return perturb<__half>(dst, src, numel, seed, symmetric_n, stream);
    case dtype::bf16:
      return perturb<__nv_bfloat16>(dst, src, numel, seed, symmetric_n, stream);
    default:
      return cudaSuccess;  // integers are not perturbed
  }
}

cudaError_t launch_sketch(const void* data, dtype type, std::size_t numel, std::uint64_t seed, double* sums,
                          cudaStream_t stream) {
  if (numel == 0) return cudaSuccess;
  switch (type) {
    case dtype::f64:
      return sketch<double>(data, numel, seed, sums, stream);
    case dtype::f32:
      return sketch<float>(data, numel, seed, sums, stream);
    case dtype::f16:
      return sketch<__half>(data, numel, seed, sums, stream);
    case dtype::bf16:
      return sketch<__nv_bfloat16>(data, numel, seed, sums, stream);
    case dtype::i64:
      return sketch<std::int64_t>(data, numel, seed, sums, stream);
    case dtype::i32:
      return sketch<std::int32_t>(data, numel, seed, sums, stream);
    case dtype::i16:
      return sketch<std::int16_t>(data, numel, seed, sums, stream);
    case dtype::i8:
      return sketch<std::int8_t>(data, numel, seed, sums, stream);
    case dtype::u8:
    case dtype::boolean:
      return sketch<std::uint8_t>(data, numel, seed, sums, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace headroom::cuda
