# DLRM-Bench 11 solution: modulo hashing + sorted unique with inverse and counts, without a sort.
#
# Design. The hashed ids live in [0, E) (E = 10M rows), so a direct-mapped count array of E int32
# (40 MB, L2-sized) replaces both the hash table and the sort:
#  1. zero the count array (one memset);
#  2. count: each block hashes 4096 raw ids (raw mod E by a 64x64 -> high-64 multiply with a
#     precomputed reciprocal, exact after one correction; floor semantics for negative ids, as
#     torch.remainder), merges equal keys of a warp with __match_any_sync, counts them in a
#     shared-memory open-addressing table (8192 slots, atomicCAS insert), then adds each distinct
#     key's count to the global array once: the Zipf head (one id is 10% of all 8M ids) costs one
#     global atomic per block instead of one per occurrence;
#  3. compaction: CUB's DeviceSelect over 0..E-1 keeps the keys with a non-zero count, in increasing
#     order: that is `unique`, sorted for free;
#  4. for each unique key r: counts[r] = count[key], and count[key] becomes r (its rank);
#  5. inverse[i] = rank[hash(raw[i])] (a gather from the 40 MB array).
# The number of distinct keys is known only on the device; every kernel is queued before the one
# host synchronisation that reads it, and the outputs (allocated for the worst case, min(N, E)) are
# returned as views of their first U entries.
#
# Roofline. Bytes: raw ids read twice (2*N*8 = 128 MB at N = 8M), inverse written (N*8 = 64 MB),
# the count array zeroed, scanned and gathered (~4*E*4 = 160 MB, much of it in L2), unique and
# counts written (2*U*8 = 30 MB): ~0.38 GB, 90 us at 4.3 TB/s. The minimum (ids read once, outputs
# written once) is 159 MB, 37 us. A radix sort of the 8M ids instead moves ~0.9 GB.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
extern "C" size_t dlrm11_temp_bytes(int64_t buckets);
extern "C" cudaError_t dlrm11_hash_unique(const int64_t* raw, int64_t n, int64_t buckets, int32_t* count,
                                          void* temp, size_t temp_bytes, int64_t* num_selected,
                                          int64_t* out_unique, int64_t* out_inverse, int64_t* out_counts,
                                          int64_t* num_unique, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;
constexpr int kItems = 16;  // ids per thread
constexpr int kSlotBits = 13;
constexpr int kSlots = 1 << kSlotBits;  // shared table: twice the ids of a block
constexpr int kCountSmem = 2 * kSlots * int(sizeof(int32_t));

// raw mod E with floor semantics (torch.remainder): magic = floor((2^64 - 1) / E); for x < 2^63 the
// quotient estimate is low by at most one, hence one correction.
__device__ __forceinline__ int32_t hash_id(int64_t raw, uint64_t buckets, uint64_t magic) {
  const bool negative = raw < 0;
  const uint64_t x = negative ? uint64_t(-(raw + 1)) : uint64_t(raw);
  uint64_t r = x - __umul64hi(x, magic) * buckets;
  while (r >= buckets) r -= buckets;
  return int32_t(negative ? buckets - 1 - r : r);
}

__global__ void __launch_bounds__(kThreads)
count_ids(const int64_t* __restrict__ raw, int64_t n, uint64_t buckets, uint64_t magic, int32_t* __restrict__ count) {
  extern __shared__ int32_t table[];
  int32_t* keys = table;
  int32_t* counts = table + kSlots;
  for (int s = threadIdx.x; s < kSlots; s += kThreads) {
    keys[s] = -1;
    counts[s] = 0;
  }
  const int lane = threadIdx.x & 31;
  const int64_t base = int64_t(blockIdx.x) * (kThreads * kItems) + threadIdx.x;
  int64_t ids[kItems];
#pragma unroll
  for (int it = 0; it < kItems; ++it) {  // every load before any insert
    const int64_t i = base + int64_t(it) * kThreads;
    ids[it] = i < n ? __ldg(raw + i) : 0;
  }
  __syncthreads();
#pragma unroll  // (unrolled: ids[] stays in registers)
  for (int it = 0; it < kItems; ++it) {
    const int64_t i = base + int64_t(it) * kThreads;
    const int32_t h = i < n ? hash_id(ids[it], buckets, magic) : -1;
    const unsigned same = __match_any_sync(kFullMask, h);
    if (h >= 0 && lane == __ffs(same) - 1) {  // one lane per distinct key of the warp
      uint32_t slot = (uint32_t(h) * 2654435761u) >> (32 - kSlotBits);
      while (true) {
        const int32_t prev = atomicCAS(&keys[slot], -1, h);
        if (prev == -1 || prev == h) {
          atomicAdd(&counts[slot], __popc(same));
          break;
        }
        slot = (slot + 1) & (kSlots - 1);
      }
    }
  }
  __syncthreads();
  for (int s = threadIdx.x; s < kSlots; s += kThreads)
    if (keys[s] >= 0) atomicAdd(&count[keys[s]], counts[s]);
}

struct Present {
  const int32_t* count;
  __host__ __device__ bool operator()(int e) const { return count[e] != 0; }
};

// counts[r] = count[unique[r]], and count[unique[r]] becomes r, for r < *num_selected.
__global__ void rank_keys(const int64_t* __restrict__ unique, const int64_t* __restrict__ num_selected,
                          int32_t* __restrict__ count, int64_t* __restrict__ out_counts) {
  const int64_t u = *num_selected;
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < u; r += int64_t(gridDim.x) * blockDim.x) {
    const int64_t key = unique[r];
    out_counts[r] = count[key];
    count[key] = int32_t(r);
  }
}

