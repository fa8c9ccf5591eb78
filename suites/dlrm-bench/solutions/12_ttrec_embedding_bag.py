# DLRM-Bench 12 solution: TT-Rec EmbeddingBag, lookups grouped by their middle core.
#
# Design. A lookup's row needs G1[i1] (512 B), G2[i2] (16 KB) and G3[i3] (512 B); reading G2's slice
# per lookup would move 16 KB x 164k = 2.7 GB through L2. So the lookups are bucketed by i2 (a
# histogram, a scan that also cuts every bucket into chunks of 64 lookups, and a scatter with
# warp-aggregated atomics), and one 64-thread block per chunk loads its G2 slice once into registers:
# thread c owns columns (d2, b) = (c / 32, c % 32) and (c / 32 + 2, c % 32), 2 x 32 values.
# For 16 lookups at a time the block stages G1[i1] (transposed to [a][d1], one float4 per a) and
# G3[i3] in shared memory; then per lookup each thread forms T[d1][col] = sum_a G1[d1][a] G2[a][col]
# (256 FMAs, one broadcast float4 read per 8 FMAs), multiplies by G3[b][d3] and the 32 lanes of a warp
# (= b) reduce the 16 products per column with a transposed butterfly (16 shuffles), leaving
# row[d1, d2, d3] in lane 2 (d1 * 4 + d3). Rows go to a [N, 64] scratch at the lookup's own position,
# and a last kernel sums each bag's rows in order of position (deterministic, no atomics; empty bags
# are written as zeros). All fp32 on the CUDA cores: the problem is fp32, and TF32 would miss the
# tolerance. Cores must be [p1, 4, 32], [p2, 32, 4, 32], [p3, 32, 4].
#
# Roofline. Compute-bound: 2 * (q1 r1 q2 r2 + q1 q2 r2 q3) = 36 864 FLOP per lookup, 6.0 GFLOP at
# N = 164k: 90 us at the fp32 FMA rate (132 SMs x 128 lanes x 2 x 1.98 GHz = 67 TFLOP/s); the
# speed-of-light floor against the bf16 matmul rate (6 us) is not reachable without tensor cores.
# Bytes: ids, offsets, the 3.7 MB of cores, the output: ~4 MB, plus the 42 MB scratch written and read.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm12_tt_embedding_bag(const float* g1, const float* g2, const float* g3,
                                               const int64_t* indices, const int64_t* offsets, float* out,
                                               int64_t n, int64_t batch, int64_t p1, int64_t p2, int64_t p3,
                                               int32_t* bucket_counts, int32_t* bucket_start, int32_t* cursor,
                                               int32_t* order, int32_t* chunks, int32_t* num_chunks, float* rows,
                                               cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kRank = 32;             // r1 = r2
constexpr int kQ = 4;                 // q1 = q2 = q3
constexpr int kDim = kQ * kQ * kQ;    // 64
constexpr int kSlice = kRank * kQ * kRank;  // one G2 slice: 4096 floats
constexpr int kChunk = 64;            // lookups per block
constexpr int kBatch = 16;            // lookups staged at a time
constexpr int kThreads = 64;

__global__ void bucket_histogram(const int64_t* __restrict__ indices, int64_t n, uint32_t p2, uint32_t p3,
                                 int32_t* __restrict__ counts) {
  extern __shared__ int32_t hist[];
  for (uint32_t s = threadIdx.x; s < p2; s += blockDim.x) hist[s] = 0;
  __syncthreads();
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    atomicAdd(&hist[(uint32_t(indices[i]) / p3) % p2], 1);
  __syncthreads();
  for (uint32_t s = threadIdx.x; s < p2; s += blockDim.x)
    if (hist[s] != 0) atomicAdd(&counts[s], hist[s]);
}

// One block: bucket starts, cursors reset, and the chunk table (bucket, first, end) of every bucket.
__global__ void plan_chunks(const int32_t* __restrict__ counts, int p2, int32_t* __restrict__ bucket_start,
                            int32_t* __restrict__ cursor, int32_t* __restrict__ chunks, int32_t* __restrict__ num_chunks) {
  extern __shared__ int32_t first_chunk[];
  if (threadIdx.x == 0) {
    int32_t at = 0, c = 0;
    for (int b = 0; b < p2; ++b) {
      bucket_start[b] = at;
      first_chunk[b] = c;
      at += counts[b];
      c += (counts[b] + kChunk - 1) / kChunk;
    }
    *num_chunks = c;
  }
  __syncthreads();
  for (int b = threadIdx.x; b < p2; b += blockDim.x) {
    cursor[b] = 0;
    const int32_t count = counts[b];
    for (int32_t k = 0; k * kChunk < count; ++k) {
      int32_t* ch = chunks + 3 * (first_chunk[b] + k);
      ch[0] = b;
      ch[1] = bucket_start[b] + k * kChunk;
      ch[2] = bucket_start[b] + ((k + 1) * kChunk < count ? (k + 1) * kChunk : count);
    }
  }
}

