# Honest candidate for problems/gram_diagonal.py (inline_cuda): the Gram diagonal is each row's sum of
# squares; one warp per row accumulates it over the columns and reduces with shuffles.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

__global__ void row_sumsq_kernel(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols) {
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;  // a whole warp shares its row, so it leaves together
  const float* r = x + row * cols;
  float s = 0.f;
  for (long long c = lane; c < cols; c += 32) {
    const float v = r[c];
    s += v * v;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) y[row] = s;
}

torch::Tensor gram_diag_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 3 && x.scalar_type() == torch::kFloat,
              "gram_diag_cuda: 3-D float32 CUDA tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty({in.size(0), in.size(1)}, in.options());
  const long long rows = in.size(0) * in.size(1), cols = in.size(2);
  if (rows == 0) return out;
  if (cols == 0) return out.zero_();
  const int threads = 256;  // 8 rows per block
  const long long blocks = (rows * 32 + threads - 1) / threads;
  row_sumsq_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor gram_diag_cuda(torch::Tensor x);"

_ext = load_inline(name="honest_gram_diag_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["gram_diag_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.gram_diag_cuda(x)
