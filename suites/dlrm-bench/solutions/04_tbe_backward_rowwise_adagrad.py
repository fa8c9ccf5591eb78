# DLRM-Bench 04 solution: EmbeddingBag backward with a fused row-wise Adagrad step, sort-based.
#
# Design (FBGEMM's plan: linearise, sort, segment, one optimizer update per distinct row):
#  1. keys = global row (table * rows_per_table + id, 24 bits for 16M rows), values = the grad_out
#     row of the lookup (b * T + t); CUB radix sort on the key bits only (3 passes of 8 bits, not 8).
#  2. head flags and an inclusive scan give every sorted lookup its run (= output row) number; a
#     kernel records each run's start and its row id (straight into the `unique` output).
#  3. the sorted lookups are cut into fixed chunks of 32, one warp each, so a row that occurs 36 000
#     times (the Zipf head: 11% of a table's lookups) is spread over ~1100 warps instead of holding
#     one: the warp walks its 32 entries with 8 grad_out rows (16-byte loads, a float4 per lane for
#     D = 128) in flight and sums them in fp32 registers; a run that lies wholly inside the chunk is
#     finished there (the common case): sum of squares by warp shuffles, m' = m + sum/D, and
#     w' = w - lr*G / (sqrt(m') + eps) written once; a run that crosses chunk boundaries adds its
#     piece with float atomics into an accumulator row owned by the chunk where the run starts (one
#     per chunk at most, zeroed in step 2), and
#  4. one warp per such chunk finishes those runs from their accumulator row.
# The number of distinct rows is known only on the device; every kernel is queued before the one
# host synchronisation that reads it, and the outputs (allocated for the worst case, N rows) are
# returned as views of their first U rows. Module state is never written.
#
# Roofline. Compulsory traffic: grad_out once (B*T*D*4 = 67 MB), ids (N*8 = 21 MB), read and write
# U rows of weight (2*U*D*4) and momentum, U ids: about 0.78 GB at U = 0.7M, 180 us at 4.3 TB/s. The
# sort moves 3 passes x 2 x N x 8 bytes = 126 MB more, and the grad_out row of a lookup is read once
# per lookup (N*D*4 = 1.34 GB, mostly from L2: grad_out is 67 MB).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
extern "C" size_t dlrm04_temp_bytes(int64_t n, int key_bits);
extern "C" cudaError_t dlrm04_backward(const int64_t* indices, const float* grad_out, const float* weight,
                                       const float* momentum, int64_t tables, int64_t batch, int64_t bag,
                                       int64_t rows_per_table, int64_t dim, float lr, float eps, int key_bits,
                                       void* temp, size_t temp_bytes, uint32_t* keys, uint32_t* keys_sorted,
                                       int32_t* vals, int32_t* vals_sorted, int32_t* flags, int32_t* run_id,
                                       int32_t* run_start, float* acc, int32_t* num_runs, int64_t* out_unique,
                                       float* out_weight, float* out_momentum, int64_t* num_unique,
                                       cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cub/cub.cuh>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;
constexpr int kChunk = 32;  // sorted lookups per warp
constexpr int kInFlight = 8;

int grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return int(blocks < 65536 * 8 ? (blocks > 0 ? blocks : 1) : 65536 * 8);
}

// n < 2^31 (checked): 32-bit divisions (a 64-bit one is a slow subroutine).
__global__ void build_keys(const int64_t* __restrict__ indices, uint32_t* __restrict__ keys,
                           int32_t* __restrict__ vals, uint32_t n, uint32_t per_table, uint32_t bag, uint32_t tables,
                           uint32_t rows_per_table) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t t = i / per_table;
    const uint32_t b = (i - t * per_table) / bag;
    keys[i] = t * rows_per_table + uint32_t(indices[i]);
    vals[i] = int32_t(b * tables + t);  // the grad_out row: [B, T, D] viewed as [B*T, D]
  }
}

__global__ void head_flags(const uint32_t* __restrict__ keys, int32_t* __restrict__ flags, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    flags[i] = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
}