__global__ void scatter_by_bucket(const int64_t* __restrict__ indices, int64_t n, uint32_t p2, uint32_t p3,
                                  const int32_t* __restrict__ bucket_start, int32_t* __restrict__ cursor,
                                  int32_t* __restrict__ order) {
  const int lane = threadIdx.x & 31;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t base = int64_t(blockIdx.x) * blockDim.x; base < n; base += stride) {  // warp-uniform trip count
    const int64_t i = base + threadIdx.x;
    const int32_t key = i < n ? int32_t((uint32_t(indices[i]) / p3) % p2) : -1;
    const unsigned same = __match_any_sync(kFullMask, key);
    const int leader = __ffs(same) - 1;
    int32_t first = 0;
    if (lane == leader && key >= 0) first = atomicAdd(&cursor[key], __popc(same));
    first = __shfl_sync(kFullMask, first, leader);
    if (key >= 0) order[bucket_start[key] + first + __popc(same & ((1u << lane) - 1u))] = int32_t(i);
  }
}

template <int N, int MASK>
__device__ __forceinline__ void reduce_scatter_step(float* v, int lane) {
  const bool upper = (lane & MASK) != 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const float send = upper ? v[i] : v[i + N / 2];
    const float keep = upper ? v[i + N / 2] : v[i];
    v[i] = keep + __shfl_xor_sync(kFullMask, send, MASK);
  }
}

// Sum over the 32 lanes of 16 values; lane l ends with the total of value (l >> 1) & 15.
__device__ __forceinline__ float reduce_16(float (&v)[16], int lane) {
  reduce_scatter_step<16, 16>(v, lane);
  reduce_scatter_step<8, 8>(v, lane);
  reduce_scatter_step<4, 4>(v, lane);
  reduce_scatter_step<2, 2>(v, lane);
  return v[0] + __shfl_xor_sync(kFullMask, v[0], 1);
}

__global__ void __launch_bounds__(kThreads)
tt_rows(const float* __restrict__ g1, const float* __restrict__ g2, const float4* __restrict__ g3,
        const int64_t* __restrict__ indices, const int32_t* __restrict__ order, const int32_t* __restrict__ chunks,
        const int32_t* __restrict__ num_chunks, uint32_t p2, uint32_t p3, float* __restrict__ rows) {
  __shared__ float4 g1s[kBatch][kRank];  // [lookup][a] = G1[i1][0..3][a]
  __shared__ float4 g3s[kBatch][kRank];  // [lookup][b] = G3[i3][b][0..3]
  __shared__ int32_t s_i1[kBatch], s_i3[kBatch], s_pos[kBatch];
  if (int(blockIdx.x) >= *num_chunks) return;  // block-uniform
  const int32_t bucket = chunks[3 * blockIdx.x];
  const int32_t begin = chunks[3 * blockIdx.x + 1];
  const int32_t end = chunks[3 * blockIdx.x + 2];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // This thread's two G2 columns: (d2, b) = (warp, lane) and (warp + 2, lane); column = d2 * 32 + b.
  float ga[kRank], gb[kRank];
  const float* slice = g2 + int64_t(bucket) * kSlice;
#pragma unroll
  for (int a = 0; a < kRank; ++a) {
    ga[a] = __ldg(slice + a * (kQ * kRank) + tid);
    gb[a] = __ldg(slice + a * (kQ * kRank) + 64 + tid);
  }

  for (int32_t l0 = begin; l0 < end; l0 += kBatch) {
    const int nb = end - l0 < kBatch ? end - l0 : kBatch;
    __syncthreads();  // the previous batch is no longer read
    if (tid < nb) {
      const int32_t pos = order[l0 + tid];
      const uint32_t id = uint32_t(indices[pos]);
      s_i1[tid] = int32_t(id / (p2 * p3));
      s_i3[tid] = int32_t(id % p3);
      s_pos[tid] = pos;
    }
    __syncthreads();
    for (int e = tid; e < nb * kQ * kRank; e += kThreads) {  // G1[i1][d1][a] -> g1s[l][a].d1
      const int l = e / (kQ * kRank), rem = e % (kQ * kRank), d1 = rem / kRank, a = rem % kRank;
      reinterpret_cast<float*>(&g1s[l][a])[d1] = __ldg(g1 + int64_t(s_i1[l]) * (kQ * kRank) + rem);
    }
    for (int e = tid; e < nb * kRank; e += kThreads) {
      const int l = e / kRank, b = e % kRank;
      g3s[l][b] = __ldg(g3 + int64_t(s_i3[l]) * kRank + b);
    }
    __syncthreads();
    for (int l = 0; l < nb; ++l) {
      float ta[kQ] = {0.f, 0.f, 0.f, 0.f}, tb[kQ] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int a = 0; a < kRank; ++a) {
        const float4 x = g1s[l][a];
        ta[0] = fmaf(x.x, ga[a], ta[0]); ta[1] = fmaf(x.y, ga[a], ta[1]);
        ta[2] = fmaf(x.z, ga[a], ta[2]); ta[3] = fmaf(x.w, ga[a], ta[3]);
        tb[0] = fmaf(x.x, gb[a], tb[0]); tb[1] = fmaf(x.y, gb[a], tb[1]);
        tb[2] = fmaf(x.z, gb[a], tb[2]); tb[3] = fmaf(x.w, gb[a], tb[3]);
      }
      const float4 z = g3s[l][lane];  // G3[i3][b = lane][0..3]
      const float zs[kQ] = {z.x, z.y, z.z, z.w};
      float pa[16], pb[16];  // [d1 * 4 + d3]
#pragma unroll
      for (int d1 = 0; d1 < kQ; ++d1)
#pragma unroll
        for (int d3 = 0; d3 < kQ; ++d3) {
          pa[d1 * kQ + d3] = ta[d1] * zs[d3];
          pb[d1 * kQ + d3] = tb[d1] * zs[d3];
        }
      const float va = reduce_16(pa, lane);
      const float vb = reduce_16(pb, lane);
      if ((lane & 1) == 0) {
        const int v = lane >> 1, d1 = v >> 2, d3 = v & 3;
        float* row = rows + int64_t(s_pos[l]) * kDim + d1 * 16 + d3;
        row[warp * 4] = va;        // d2 = warp
        row[(warp + 2) * 4] = vb;  // d2 = warp + 2
      }
    }
  }
}