__global__ void inverse_ids(const int64_t* __restrict__ raw, int64_t n, uint64_t buckets, uint64_t magic,
                            const int32_t* __restrict__ rank, int64_t* __restrict__ inverse) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    inverse[i] = rank[hash_id(__ldg(raw + i), buckets, magic)];
}

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return unsigned(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

}  // namespace

extern "C" size_t dlrm11_temp_bytes(int64_t buckets) {
  size_t bytes = 0;
  cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<int>(0), static_cast<int64_t*>(nullptr),
                        static_cast<int64_t*>(nullptr), int(buckets), Present{nullptr});
  return bytes;
}

extern "C" cudaError_t dlrm11_hash_unique(const int64_t* raw, int64_t n, int64_t buckets, int32_t* count,
                                          void* temp, size_t temp_bytes, int64_t* num_selected,
                                          int64_t* out_unique, int64_t* out_inverse, int64_t* out_counts,
                                          int64_t* num_unique, cudaStream_t stream) {
  *num_unique = 0;
  if (buckets < 1 || buckets > 2147483647 || n < 0 || n >= (int64_t(1) << 40)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  static bool configured = false;
  if (!configured) {
    const cudaError_t e = cudaFuncSetAttribute(count_ids, cudaFuncAttributeMaxDynamicSharedMemorySize, kCountSmem);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  const uint64_t e64 = uint64_t(buckets);
  const uint64_t magic = ~uint64_t(0) / e64;
  cudaError_t e = cudaMemsetAsync(count, 0, size_t(buckets) * sizeof(int32_t), stream);
  if (e != cudaSuccess) return e;
  const int64_t blocks = (n + kThreads * kItems - 1) / (kThreads * kItems);
  count_ids<<<unsigned(blocks), kThreads, kCountSmem, stream>>>(raw, n, e64, magic, count);
  size_t bytes = temp_bytes;
  e = cub::DeviceSelect::If(temp, bytes, thrust::counting_iterator<int>(0), out_unique, num_selected, int(buckets),
                            Present{count}, stream);
  if (e != cudaSuccess) return e;
  const int64_t most = n < buckets ? n : buckets;
  rank_keys<<<grid_for(most), kThreads, 0, stream>>>(out_unique, num_selected, count, out_counts);
  inverse_ids<<<grid_for(n), kThreads, 0, stream>>>(raw, n, e64, magic, count, out_inverse);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  // The one host synchronisation: the outputs' length, after every kernel is queued.
  int64_t u = 0;
  e = cudaMemcpyAsync(&u, num_selected, sizeof(u), cudaMemcpyDeviceToHost, stream);
  if (e != cudaSuccess) return e;
  e = cudaStreamSynchronize(stream);
  *num_unique = u;
  return e;
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <tuple>

std::tuple<at::Tensor, at::Tensor, at::Tensor> hash_unique(const at::Tensor& raw_ids, int64_t buckets) {
  TORCH_CHECK(raw_ids.is_cuda() && raw_ids.scalar_type() == at::kLong, "hash_unique: int64 CUDA ids expected");
  TORCH_CHECK(buckets >= 1 && buckets <= 2147483647, "hash_unique: 1 <= buckets < 2^31");
  c10::cuda::CUDAGuard guard(raw_ids.device());
  const at::Tensor raw = raw_ids.contiguous();
  const int64_t n = raw.numel();
  const auto longs = raw.options();
  const int64_t most = n < buckets ? n : buckets;
  at::Tensor unique = at::empty({most}, longs), counts = at::empty({most}, longs);
  at::Tensor inverse = at::empty(raw.sizes(), longs);
  if (n == 0) return std::make_tuple(unique, inverse, counts);
  at::Tensor count = at::empty({buckets}, longs.dtype(at::kInt));
  at::Tensor temp = at::empty({int64_t(dlrm11_temp_bytes(buckets)) + 1}, longs.dtype(at::kByte));
  at::Tensor selected = at::empty({1}, longs);
  int64_t u = 0;
  const cudaError_t e = dlrm11_hash_unique(raw.data_ptr<int64_t>(), n, buckets, count.data_ptr<int32_t>(),
                                           temp.data_ptr(), size_t(temp.numel()), selected.data_ptr<int64_t>(),
                                           unique.data_ptr<int64_t>(), inverse.data_ptr<int64_t>(),
                                           counts.data_ptr<int64_t>(), &u, c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "hash_unique: ", cudaGetErrorString(e));
  return std::make_tuple(unique.narrow(0, 0, u), inverse, counts.narrow(0, 0, u));
}
"""

FUNCTIONS = ["hash_unique"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_11_hash_unique", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


class ModelNew(nn.Module):
    def __init__(self, buckets):
        super().__init__()
        self.buckets = buckets

    def forward(self, raw_ids):
        return _ext.hash_unique(raw_ids, self.buckets)