// Run starts, the unique row ids, the zeroed accumulator rows of runs that leave their first chunk,
// the run count. run_start has U + 1 entries (the last is n).
__global__ void mark_runs(const uint32_t* __restrict__ keys, const int32_t* __restrict__ run_id,
                          int32_t* __restrict__ run_start, int64_t* __restrict__ out_unique, float4* __restrict__ acc,
                          int32_t* __restrict__ num_runs, int64_t n, int dim4) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t key = keys[i];
    if (i == 0 || key != keys[i - 1]) {
      const int32_t r = run_id[i] - 1;
      run_start[r] = int32_t(i);
      out_unique[r] = int64_t(key);
      const int64_t next = ((i / kChunk) + 1) * kChunk;
      if (next < n && keys[next] == key) {
        float4* row = acc + (i / kChunk) * dim4;
        for (int c = 0; c < dim4; ++c) row[c] = make_float4(0.f, 0.f, 0.f, 0.f);
      }
    }
    if (i == n - 1) {
      *num_runs = run_id[i];
      run_start[run_id[i]] = int32_t(n);
    }
  }
}

__device__ __forceinline__ void add4(float4& a, const float4& b) {
  a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}

// The optimizer step for run r (row `row`) with its full gradient g, by one whole warp.
template <int CHUNKS>
__device__ __forceinline__ void finish_row(int32_t r, uint32_t row, const float4 (&g)[CHUNKS],
                                           const float4* __restrict__ weight, const float* __restrict__ momentum,
                                           float4* __restrict__ out_weight, float* __restrict__ out_momentum,
                                           int dim4, int lane, float lr, float eps) {
  float ss = 0.f;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) ss += g[c].x * g[c].x + g[c].y * g[c].y + g[c].z * g[c].z + g[c].w * g[c].w;
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) ss += __shfl_xor_sync(kFullMask, ss, m);
  const float m_new = momentum[row] + ss / float(dim4 * 4);
  const float denom = sqrtf(m_new) + eps;
  const float4* w = weight + int64_t(row) * dim4;
  float4* dst = out_weight + int64_t(r) * dim4;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) {
    const int col = lane + 32 * c;
    if (col < dim4) {
      const float4 wv = __ldg(w + col);
      // As the reference: w - (lr * G) / (sqrt(m') + eps).
      dst[col] = make_float4(wv.x - (lr * g[c].x) / denom, wv.y - (lr * g[c].y) / denom,
                             wv.z - (lr * g[c].z) / denom, wv.w - (lr * g[c].w) / denom);
    }
  }
  if (lane == 0) out_momentum[r] = m_new;
}

template <int CHUNKS>
__global__ void __launch_bounds__(kThreads)
segment_sums(const uint32_t* __restrict__ keys, const int32_t* __restrict__ vals, const int32_t* __restrict__ run_id,
             const int32_t* __restrict__ run_start, const float4* __restrict__ grad, const float4* __restrict__ weight,
             const float* __restrict__ momentum, float4* __restrict__ acc, float4* __restrict__ out_weight,
             float* __restrict__ out_momentum, int64_t n, int dim4, float lr, float eps) {
  const int lane = threadIdx.x & 31;
  const int64_t chunk = (int64_t(blockIdx.x) * kThreads + threadIdx.x) >> 5;
  const int64_t lo = chunk * kChunk;
  if (lo >= n) return;  // warp-uniform
  const int64_t hi = lo + kChunk < n ? lo + kChunk : n;
  const int count = int(hi - lo);
  const int32_t my_run = lane < count ? run_id[lo + lane] - 1 : -1;
  const int32_t my_val = lane < count ? vals[lo + lane] : 0;
  float4 g[CHUNKS];
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) g[c] = make_float4(0.f, 0.f, 0.f, 0.f);
  int32_t current = __shfl_sync(kFullMask, my_run, 0);

  // A run's piece in this chunk is done: finish the row here when the whole run is in the chunk,
  // else add the piece into the accumulator row of the chunk where the run starts.
  auto flush = [&](int32_t r) {
    const int32_t start = run_start[r];
    const int32_t end = run_start[r + 1];
    if (start >= lo && end <= hi) {
      finish_row<CHUNKS>(r, keys[start], g, weight, momentum, out_weight, out_momentum, dim4, lane, lr, eps);
    } else {
      float* a = reinterpret_cast<float*>(acc + int64_t(start / kChunk) * dim4);
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        const int col = lane + 32 * c;
        if (col < dim4) {
          atomicAdd(a + 4 * col, g[c].x);
          atomicAdd(a + 4 * col + 1, g[c].y);
          atomicAdd(a + 4 * col + 2, g[c].z);
          atomicAdd(a + 4 * col + 3, g[c].w);
        }
      }
    }
  };

  for (int j = 0; j < count; j += kInFlight) {
    float4 v[kInFlight][CHUNKS];
    int32_t runs[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int k = j + u;
      runs[u] = __shfl_sync(kFullMask, my_run, k & 31);
      const int32_t grad_row = __shfl_sync(kFullMask, my_val, k & 31);
      const float4* src = grad + int64_t(grad_row) * dim4;
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        const int col = lane + 32 * c;
        v[u][c] = (k < count && col < dim4) ? __ldg(src + col) : make_float4(0.f, 0.f, 0.f, 0.f);
      }
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      if (j + u >= count) break;  // warp-uniform
      if (runs[u] != current) {   // warp-uniform: the next run begins
        flush(current);
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) g[c] = make_float4(0.f, 0.f, 0.f, 0.f);
        current = runs[u];
      }
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) add4(g[c], v[u][c]);
    }
  }
  flush(current);
}

