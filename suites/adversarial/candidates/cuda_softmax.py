# Correct: row softmax, one 1024-thread block per row: a max pass, a sum-of-exp pass and a write
# pass, with warp-shuffle block reductions; float32 throughout.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cmath>

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Every thread gets the block's result; `red` holds one value per warp.
template <bool is_max>
__device__ float block_reduce(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = is_max ? warp_max(v) : warp_sum(v);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? red[lane] : (is_max ? -INFINITY : 0.f);
    w = is_max ? warp_max(w) : warp_sum(w);
    if (lane == 0) red[0] = w;
  }
  __syncthreads();
  const float result = red[0];
  __syncthreads();  // red is reused by the next reduction
  return result;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float red[32];
  const float* row = x + (long long)blockIdx.x * cols;
  float* out = y + (long long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, red);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce<false>(s, red);
  const float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == torch::kFloat,
              "softmax_cuda: 2-D float32 CUDA tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const int rows = in.size(0), cols = in.size(1);
  if (rows == 0 || cols == 0) return out;
  softmax_rows_kernel<<<rows, 1024, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), cols);
  return out;
}
"""

_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

_ext = load_inline(name="softmax_cuda_ext", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["softmax_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.softmax_cuda(x)
