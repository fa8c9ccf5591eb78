# Honest candidate for problems/tril_cumsum.py (inline_cuda): the triangular product is a row-wise
# prefix sum; one 1024-thread block per row scans it in chunks of 1024 (warp-shuffle scans, then a
# scan of the 32 warp totals), carrying each chunk's total into the next.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

constexpr unsigned kFull = 0xffffffffu;

__global__ void row_scan_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float warp_total[32];
  const float* row = x + (long long)blockIdx.x * cols;
  float* out = y + (long long)blockIdx.x * cols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  float carry = 0.f;
  for (int base = 0; base < cols; base += blockDim.x) {
    const int c = base + threadIdx.x;
    float v = c < cols ? row[c] : 0.f;
    for (int o = 1; o < 32; o <<= 1) {
      const float t = __shfl_up_sync(kFull, v, o);
      if (lane >= o) v += t;
    }
    if (lane == 31) warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) {
      float w = lane < warps ? warp_total[lane] : 0.f;
      for (int o = 1; o < 32; o <<= 1) {
        const float t = __shfl_up_sync(kFull, w, o);
        if (lane >= o) w += t;
      }
      if (lane < warps) warp_total[lane] = w;  // inclusive scan of the warp totals
    }
    __syncthreads();
    if (warp > 0) v += warp_total[warp - 1];
    v += carry;
    if (c < cols) out[c] = v;
    carry += warp_total[warps - 1];
    __syncthreads();  // warp_total is rewritten by the next chunk
  }
}

torch::Tensor row_scan_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == torch::kFloat,
              "row_scan_cuda: 2-D float32 CUDA tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const int rows = in.size(0), cols = in.size(1);
  if (rows == 0 || cols == 0) return out;
  row_scan_kernel<<<rows, 1024, 0, at::cuda::getCurrentCUDAStream()>>>(in.data_ptr<float>(), out.data_ptr<float>(), cols);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor row_scan_cuda(torch::Tensor x);"

_ext = load_inline(name="honest_row_scan_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["row_scan_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.row_scan_cuda(x)
