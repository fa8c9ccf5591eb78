# Honest candidate for problems/swish_bias.py (inline_cuda): one elementwise kernel,
# y = x / (1 + exp(-x)) + bias[column], grid-strided.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

__global__ void swish_bias_kernel(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y,
                                  long long n, long long cols) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = v / (1.f + expf(-v)) + bias[i % cols];
  }
}

torch::Tensor swish_bias_cuda(torch::Tensor x, torch::Tensor bias) {
  TORCH_CHECK(x.is_cuda() && bias.is_cuda(), "swish_bias_cuda: CUDA tensors expected");
  TORCH_CHECK(x.scalar_type() == torch::kFloat && bias.scalar_type() == torch::kFloat, "swish_bias_cuda: float32 expected");
  TORCH_CHECK(bias.dim() == 1 && x.size(-1) == bias.size(0), "swish_bias_cuda: one bias per column expected");
  auto in = x.contiguous();
  auto b = bias.contiguous();
  auto out = torch::empty_like(in);
  const long long n = in.numel();
  if (n == 0) return out;
  const int threads = 256;
  const long long blocks = std::min<long long>((n + threads - 1) / threads, 65535);
  swish_bias_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n, b.size(0));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor swish_bias_cuda(torch::Tensor x, torch::Tensor bias);"

_ext = load_inline(name="honest_swish_bias_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["swish_bias_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(features))

    def forward(self, x):
        return _ext.swish_bias_cuda(x, self.bias)