// One warp per chunk: the run that starts in this chunk and leaves it (if any) is finished here from
// its accumulator row.
template <int CHUNKS>
__global__ void __launch_bounds__(kThreads)
finish_long_runs(const uint32_t* __restrict__ keys, const int32_t* __restrict__ run_id,
                 const int32_t* __restrict__ run_start, const float4* __restrict__ acc,
                 const float4* __restrict__ weight, const float* __restrict__ momentum,
                 float4* __restrict__ out_weight, float* __restrict__ out_momentum, int64_t n, int dim4, float lr,
                 float eps) {
  const int lane = threadIdx.x & 31;
  const int64_t chunk = (int64_t(blockIdx.x) * kThreads + threadIdx.x) >> 5;
  const int64_t lo = chunk * kChunk;
  if (lo >= n) return;
  const int64_t last = lo + kChunk - 1 < n - 1 ? lo + kChunk - 1 : n - 1;
  if (last + 1 >= n || keys[last] != keys[last + 1]) return;  // no run leaves this chunk
  const int32_t r = run_id[last] - 1;
  if (run_start[r] < lo) return;  // it started in an earlier chunk, which finishes it
  float4 g[CHUNKS];
  const float4* a = acc + chunk * dim4;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) {
    const int col = lane + 32 * c;
    g[c] = col < dim4 ? a[col] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  finish_row<CHUNKS>(r, keys[last], g, weight, momentum, out_weight, out_momentum, dim4, lane, lr, eps);
}

template <int CHUNKS>
void launch_segments(const uint32_t* keys, const int32_t* vals, const int32_t* run_id, const int32_t* run_start,
                     const float* grad, const float* weight, const float* momentum, float* acc, float* out_weight,
                     float* out_momentum, int64_t n, int dim4, float lr, float eps, cudaStream_t stream) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const unsigned blocks = unsigned((chunks + kThreads / 32 - 1) / (kThreads / 32));
  segment_sums<CHUNKS><<<blocks, kThreads, 0, stream>>>(
      keys, vals, run_id, run_start, reinterpret_cast<const float4*>(grad), reinterpret_cast<const float4*>(weight),
      momentum, reinterpret_cast<float4*>(acc), reinterpret_cast<float4*>(out_weight), out_momentum, n, dim4, lr, eps);
  finish_long_runs<CHUNKS><<<blocks, kThreads, 0, stream>>>(
      keys, run_id, run_start, reinterpret_cast<const float4*>(acc), reinterpret_cast<const float4*>(weight),
      momentum, reinterpret_cast<float4*>(out_weight), out_momentum, n, dim4, lr, eps);
}

}  // namespace

extern "C" size_t dlrm04_temp_bytes(int64_t n, int key_bits) {
  size_t sort = 0, scan = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, sort, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                  static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), int(n), 0,
                                  key_bits);
  cub::DeviceScan::InclusiveSum(nullptr, scan, static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr),
                                int(n));
  return sort > scan ? sort : scan;
}

