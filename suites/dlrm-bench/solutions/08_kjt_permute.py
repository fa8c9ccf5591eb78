# DLRM-Bench 08 solution: KeyedJaggedTensor permute in two kernels, no host synchronisation.
#
# Design. Kernel 1, one block per output key k: copies lengths[permute[k]] to row k of the permuted
# lengths and sums it (a block reduction), storing the total under the source key. Kernel 2, one
# block per 4096 output positions: the block loads permute and the per-key totals into shared memory,
# one warp scans them twice (start of every key in the input, start of every key in the output), and
# each thread finds the output key of its position by binary search over the output starts (7 steps
# for 128 keys, in shared memory), then copies the int64 value and the fp32 weight from
# input start of that key + offset in its segment. Consecutive threads take consecutive positions,
# so loads and stores are coalesced except at segment boundaries; 8 positions per thread are loaded
# before any is stored. Every output element is written.
#
# Roofline. Bytes: lengths read and written (2*T*B*4 = 4 MB), values and weights read and written
# (2*N*12 = 126 MB at N = 5.24M): 130 MB, 30 us at 4.3 TB/s. The reference needs a repeat_interleave
# over N, an arange and two index_selects.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm08_kjt_permute(const int32_t* lengths, const int64_t* values, const float* weights,
                                          const int64_t* permute, int32_t* out_lengths, int64_t* out_values,
                                          float* out_weights, int64_t* key_totals, int64_t keys, int64_t batch,
                                          int64_t total, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;
constexpr int kPerThread = 16;
constexpr int kBatch = 8;  // positions loaded before any is stored
constexpr int kChunk = kThreads * kPerThread;

__global__ void __launch_bounds__(kThreads)
permute_lengths(const int32_t* __restrict__ lengths, const int64_t* __restrict__ permute,
                int32_t* __restrict__ out_lengths, int64_t* __restrict__ key_totals, int64_t batch) {
  __shared__ int64_t partial[kThreads / 32];
  const int64_t k = blockIdx.x;
  const int64_t src = permute[k];
  int64_t sum = 0;
  for (int64_t i = threadIdx.x; i < batch; i += kThreads) {
    const int32_t l = lengths[src * batch + i];
    out_lengths[k * batch + i] = l;
    sum += l;
  }
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) sum += __shfl_xor_sync(kFullMask, sum, m);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    int64_t s = 0;
    for (int w = 0; w < kThreads / 32; ++w) s += partial[w];
    key_totals[src] = s;
  }
}

__device__ __forceinline__ int64_t warp_inclusive_scan(int64_t v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int64_t other = __shfl_up_sync(kFullMask, v, d);
    if (lane >= d) v += other;
  }
  return v;
}

__global__ void __launch_bounds__(kThreads)
permute_values(const int64_t* __restrict__ values, const float* __restrict__ weights,
               const int64_t* __restrict__ permute, const int64_t* __restrict__ key_totals,
               int64_t* __restrict__ out_values, float* __restrict__ out_weights, int keys, int64_t total) {
  extern __shared__ int64_t shared[];
  int64_t* perm = shared;                 // [keys]
  int64_t* src_start = perm + keys;       // [keys]: where input key t starts
  int64_t* dst_start = src_start + keys;  // [keys + 1]: where output key k starts
  for (int i = threadIdx.x; i < keys; i += kThreads) perm[i] = permute[i];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  if (threadIdx.x < 32) {
    int64_t carry_src = 0, carry_dst = 0;
    for (int base = 0; base < keys; base += 32) {
      const int i = base + lane;
      const int64_t s = i < keys ? key_totals[i] : 0;
      const int64_t d = i < keys ? key_totals[perm[i]] : 0;
      const int64_t scan_s = warp_inclusive_scan(s, lane);
      const int64_t scan_d = warp_inclusive_scan(d, lane);
      if (i < keys) {
        src_start[i] = carry_src + scan_s - s;
        dst_start[i] = carry_dst + scan_d - d;
      }
      carry_src += __shfl_sync(kFullMask, scan_s, 31);
      carry_dst += __shfl_sync(kFullMask, scan_d, 31);
    }
    if (lane == 0) dst_start[keys] = carry_dst;
  }
  __syncthreads();
  const int64_t first = int64_t(blockIdx.x) * kChunk;
  for (int batch = 0; batch < kPerThread; batch += kBatch) {
    int64_t v[kBatch];
    float w[kBatch];
    int64_t at[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t p = first + int64_t(batch + u) * kThreads + threadIdx.x;
      at[u] = p;
      if (p < total) {
        int lo = 0, hi = keys;  // dst_start[lo] <= p < dst_start[hi]
        while (hi - lo > 1) {
          const int mid = (lo + hi) >> 1;
          if (dst_start[mid] <= p) lo = mid; else hi = mid;
        }
        const int64_t src = src_start[perm[lo]] + (p - dst_start[lo]);
        v[u] = __ldg(values + src);
        w[u] = __ldg(weights + src);
      }
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      if (at[u] < total) {
        out_values[at[u]] = v[u];
        out_weights[at[u]] = w[u];
      }
    }
  }
}

}  // namespace

