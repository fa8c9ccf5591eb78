# DLRM-Bench 02 solution: table-batched bf16 EmbeddingBag forward, one launch for all 26 tables.
#
# Design. One warp per (table, sample) bag; blockIdx.y walks the tables by decreasing pooling factor
# (the 100-id table's bags start first, the 1-id tables fill the tail). A bf16 row of D = 128 is 256 bytes:
# each half-warp reads one row with 16-byte loads (8 bf16 per lane), so the warp reads two rows per
# instruction and keeps 8 rows in flight (4 per half). Ids come 32 at a time through one coalesced
# load and __shfl_sync. bf16 -> fp32 is a 16-bit shift; sums are fp32 in registers; the two halves'
# partial sums are added with one shuffle per column and rounded once to bf16 (round to nearest
# even, as PyTorch's embedding_bag rounds its fp32 sum), then stored with 16-byte streaming stores
# straight into the batch-major [B, T*D] output: no per-table outputs, no concatenation.
# Table metadata (first row, first id, pooling, order) travels as a kernel argument.
# D must be a multiple of 8 and at most 128; at most 64 tables.
#
# Roofline. Logical bytes N*D*2 (rows) + N*8 (ids) + B*T*D*2 (out) = 449 + 14 + 55 = 518 MB at
# B = 8192 (N = 214 * B = 1.75M): 120 us at 4.3 TB/s. The small tables (18 of 26 under 50 MB) and the
# Zipf(1.05) head of the large ones are read from L2, below that floor.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm02_tbe_forward(const void* weight, const int64_t* values, void* out,
                                          const int64_t* table_rows, const int64_t* pooling, int num_tables,
                                          int64_t batch, int64_t dim, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cuda_bf16.h>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;
constexpr int kMaxTables = 64;
constexpr int kRowsPerHalf = 4;  // rows in flight per half-warp

struct Tables {
  int64_t first_row[kMaxTables];  // first row of table t in the flat weight
  int64_t first_id[kMaxTables];   // position of table t's first id in values
  int pooling[kMaxTables];
  int order[kMaxTables];          // tables by decreasing pooling
  int count;
};

__device__ __forceinline__ void add_bf16x8(float (&acc)[8], const uint4& v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    acc[2 * i] += __uint_as_float(w[i] << 16);             // element 2i: the low half
    acc[2 * i + 1] += __uint_as_float(w[i] & 0xffff0000u);  // element 2i+1: the high half
  }
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const uint32_t l = __bfloat16_as_ushort(__float2bfloat16_rn(lo));
  const uint32_t h = __bfloat16_as_ushort(__float2bfloat16_rn(hi));
  return l | (h << 16);
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
tbe_forward_kernel(const uint4* __restrict__ weight, const int64_t* __restrict__ values, uint4* __restrict__ out,
                   const Tables tables, int64_t batch, int dim8) {
  const int lane = threadIdx.x & 31;
  const int half = lane >> 4;  // which row of a pair this half-warp reads
  const int col = lane & 15;   // 16-byte piece (8 bf16) of the row
  const int64_t b = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  if (b >= batch) return;  // warp-uniform
  const int t = tables.order[blockIdx.y];  // blocks of the heaviest table are scheduled first
  const int pool = tables.pooling[t];
  const int64_t* ids = values + tables.first_id[t] + b * pool;
  const uint4* table = weight + tables.first_row[t] * dim8;
  const bool active = col < dim8;
  float acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.f;
  for (int base = 0; base < pool; base += 32) {
    const int n = pool - base < 32 ? pool - base : 32;
    const int64_t my_id = lane < n ? __ldg(ids + base + lane) : 0;
    for (int j = 0; j < n; j += 2 * kRowsPerHalf) {
      uint4 v[kRowsPerHalf];
#pragma unroll
      for (int u = 0; u < kRowsPerHalf; ++u) {
        const int r = j + 2 * u + half;
        const int64_t id = __shfl_sync(kFullMask, my_id, r & 31);
        v[u] = (r < n && active) ? __ldg(table + id * dim8 + col) : make_uint4(0u, 0u, 0u, 0u);
      }
#pragma unroll
      for (int u = 0; u < kRowsPerHalf; ++u) add_bf16x8(acc, v[u]);
    }
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] += __shfl_xor_sync(kFullMask, acc[i], 16);
  if (half == 0 && active) {
    const uint4 packed = make_uint4(pack_bf16x2(acc[0], acc[1]), pack_bf16x2(acc[2], acc[3]),
                                    pack_bf16x2(acc[4], acc[5]), pack_bf16x2(acc[6], acc[7]));
    __stcs(out + b * (int64_t(tables.count) * dim8) + int64_t(t) * dim8 + col, packed);
  }
}

}  // namespace