extern "C" cudaError_t dlrm04_backward(const int64_t* indices, const float* grad_out, const float* weight,
                                       const float* momentum, int64_t tables, int64_t batch, int64_t bag,
                                       int64_t rows_per_table, int64_t dim, float lr, float eps, int key_bits,
                                       void* temp, size_t temp_bytes, uint32_t* keys, uint32_t* keys_sorted,
                                       int32_t* vals, int32_t* vals_sorted, int32_t* flags, int32_t* run_id,
                                       int32_t* run_start, float* acc, int32_t* num_runs, int64_t* out_unique,
                                       float* out_weight, float* out_momentum, int64_t* num_unique,
                                       cudaStream_t stream) {
  const int64_t n = tables * batch * bag;
  *num_unique = 0;
  if (n == 0) return cudaSuccess;
  if (dim % 4 != 0 || dim > 512 || n >= (int64_t(1) << 31) || batch * tables >= (int64_t(1) << 31) ||
      tables * rows_per_table >= (int64_t(1) << 32))
    return cudaErrorInvalidValue;
  const int dim4 = int(dim / 4);
  build_keys<<<grid_for(n, kThreads), kThreads, 0, stream>>>(indices, keys, vals, uint32_t(n), uint32_t(batch * bag),
                                                             uint32_t(bag), uint32_t(tables), uint32_t(rows_per_table));
  size_t bytes = temp_bytes;
  cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_sorted, vals, vals_sorted, int(n), 0,
                                                  key_bits, stream);
  if (e != cudaSuccess) return e;
  head_flags<<<grid_for(n, kThreads), kThreads, 0, stream>>>(keys_sorted, flags, n);
  bytes = temp_bytes;
  e = cub::DeviceScan::InclusiveSum(temp, bytes, flags, run_id, int(n), stream);
  if (e != cudaSuccess) return e;
  mark_runs<<<grid_for(n, kThreads), kThreads, 0, stream>>>(keys_sorted, run_id, run_start, out_unique,
                                                            reinterpret_cast<float4*>(acc), num_runs, n, dim4);
  switch ((dim4 + 31) / 32) {
    case 1: launch_segments<1>(keys_sorted, vals_sorted, run_id, run_start, grad_out, weight, momentum, acc, out_weight,
                               out_momentum, n, dim4, lr, eps, stream); break;
    case 2: launch_segments<2>(keys_sorted, vals_sorted, run_id, run_start, grad_out, weight, momentum, acc, out_weight,
                               out_momentum, n, dim4, lr, eps, stream); break;
    case 3: launch_segments<3>(keys_sorted, vals_sorted, run_id, run_start, grad_out, weight, momentum, acc, out_weight,
                               out_momentum, n, dim4, lr, eps, stream); break;
    default: launch_segments<4>(keys_sorted, vals_sorted, run_id, run_start, grad_out, weight, momentum, acc,
                                out_weight, out_momentum, n, dim4, lr, eps, stream); break;
  }
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  // The one host synchronisation: the output's row count, after every kernel is queued.
  int32_t runs = 0;
  e = cudaMemcpyAsync(&runs, num_runs, sizeof(runs), cudaMemcpyDeviceToHost, stream);
  if (e != cudaSuccess) return e;
  e = cudaStreamSynchronize(stream);
  *num_unique = runs;
  return e;
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <tuple>