extern "C" cudaError_t dlrm08_kjt_permute(const int32_t* lengths, const int64_t* values, const float* weights,
                                          const int64_t* permute, int32_t* out_lengths, int64_t* out_values,
                                          float* out_weights, int64_t* key_totals, int64_t keys, int64_t batch,
                                          int64_t total, cudaStream_t stream) {
  if (keys < 1 || keys > 2048 || batch < 0 || total < 0) return cudaErrorInvalidValue;
  permute_lengths<<<unsigned(keys), kThreads, 0, stream>>>(lengths, permute, out_lengths, key_totals, batch);
  if (total > 0) {
    const size_t smem = size_t(3 * keys + 1) * sizeof(int64_t);
    const int64_t blocks = (total + kChunk - 1) / kChunk;
    permute_values<<<unsigned(blocks), kThreads, smem, stream>>>(values, weights, permute, key_totals, out_values,
                                                                 out_weights, int(keys), total);
  }
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <tuple>

std::tuple<at::Tensor, at::Tensor, at::Tensor> kjt_permute(const at::Tensor& lengths, const at::Tensor& values,
                                                           const at::Tensor& weights, const at::Tensor& permute) {
  TORCH_CHECK(lengths.is_cuda() && values.is_cuda() && weights.is_cuda() && permute.is_cuda(),
              "kjt_permute: CUDA tensors expected");
  TORCH_CHECK(lengths.dim() == 2 && lengths.scalar_type() == at::kInt, "kjt_permute: lengths must be int32 [T, B]");
  TORCH_CHECK(values.dim() == 1 && values.scalar_type() == at::kLong && weights.scalar_type() == at::kFloat &&
              weights.numel() == values.numel(), "kjt_permute: int64 values and float32 weights of the same length");
  const int64_t keys = lengths.size(0), batch = lengths.size(1);
  TORCH_CHECK(permute.dim() == 1 && permute.scalar_type() == at::kLong && permute.numel() == keys && keys <= 2048,
              "kjt_permute: permute must be an int64 permutation of the (at most 2048) keys");
  c10::cuda::CUDAGuard guard(values.device());
  const at::Tensor l = lengths.contiguous(), v = values.contiguous(), w = weights.contiguous(), p = permute.contiguous();
  at::Tensor out_lengths = at::empty_like(l), out_values = at::empty_like(v), out_weights = at::empty_like(w);
  if (keys == 0) return std::make_tuple(out_lengths, out_values, out_weights);
  at::Tensor totals = at::empty({keys}, values.options());
  const cudaError_t e = dlrm08_kjt_permute(l.data_ptr<int32_t>(), v.data_ptr<int64_t>(), w.data_ptr<float>(),
                                           p.data_ptr<int64_t>(), out_lengths.data_ptr<int32_t>(),
                                           out_values.data_ptr<int64_t>(), out_weights.data_ptr<float>(),
                                           totals.data_ptr<int64_t>(), keys, batch, v.numel(),
                                           c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "kjt_permute: ", cudaGetErrorString(e));
  return std::make_tuple(out_lengths, out_values, out_weights);
}
"""

FUNCTIONS = ["kjt_permute"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_08_kjt_permute", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


class ModelNew(nn.Module):
    def forward(self, lengths, values, weights, permute):
        return _ext.kjt_permute(lengths, values, weights, permute)
