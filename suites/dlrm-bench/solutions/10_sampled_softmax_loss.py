# DLRM-Bench 10 solution: sampled softmax loss, gather + normalise + dot + online log-sum-exp fused.
#
# Design. One warp per query row. The query (256 bf16 = 512 bytes) is one 16-byte piece per lane,
# kept in fp32 registers with its norm (warp reduction). The positive and the R negatives are
# visited 8 rows at a time: every lane issues its 16-byte piece of all 8 rows before any arithmetic
# (a full 512-byte row per warp instruction, 4 KB in flight per warp), then forms per-row partial
# dot products and squared norms in fp32. The 16 partial sums (8 dots, 8 norms) are reduced with a
# transposed butterfly (16 shuffles instead of 80), after which lane 2r holds row r's dot product
# and lane 2r + 16 its squared norm. The logit dot / (max(|q|, 1e-6) max(|e|, 1e-6)) / tau (-5e4 for
# an accidental hit) feeds that lane's running (max, sum) of an online log-sum-exp; the lanes' states
# are merged once at the end and loss = logsumexp - positive logit is written (fp32). Nothing of size
# [N, R, D] is ever written. D must be a multiple of 8 and at most 256.
#
# Roofline. Bytes: (R + 1) gathered rows per query (N*(R+1)*D*2 = 1.08 GB at N = 16384, R = 128,
# D = 256; the 512 MB table is 10x the L2, so mostly from DRAM), the ids (N*(R+1)*8 = 17 MB), q
# (8 MB): ~1.11 GB, 258 us at 4.3 TB/s. Compulsory (each touched row once): 0.88M rows, 0.48 GB.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm10_sampled_softmax(const void* items, const void* query, const int64_t* positive,
                                              const int64_t* negative, float* loss, int64_t num_queries,
                                              int64_t num_negatives, int64_t dim, float inv_temperature,
                                              cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;
constexpr int kGroup = 8;  // rows in flight per warp
constexpr float kNormEps = 1e-6f;
constexpr float kHitLogit = -5e4f;

__device__ __forceinline__ void bf16x8_to_float(const uint4& v, float (&f)[8]) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
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

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
sampled_softmax_kernel(const uint4* __restrict__ items, const uint4* __restrict__ query,
                       const int64_t* __restrict__ positive, const int64_t* __restrict__ negative,
                       float* __restrict__ loss, int64_t num_queries, int num_negatives, int dim8,
                       float inv_temperature) {
  const int lane = threadIdx.x & 31;
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= num_queries) return;  // warp-uniform
  const bool active = lane < dim8;
  float qv[8];
  {
    const uint4 raw = active ? __ldg(query + row * dim8 + lane) : make_uint4(0u, 0u, 0u, 0u);
    bf16x8_to_float(raw, qv);
  }
  float qss = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) qss += qv[i] * qv[i];
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) qss += __shfl_xor_sync(kFullMask, qss, m);
  const float q_norm = fmaxf(sqrtf(qss), kNormEps);

  const int64_t pos_id = positive[row];
  const int64_t* neg = negative + row * int64_t(num_negatives);
  const int rows = num_negatives + 1;  // row 0 is the positive
  float run_max = __int_as_float(0xff800000u), run_sum = 0.f, pos_logit = 0.f;  // -inf
  const int mine = (lane >> 1) & 7;  // after the butterfly, lane holds row `mine` of the group
  for (int base = 0; base < rows; base += 32) {
    // Ids of rows base .. base + 31, one per lane.
    const int r = base + lane;
    const int64_t my_id = r < rows ? (r == 0 ? pos_id : __ldg(neg + (r - 1))) : 0;
    const int in_slice = rows - base < 32 ? rows - base : 32;
    for (int j = 0; j < in_slice; j += kGroup) {
      uint4 raw[kGroup];
      int64_t ids[kGroup];
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        ids[u] = __shfl_sync(kFullMask, my_id, (j + u) & 31);
        raw[u] = (j + u < in_slice && active) ? __ldg(items + ids[u] * dim8 + lane) : make_uint4(0u, 0u, 0u, 0u);
      }
      float part[2 * kGroup];  // [0, 8): dot products, [8, 16): squared norms
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        float e[8];
        bf16x8_to_float(raw[u], e);
        float d = 0.f, s = 0.f;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          d = fmaf(qv[i], e[i], d);
          s = fmaf(e[i], e[i], s);
        }
        part[u] = d;
        part[kGroup + u] = s;
      }
      reduce_scatter_step<16, 16>(part, lane);
      reduce_scatter_step<8, 8>(part, lane);
      reduce_scatter_step<4, 4>(part, lane);
      reduce_scatter_step<2, 2>(part, lane);
      const float total = part[0] + __shfl_xor_sync(kFullMask, part[0], 1);  // lane: value (lane >> 1) & 15
      const float squares = __shfl_sync(kFullMask, total, (lane + 16) & 31);  // lanes < 16: row mine's norm^2
      int64_t id = ids[0];