// One warp per bag: half-warps take alternate rows (16 lanes x float4 = 64 floats), 4 rows each in
// flight; the halves are added and lanes 0..15 store the bag.
__global__ void bag_sums(const float4* __restrict__ rows, const int64_t* __restrict__ offsets,
                         float4* __restrict__ out, int64_t batch) {
  const int lane = threadIdx.x & 31, half = lane >> 4, c = lane & 15;
  const int64_t bag = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (bag >= batch) return;
  const int64_t begin = offsets[bag], end = offsets[bag + 1];
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int64_t j = begin; j < end; j += 8) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int64_t r = j + 2 * u + half;
      v[u] = r < end ? __ldg(rows + r * 16 + c) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w;
    }
  }
  acc.x += __shfl_xor_sync(kFullMask, acc.x, 16);
  acc.y += __shfl_xor_sync(kFullMask, acc.y, 16);
  acc.z += __shfl_xor_sync(kFullMask, acc.z, 16);
  acc.w += __shfl_xor_sync(kFullMask, acc.w, 16);
  if (half == 0) out[bag * 16 + c] = acc;
}

unsigned grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return unsigned(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

}  // namespace

extern "C" cudaError_t dlrm12_tt_embedding_bag(const float* g1, const float* g2, const float* g3,
                                               const int64_t* indices, const int64_t* offsets, float* out,
                                               int64_t n, int64_t batch, int64_t p1, int64_t p2, int64_t p3,
                                               int32_t* bucket_counts, int32_t* bucket_start, int32_t* cursor,
                                               int32_t* order, int32_t* chunks, int32_t* num_chunks, float* rows,
                                               cudaStream_t stream) {
  if (p1 < 1 || p2 < 1 || p2 > 8192 || p3 < 1 || p1 * p2 * p3 >= (int64_t(1) << 32) || n >= (int64_t(1) << 31) ||
      batch < 1)
    return cudaErrorInvalidValue;
  if (n > 0) {
    cudaError_t e = cudaMemsetAsync(bucket_counts, 0, size_t(p2) * sizeof(int32_t), stream);
    if (e != cudaSuccess) return e;
    const size_t hist_bytes = size_t(p2) * sizeof(int32_t);
    bucket_histogram<<<grid_for(n, 256), 256, hist_bytes, stream>>>(indices, n, uint32_t(p2), uint32_t(p3),
                                                                     bucket_counts);
    plan_chunks<<<1, 256, hist_bytes, stream>>>(bucket_counts, int(p2), bucket_start, cursor, chunks, num_chunks);
    scatter_by_bucket<<<grid_for(n, 256), 256, 0, stream>>>(indices, n, uint32_t(p2), uint32_t(p3), bucket_start,
                                                            cursor, order);
    const int64_t max_chunks = n / kChunk + p2;
    tt_rows<<<unsigned(max_chunks), kThreads, 0, stream>>>(g1, g2, reinterpret_cast<const float4*>(g3), indices, order,
                                                           chunks, num_chunks, uint32_t(p2), uint32_t(p3), rows);
  }
  const int64_t blocks = (batch * 32 + 255) / 256;
  bag_sums<<<unsigned(blocks), 256, 0, stream>>>(reinterpret_cast<const float4*>(rows), offsets,
                                                 reinterpret_cast<float4*>(out), batch);
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor tt_embedding_bag(const at::Tensor& g1, const at::Tensor& g2, const at::Tensor& g3, const at::Tensor& indices,
                            const at::Tensor& offsets) {
  TORCH_CHECK(g1.is_cuda() && g2.is_cuda() && g3.is_cuda() && indices.is_cuda() && offsets.is_cuda(),
              "tt_embedding_bag: CUDA tensors expected");
  for (const at::Tensor* t : {&g1, &g2, &g3})
    TORCH_CHECK(t->scalar_type() == at::kFloat && t->is_contiguous(), "tt_embedding_bag: contiguous float32 cores");
  TORCH_CHECK(g1.dim() == 3 && g1.size(1) == 4 && g1.size(2) == 32 && g2.dim() == 4 && g2.size(1) == 32 &&
              g2.size(2) == 4 && g2.size(3) == 32 && g3.dim() == 3 && g3.size(1) == 32 && g3.size(2) == 4,
              "tt_embedding_bag: cores [p1, 4, 32], [p2, 32, 4, 32], [p3, 32, 4] expected");
  TORCH_CHECK(indices.dim() == 1 && indices.scalar_type() == at::kLong && offsets.dim() == 1 && offsets.numel() >= 1 &&
              offsets.scalar_type() == at::kLong, "tt_embedding_bag: int64 indices [N] and offsets [B + 1]");
  TORCH_CHECK(reinterpret_cast<uintptr_t>(g3.data_ptr()) % 16 == 0, "tt_embedding_bag: G3 must be 16-byte aligned");
  c10::cuda::CUDAGuard guard(g1.device());
  const at::Tensor ids = indices.contiguous(), offs = offsets.contiguous();
  const int64_t n = ids.numel(), batch = offs.numel() - 1, p1 = g1.size(0), p2 = g2.size(0), p3 = g3.size(0);
  TORCH_CHECK(p2 <= 8192 && p1 * p2 * p3 < (int64_t(1) << 32), "tt_embedding_bag: p2 <= 8192 and fewer than 2^32 rows");
  at::Tensor out = at::empty({batch, 64}, g1.options());
  if (batch == 0) return out;
  const auto ints = g1.options().dtype(at::kInt);
  at::Tensor bucket_counts = at::empty({p2}, ints), bucket_start = at::empty({p2}, ints), cursor = at::empty({p2}, ints);
  at::Tensor order = at::empty({n}, ints);
  at::Tensor chunks = at::empty({(n / 64 + p2) * 3}, ints), num_chunks = at::empty({1}, ints);
  at::Tensor rows = at::empty({n, 64}, g1.options());
  const cudaError_t e = dlrm12_tt_embedding_bag(
      g1.data_ptr<float>(), g2.data_ptr<float>(), g3.data_ptr<float>(), ids.data_ptr<int64_t>(), offs.data_ptr<int64_t>(),
      out.data_ptr<float>(), n, batch, p1, p2, p3, bucket_counts.data_ptr<int32_t>(), bucket_start.data_ptr<int32_t>(),
      cursor.data_ptr<int32_t>(), order.data_ptr<int32_t>(), chunks.data_ptr<int32_t>(), num_chunks.data_ptr<int32_t>(),
      rows.data_ptr<float>(), c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "tt_embedding_bag: ", cudaGetErrorString(e));
  return out;
}
"""

FUNCTIONS = ["tt_embedding_bag"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_12_ttrec_embedding_bag", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


class ModelNew(nn.Module):
    def __init__(self, p, q, ranks):
        super().__init__()
        self.p = list(p)
        # The problem's cores, drawn the same way under the same seed.
        self.G1 = nn.Parameter(torch.randn(p[0], q[0], ranks[0]).mul_(0.2), requires_grad=False)
        self.G2 = nn.Parameter(torch.randn(p[1], ranks[0], q[1], ranks[1]).mul_(0.2), requires_grad=False)
        self.G3 = nn.Parameter(torch.randn(p[2], ranks[1], q[2]).mul_(0.2), requires_grad=False)

    def forward(self, indices, offsets):
        return _ext.tt_embedding_bag(self.G1, self.G2, self.G3, indices, offsets)
