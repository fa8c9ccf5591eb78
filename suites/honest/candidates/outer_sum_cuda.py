# Honest candidate for problems/outer_product_sum.py (inline_cuda): sum(x y^T) = sum(x) sum(y); one
# block per pair reduces both rows at once (warp shuffles, then the warps' partial sums) and writes
# the product.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

__global__ void outer_sum_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                                 long long n) {
  __shared__ float part_x[32], part_y[32];
  const float* xr = x + (long long)blockIdx.x * n;
  const float* yr = y + (long long)blockIdx.x * n;
  float sx = 0.f, sy = 0.f;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    sx += xr[i];
    sy += yr[i];
  }
  for (int o = 16; o > 0; o >>= 1) {
    sx += __shfl_xor_sync(0xffffffffu, sx, o);
    sy += __shfl_xor_sync(0xffffffffu, sy, o);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (lane == 0) {
    part_x[warp] = sx;
    part_y[warp] = sy;
  }
  __syncthreads();
  if (warp == 0) {
    sx = lane < warps ? part_x[lane] : 0.f;
    sy = lane < warps ? part_y[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) {
      sx += __shfl_xor_sync(0xffffffffu, sx, o);
      sy += __shfl_xor_sync(0xffffffffu, sy, o);
    }
    if (lane == 0) out[blockIdx.x] = sx * sy;
  }
}

torch::Tensor outer_sum_cuda(torch::Tensor x, torch::Tensor y) {
  TORCH_CHECK(x.is_cuda() && y.is_cuda() && x.dim() == 2 && y.dim() == 2, "outer_sum_cuda: 2-D CUDA tensors expected");
  TORCH_CHECK(x.scalar_type() == torch::kFloat && y.scalar_type() == torch::kFloat, "outer_sum_cuda: float32 expected");
  TORCH_CHECK(x.sizes() == y.sizes(), "outer_sum_cuda: x and y of one shape expected");
  auto xc = x.contiguous();
  auto yc = y.contiguous();
  auto out = torch::empty({xc.size(0)}, xc.options());
  if (xc.size(0) == 0) return out;
  outer_sum_kernel<<<(unsigned)xc.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), yc.data_ptr<float>(), out.data_ptr<float>(), xc.size(1));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor outer_sum_cuda(torch::Tensor x, torch::Tensor y);"

_ext = load_inline(name="honest_outer_sum_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["outer_sum_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return _ext.outer_sum_cuda(x, y)