#pragma unroll
      for (int u = 1; u < kGroup; ++u) id = (u == mine) ? ids[u] : id;
      const int rr = base + j + mine;  // this lane's row, for lanes < 16
      if (lane < 16 && (lane & 1) == 0 && j + mine < in_slice) {
        float logit = total / (q_norm * fmaxf(sqrtf(squares), kNormEps)) * inv_temperature;
        if (rr == 0) {
          pos_logit = logit;
        } else if (id == pos_id) {
          logit = kHitLogit;
        }
        if (logit > run_max) {
          run_sum = run_sum * expf(run_max - logit) + 1.f;
          run_max = logit;
        } else {
          run_sum += expf(logit - run_max);
        }
      }
    }
  }
  // Merge the lanes' (max, sum) and take the positive's logit from lane 0.
  float m = run_max;
#pragma unroll
  for (int k = 16; k >= 1; k >>= 1) m = fmaxf(m, __shfl_xor_sync(kFullMask, m, k));
  float s = run_sum > 0.f ? run_sum * expf(run_max - m) : 0.f;
#pragma unroll
  for (int k = 16; k >= 1; k >>= 1) s += __shfl_xor_sync(kFullMask, s, k);
  pos_logit = __shfl_sync(kFullMask, pos_logit, 0);
  if (lane == 0) loss[row] = (m + logf(s)) - pos_logit;
}

}  // namespace

extern "C" cudaError_t dlrm10_sampled_softmax(const void* items, const void* query, const int64_t* positive,
                                              const int64_t* negative, float* loss, int64_t num_queries,
                                              int64_t num_negatives, int64_t dim, float inv_temperature,
                                              cudaStream_t stream) {
  if (dim % 8 != 0 || dim > 256 || dim < 8 || num_queries < 1 || num_negatives < 0 || num_negatives > (1 << 30))
    return cudaErrorInvalidValue;
  const int64_t blocks = (num_queries + kWarpsPerBlock - 1) / kWarpsPerBlock;
  sampled_softmax_kernel<<<unsigned(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      static_cast<const uint4*>(items), static_cast<const uint4*>(query), positive, negative, loss, num_queries,
      int(num_negatives), int(dim / 8), inv_temperature);
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor sampled_softmax_loss(const at::Tensor& items, const at::Tensor& query, const at::Tensor& positive,
                                const at::Tensor& negative, double temperature) {
  TORCH_CHECK(items.is_cuda() && query.is_cuda() && positive.is_cuda() && negative.is_cuda(),
              "sampled_softmax_loss: CUDA tensors expected");
  TORCH_CHECK(items.dim() == 2 && items.scalar_type() == at::kBFloat16 && items.is_contiguous() &&
              query.dim() == 2 && query.scalar_type() == at::kBFloat16 && query.size(1) == items.size(1),
              "sampled_softmax_loss: bf16 items [E, D] and query [N, D]");
  TORCH_CHECK(positive.scalar_type() == at::kLong && negative.scalar_type() == at::kLong && negative.dim() == 2 &&
              positive.numel() == query.size(0) && negative.size(0) == query.size(0),
              "sampled_softmax_loss: int64 positive [N] and negative [N, R] ids");
  const int64_t dim = items.size(1);
  TORCH_CHECK(dim % 8 == 0 && dim >= 8 && dim <= 256 && reinterpret_cast<uintptr_t>(items.data_ptr()) % 16 == 0,
              "sampled_softmax_loss: D must be a multiple of 8, at most 256, 16-byte aligned");
  c10::cuda::CUDAGuard guard(items.device());
  const at::Tensor q = query.contiguous(), pos = positive.contiguous(), neg = negative.contiguous();
  TORCH_CHECK(reinterpret_cast<uintptr_t>(q.data_ptr()) % 16 == 0, "sampled_softmax_loss: query must be 16-byte aligned");
  at::Tensor loss = at::empty({query.size(0)}, query.options().dtype(at::kFloat));
  if (query.size(0) == 0) return loss;
  const cudaError_t e = dlrm10_sampled_softmax(items.data_ptr(), q.data_ptr(), pos.data_ptr<int64_t>(),
                                               neg.data_ptr<int64_t>(), loss.data_ptr<float>(), query.size(0),
                                               negative.size(1), dim, float(1.0 / temperature),
                                               c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "sampled_softmax_loss: ", cudaGetErrorString(e));
  return loss;
}
"""

FUNCTIONS = ["sampled_softmax_loss"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_10_sampled_softmax_loss", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_items, dim, temperature):
        super().__init__()
        # The problem's item table, drawn the same way under the same seed.
        items = torch.randn(num_items, dim, device=_table_device(), dtype=torch.bfloat16)
        self.items = nn.Parameter(items, requires_grad=False)
        self.temperature = temperature

    def forward(self, query, positive_ids, negative_ids):
        return _ext.sampled_softmax_loss(self.items, query, positive_ids, negative_ids, self.temperature)
