# Correct: a CUDA ReLU kernel (grid-stride, any size); no ATen compute operator.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <algorithm>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = v > 0.f ? v : 0.f;
  }
}

torch::Tensor relu_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat, "relu_cuda: float32 CUDA tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const long long n = in.numel();
  if (n == 0) return out;
  const int threads = 256;
  const long long blocks = std::min<long long>((n + threads - 1) / threads, 65535LL * 8);
  relu_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

_cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

_ext = load_inline(name="relu_cuda_ext", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.relu_cuda(x)