extern "C" cudaError_t dlrm02_tbe_forward(const void* weight, const int64_t* values, void* out,
                                          const int64_t* table_rows, const int64_t* pooling, int num_tables,
                                          int64_t batch, int64_t dim, cudaStream_t stream) {
  if (num_tables < 1 || num_tables > kMaxTables || dim % 8 != 0 || dim > 128 || batch < 1)
    return cudaErrorInvalidValue;
  Tables tables;
  tables.count = num_tables;
  int64_t row = 0, id = 0;
  for (int t = 0; t < num_tables; ++t) {
    if (pooling[t] < 1 || table_rows[t] < 1) return cudaErrorInvalidValue;
    tables.first_row[t] = row;
    tables.first_id[t] = id;
    tables.pooling[t] = int(pooling[t]);
    tables.order[t] = t;
    row += table_rows[t];
    id += batch * pooling[t];
  }
  // Insertion sort by decreasing pooling, stable: the heaviest bags are scheduled first.
  for (int i = 1; i < num_tables; ++i)
    for (int j = i; j > 0 && tables.pooling[tables.order[j]] > tables.pooling[tables.order[j - 1]]; --j) {
      const int s = tables.order[j];
      tables.order[j] = tables.order[j - 1];
      tables.order[j - 1] = s;
    }
  const int64_t blocks = (batch + kWarpsPerBlock - 1) / kWarpsPerBlock;
  tbe_forward_kernel<<<dim3(unsigned(blocks), unsigned(num_tables)), kWarpsPerBlock * 32, 0, stream>>>(
      static_cast<const uint4*>(weight), values, static_cast<uint4*>(out), tables, batch, int(dim / 8));
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <vector>

at::Tensor tbe_forward(const at::Tensor& weight, const at::Tensor& values, std::vector<int64_t> table_rows,
                       std::vector<int64_t> pooling) {
  TORCH_CHECK(weight.is_cuda() && values.is_cuda(), "tbe_forward: CUDA tensors expected");
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == at::kBFloat16 && weight.is_contiguous(),
              "tbe_forward: weight must be a contiguous bf16 [rows, D] table");
  TORCH_CHECK(values.scalar_type() == at::kLong, "tbe_forward: values must be int64");
  TORCH_CHECK(!table_rows.empty() && table_rows.size() == pooling.size() && table_rows.size() <= 64,
              "tbe_forward: one pooling factor per table, at most 64 tables");
  int64_t rows = 0, ids_per_sample = 0;
  for (size_t t = 0; t < table_rows.size(); ++t) {
    rows += table_rows[t];
    ids_per_sample += pooling[t];
  }
  TORCH_CHECK(rows == weight.size(0), "tbe_forward: the tables' rows do not add up to the weight's");
  TORCH_CHECK(ids_per_sample > 0 && values.numel() % ids_per_sample == 0,
              "tbe_forward: values must hold batch * sum(pooling) ids");
  const int64_t dim = weight.size(1);
  TORCH_CHECK(dim % 8 == 0 && dim <= 128 && reinterpret_cast<uintptr_t>(weight.data_ptr()) % 16 == 0,
              "tbe_forward: D must be a multiple of 8 and at most 128, with a 16-byte aligned table");
  c10::cuda::CUDAGuard guard(weight.device());
  const at::Tensor ids = values.contiguous();
  const int64_t batch = values.numel() / ids_per_sample;
  const int num_tables = int(table_rows.size());
  at::Tensor out = at::empty({batch, num_tables * dim}, weight.options());
  if (batch > 0) {
    const cudaError_t e = dlrm02_tbe_forward(weight.data_ptr(), ids.data_ptr<int64_t>(), out.data_ptr(),
                                             table_rows.data(), pooling.data(), num_tables, batch, dim,
                                             c10::cuda::getCurrentCUDAStream().stream());
    TORCH_CHECK(e == cudaSuccess, "tbe_forward: ", cudaGetErrorString(e));
  }
  return out;
}
"""

FUNCTIONS = ["tbe_forward"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_02_tbe_dlrmv2_forward", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, table_rows, pooling, dim):
        super().__init__()
        self.table_rows = [int(r) for r in table_rows]
        self.pooling = [int(p) for p in pooling]
        # The problem's flat table, drawn the same way under the same seed.
        weight = torch.randn(sum(self.table_rows), dim, device=_table_device(), dtype=torch.bfloat16)
        self.weight = nn.Parameter(weight.mul_(0.25), requires_grad=False)

    def forward(self, values):
        return _ext.tbe_forward(self.weight, values, self.table_rows, self.pooling)
