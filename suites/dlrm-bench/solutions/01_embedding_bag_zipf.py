# DLRM-Bench 01 solution: EmbeddingBag sum, one warp per bag.
#
# Design. One warp per bag (8 bags per 256-thread block, one bag each, no grid-stride loop: 65536
# bags are 8 waves of fully occupied SMs). The warp reads up to 32 of the bag's ids with one coalesced
# load and hands them out with __shfl_sync; each lane owns 4 consecutive floats of the row (D = 128:
# 32 lanes x 16-byte loads cover a 512-byte row in one instruction), and the warp keeps 8 rows in
# flight (8 independent 16-byte loads per lane before the first add), so a resident SM (64 warps)
# has 256 KB of row reads outstanding. Rows go through the read-only path (ld.global.nc): the Zipf
# head (the top 1000 rows take 61% of the lookups) stays in L1/L2 by itself. Sums are fp32 in
# registers, in the order of the bag's ids; the result is written once with streaming stores. An
# empty bag writes zeros. D must be a multiple of 4 (16-byte rows) and at most 512.
#
# Roofline. Logical bytes N*D*4 (rows) + N*8 (ids) + (B+1)*8 + B*D*4 = 716 MB at B = 65536, mean
# bag 20, D = 128: 166 us at 4.3 TB/s. Compulsory bytes (each distinct row once) are 24% of the row
# reads, 205 MB, 48 us; the Zipf head served from L2 is what puts the kernel under the logical floor.
# Target: under 120 us on the H200.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm01_embedding_bag_sum(const float* weight, const int64_t* indices,
                                                const int64_t* offsets, float* out, int64_t num_bags,
                                                int64_t dim, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;
constexpr int kRowsInFlight = 8;

__device__ __forceinline__ void add4(float4& a, const float4& b) {
  a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}

// CHUNKS: 16-byte pieces of a row per lane (D / 128, rounded up).
template <int CHUNKS>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
embedding_bag_sum_kernel(const float4* __restrict__ weight, const int64_t* __restrict__ indices,
                         const int64_t* __restrict__ offsets, float4* __restrict__ out,
                         int64_t num_bags, int dim4) {
  const int lane = threadIdx.x & 31;
  const int64_t bag = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  if (bag >= num_bags) return;  // warp-uniform
  const int64_t begin = offsets[bag];
  const int64_t end = offsets[bag + 1];
  float4 acc[CHUNKS];
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int64_t base = begin; base < end; base += 32) {
    const int n = int(end - base < 32 ? end - base : 32);
    const int64_t my_row = lane < n ? __ldg(indices + base + lane) : 0;
    for (int j = 0; j < n; j += kRowsInFlight) {
      float4 v[kRowsInFlight][CHUNKS];
#pragma unroll
      for (int u = 0; u < kRowsInFlight; ++u) {
        const int64_t row = __shfl_sync(kFullMask, my_row, (j + u) & 31);
        const float4* src = weight + row * dim4;
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
          const int col = lane + 32 * c;
          v[u][c] = (j + u < n && col < dim4) ? __ldg(src + col) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
      }
#pragma unroll
      for (int u = 0; u < kRowsInFlight; ++u)
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) add4(acc[c], v[u][c]);
    }
  }
  float4* dst = out + bag * dim4;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) {
    const int col = lane + 32 * c;
    if (col < dim4) __stcs(dst + col, acc[c]);
  }
}

template <int CHUNKS>
void launch(const float* weight, const int64_t* indices, const int64_t* offsets, float* out,
            int64_t num_bags, int dim4, cudaStream_t stream) {
  const int64_t blocks = (num_bags + kWarpsPerBlock - 1) / kWarpsPerBlock;
  embedding_bag_sum_kernel<CHUNKS><<<dim3(unsigned(blocks)), kWarpsPerBlock * 32, 0, stream>>>(
      reinterpret_cast<const float4*>(weight), indices, offsets, reinterpret_cast<float4*>(out), num_bags, dim4);
}

}  // namespace

extern "C" cudaError_t dlrm01_embedding_bag_sum(const float* weight, const int64_t* indices,
                                                const int64_t* offsets, float* out, int64_t num_bags,
                                                int64_t dim, cudaStream_t stream) {
  if (dim % 4 != 0 || dim > 512 || num_bags > (int64_t(1) << 34)) return cudaErrorInvalidValue;
  const int dim4 = int(dim / 4);
  switch ((dim4 + 31) / 32) {
    case 1: launch<1>(weight, indices, offsets, out, num_bags, dim4, stream); break;
    case 2: launch<2>(weight, indices, offsets, out, num_bags, dim4, stream); break;
    case 3: launch<3>(weight, indices, offsets, out, num_bags, dim4, stream); break;
    case 4: launch<4>(weight, indices, offsets, out, num_bags, dim4, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor embedding_bag_sum(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets) {
  TORCH_CHECK(weight.is_cuda() && indices.is_cuda() && offsets.is_cuda(), "embedding_bag_sum: CUDA tensors expected");
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == at::kFloat && weight.is_contiguous(),
              "embedding_bag_sum: weight must be a contiguous float32 [rows, D] table");
  TORCH_CHECK(indices.scalar_type() == at::kLong && offsets.scalar_type() == at::kLong && offsets.dim() == 1 &&
              offsets.numel() >= 1, "embedding_bag_sum: int64 indices and int64 offsets with B + 1 entries");
  const int64_t dim = weight.size(1);
  TORCH_CHECK(dim % 4 == 0 && dim <= 512 && reinterpret_cast<uintptr_t>(weight.data_ptr()) % 16 == 0,
              "embedding_bag_sum: D must be a multiple of 4, at most 512, with a 16-byte aligned table");
  c10::cuda::CUDAGuard guard(weight.device());
  const at::Tensor ids = indices.contiguous();
  const at::Tensor offs = offsets.contiguous();
  const int64_t bags = offs.numel() - 1;
  at::Tensor out = at::empty({bags, dim}, weight.options());
  if (bags > 0) {
    const cudaError_t e = dlrm01_embedding_bag_sum(weight.data_ptr<float>(), ids.data_ptr<int64_t>(),
                                                   offs.data_ptr<int64_t>(), out.data_ptr<float>(), bags, dim,
                                                   c10::cuda::getCurrentCUDAStream().stream());
    TORCH_CHECK(e == cudaSuccess, "embedding_bag_sum: ", cudaGetErrorString(e));
  }
  return out;
}
"""

FUNCTIONS = ["embedding_bag_sum"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_01_embedding_bag_zipf", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_rows, dim):
        super().__init__()
        # The problem's table, drawn the same way under the same seed.
        weight = torch.randn(num_rows, dim, device=_table_device()).mul_(0.25)
        self.weight = nn.Parameter(weight, requires_grad=False)

    def forward(self, indices, offsets):
        return _ext.embedding_bag_sum(self.weight, indices, offsets)
