// The tanh GELU forward and backward that `--swap gelu` puts in place of PyTorch's
// (workloads/swap.py), and the same kernels made slower by a stated factor for `--swap gelu-slow`.
//
// y = 0.5 x (1 + tanh(b (x + k x^3))), b = sqrt(2/pi), k = 0.044715, in fp32 whatever the storage
// type, as PyTorch computes it for bf16 and fp16. Each thread moves 16 bytes per access (8 bf16),
// grid-stride over the tensor; a tail shorter than a vector goes element by element. `repeat` runs
// the whole pass that many times, each pass reading x and writing y again (a tensor several times
// the L2, so every pass goes to memory): the kernel's time grows by the factor, the result does not
// change. Plain CUDA, no PyTorch types: swap.py's C++ part converts tensors at the edge, and this
// file compiles on its own (`nvcc -c`).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr float kBeta = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kKappa = 0.044715f;
constexpr int kThreads = 256;

__device__ __forceinline__ float load(float v) { return v; }
__device__ __forceinline__ float load(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float load(__half v) { return __half2float(v); }
template <typename T>
__device__ __forceinline__ T store(float v);
template <>
__device__ __forceinline__ float store<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 store<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half store<__half>(float v) {
  return __float2half_rn(v);
}

__device__ __forceinline__ float gelu(float x) {
  const float inner = kBeta * (x + kKappa * x * x * x);
  return 0.5f * x * (1.f + tanhf(inner));
}

__device__ __forceinline__ float gelu_grad(float dy, float x) {
  const float x_sq = x * x;
  const float t = tanhf(kBeta * (x + kKappa * x_sq * x));
  const float left_derivative = 0.5f * (1.f + t);
  const float right_derivative = 0.5f * x * (1.f - t * t) * kBeta * (1.f + 3.f * kKappa * x_sq);
  return dy * (left_derivative + right_derivative);
}

template <typename T>
struct alignas(16) vec {
  T v[16 / sizeof(T)];
};

// dy is null for the forward.
template <typename T>
__device__ __forceinline__ void apply(const T* dy, const T* x, T* out, int64_t i) {
  out[i] = store<T>(dy == nullptr ? gelu(load(x[i])) : gelu_grad(load(dy[i]), load(x[i])));
}

template <typename T>
__device__ void pass(const T* __restrict__ dy, const T* __restrict__ x, T* __restrict__ out, int64_t n) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t vectors = n / kVec;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = first; i < vectors; i += stride) {
    const vec<T> xv = reinterpret_cast<const vec<T>*>(x)[i];
    vec<T> dv;
    if (dy != nullptr) dv = reinterpret_cast<const vec<T>*>(dy)[i];
    vec<T> o;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      o.v[k] = store<T>(dy == nullptr ? gelu(load(xv.v[k])) : gelu_grad(load(dv.v[k]), load(xv.v[k])));
    }
    reinterpret_cast<vec<T>*>(out)[i] = o;
  }
  for (int64_t i = vectors * kVec + first; i < n; i += stride) apply(dy, x, out, i);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    gelu_tanh_forward_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, int repeat) {
#pragma unroll 1
  for (int r = 0; r < repeat; ++r) {
    pass<T>(nullptr, x, y, n);
    asm volatile("" ::: "memory");  // each pass loads and stores again
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) gelu_tanh_backward_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                                                                      T* __restrict__ dx, int64_t n, int repeat) {
#pragma unroll 1
  for (int r = 0; r < repeat; ++r) {
    pass<T>(dy, x, dx, n);
    asm volatile("" ::: "memory");
  }
}

unsigned grid_for(int64_t n, int elements_per_thread) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int64_t threads = (n + elements_per_thread - 1) / elements_per_thread;
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  const int64_t cap = int64_t(sms) * 8;  // 8 resident blocks of 256 per SM: a persistent grid
  return unsigned(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}

template <typename T>
cudaError_t launch(const void* dy, const void* x, void* out, int64_t n, int repeat, cudaStream_t stream) {
  if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(dy)) % 16 != 0) {
    return cudaErrorMisalignedAddress;
  }
  const unsigned grid = grid_for(n, 16 / sizeof(T));
  if (dy == nullptr) {
    gelu_tanh_forward_kernel<T>
        <<<grid, kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(out), n, repeat);
  } else {
    gelu_tanh_backward_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(dy), static_cast<const T*>(x),
                                                                static_cast<T*>(out), n, repeat);
  }
  return cudaGetLastError();
}

}  // namespace

// dtype: 0 float32, 1 bfloat16, 2 float16. dy null: the forward, out = gelu(x); else out = dx.
extern "C" cudaError_t headroom_gelu_tanh(const void* dy, const void* x, void* out, int64_t n, int dtype, int repeat,
                                          cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (repeat < 1) return cudaErrorInvalidValue;
  switch (dtype) {
    case 0:
      return launch<float>(dy, x, out, n, repeat, stream);
    case 1:
      return launch<__nv_bfloat16>(dy, x, out, n, repeat, stream);
    case 2:
      return launch<__half>(dy, x, out, n, repeat, stream);
    default:
      return cudaErrorInvalidValue;
  }
}