std::tuple<at::Tensor, at::Tensor, at::Tensor> rowwise_adagrad_backward(
    const at::Tensor& weight, const at::Tensor& momentum, const at::Tensor& indices, const at::Tensor& grad_out,
    int64_t rows_per_table, double lr, double eps) {
  TORCH_CHECK(weight.is_cuda() && momentum.is_cuda() && indices.is_cuda() && grad_out.is_cuda(),
              "rowwise_adagrad_backward: CUDA tensors expected");
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == at::kFloat && weight.is_contiguous() &&
              momentum.scalar_type() == at::kFloat && momentum.is_contiguous() && momentum.numel() == weight.size(0),
              "rowwise_adagrad_backward: contiguous float32 weight [rows, D] and momentum [rows]");
  TORCH_CHECK(indices.dim() == 3 && indices.scalar_type() == at::kLong, "rowwise_adagrad_backward: indices int64 [T, B, L]");
  const int64_t tables = indices.size(0), batch = indices.size(1), bag = indices.size(2), dim = weight.size(1);
  TORCH_CHECK(grad_out.scalar_type() == at::kFloat && grad_out.numel() == batch * tables * dim,
              "rowwise_adagrad_backward: grad_out float32 [B, T * D]");
  TORCH_CHECK(tables * rows_per_table == weight.size(0), "rowwise_adagrad_backward: T tables of rows_per_table rows");
  TORCH_CHECK(dim % 4 == 0 && dim <= 512 && reinterpret_cast<uintptr_t>(weight.data_ptr()) % 16 == 0,
              "rowwise_adagrad_backward: D must be a multiple of 4 and at most 512, 16-byte aligned");
  c10::cuda::CUDAGuard guard(weight.device());
  const at::Tensor ids = indices.contiguous();
  const at::Tensor grad = grad_out.contiguous();
  const int64_t n = tables * batch * bag;
  int key_bits = 1;
  while ((int64_t(1) << key_bits) < tables * rows_per_table) ++key_bits;
  const auto ints = weight.options().dtype(at::kInt);
  const int64_t chunks = (n + 31) / 32;
  at::Tensor temp = at::empty({int64_t(dlrm04_temp_bytes(n, key_bits)) + 1}, weight.options().dtype(at::kByte));
  at::Tensor keys = at::empty({n}, ints), keys_sorted = at::empty({n}, ints);
  at::Tensor vals = at::empty({n}, ints), vals_sorted = at::empty({n}, ints);
  at::Tensor flags = at::empty({n}, ints), run_id = at::empty({n}, ints), run_start = at::empty({n + 1}, ints);
  at::Tensor acc = at::empty({chunks, dim}, weight.options());
  at::Tensor num_runs = at::empty({1}, ints);
  at::Tensor unique = at::empty({n}, weight.options().dtype(at::kLong));
  at::Tensor new_weight = at::empty({n, dim}, weight.options());
  at::Tensor new_momentum = at::empty({n}, weight.options());
  int64_t u = 0;
  const cudaError_t e = dlrm04_backward(
      ids.data_ptr<int64_t>(), grad.data_ptr<float>(), weight.data_ptr<float>(), momentum.data_ptr<float>(), tables,
      batch, bag, rows_per_table, dim, float(lr), float(eps), key_bits, temp.data_ptr(), size_t(temp.numel()),
      reinterpret_cast<uint32_t*>(keys.data_ptr<int32_t>()), reinterpret_cast<uint32_t*>(keys_sorted.data_ptr<int32_t>()),
      vals.data_ptr<int32_t>(), vals_sorted.data_ptr<int32_t>(), flags.data_ptr<int32_t>(), run_id.data_ptr<int32_t>(),
      run_start.data_ptr<int32_t>(), acc.data_ptr<float>(), num_runs.data_ptr<int32_t>(), unique.data_ptr<int64_t>(),
      new_weight.data_ptr<float>(), new_momentum.data_ptr<float>(), &u, c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "rowwise_adagrad_backward: ", cudaGetErrorString(e));
  return std::make_tuple(unique.narrow(0, 0, u), new_weight.narrow(0, 0, u), new_momentum.narrow(0, 0, u));
}
"""

FUNCTIONS = ["rowwise_adagrad_backward"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_04_tbe_backward_rowwise_adagrad", cpp_sources=[CPP_SRC],
                   cuda_sources=[CUDA_SRC], functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_tables, rows_per_table, dim, lr, eps):
        super().__init__()
        # The problem's table and optimizer state, drawn the same way under the same seed.
        device = _table_device()
        rows = num_tables * rows_per_table
        self.weight = nn.Parameter(torch.randn(rows, dim, device=device), requires_grad=False)
        self.register_buffer("momentum", torch.rand(rows, device=device))
        self.rows_per_table = rows_per_table
        self.lr = lr
        self.eps = eps

    def forward(self, indices, grad_out):
        return _ext.rowwise_adagrad_backward(self.weight, self.momentum, indices, grad_out, self.rows_per_table,
                                             self.lr, self.eps)
