# Honest candidate for problems/diag_matmul.py (inline_cuda): a CUDA row-scaling kernel (load_inline);
# blockIdx.y picks the row, whose scale factor is read once, and the row's columns are strided over
# the x dimension of the grid.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

__global__ void row_scale_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ out, long long cols) {
  const long long row = blockIdx.y;
  const float s = a[row];
  const float* src = b + row * cols;
  float* dst = out + row * cols;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += (long long)gridDim.x * blockDim.x)
    dst[j] = s * src[j];
}

torch::Tensor row_scale_cuda(torch::Tensor a, torch::Tensor b) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda(), "row_scale_cuda: CUDA tensors expected");
  TORCH_CHECK(a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat, "row_scale_cuda: float32 expected");
  TORCH_CHECK(a.dim() == 1 && b.dim() == 2 && a.size(0) == b.size(0), "row_scale_cuda: a[n] and B[n, m] expected");
  TORCH_CHECK(b.size(0) <= 65535, "row_scale_cuda: at most 65535 rows");
  auto av = a.contiguous();
  auto bv = b.contiguous();
  auto out = torch::empty_like(bv);
  const long long rows = bv.size(0), cols = bv.size(1);
  if (rows == 0 || cols == 0) return out;
  const int threads = 256;
  const int xblocks = (int)std::min<long long>((cols + threads - 1) / threads, 64);
  dim3 grid(xblocks, (unsigned)rows);
  row_scale_kernel<<<grid, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      av.data_ptr<float>(), bv.data_ptr<float>(), out.data_ptr<float>(), cols);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor row_scale_cuda(torch::Tensor a, torch::Tensor b);"

_ext = load_inline(name="honest_row_scale_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["row_scale_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return _ext.row_scale_cuda(A, B)
