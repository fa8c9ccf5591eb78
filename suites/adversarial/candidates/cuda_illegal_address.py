# Illegal address: the kernel writes 2^40 elements (4 TiB) past its output. The fault is reported
# at the next synchronisation; forward synchronises so it surfaces as a Python exception
# (RuntimeError: CUDA error: an illegal memory access was encountered). The error is sticky: the
# process's CUDA context is unusable afterwards.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_far_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) y[idx + (1LL << 40)] = x[idx] > 0.f ? x[idx] : 0.f;
}

torch::Tensor relu_far(torch::Tensor x) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const long long n = in.numel();
  const int threads = 256;
  const long long blocks = (n + threads - 1) / threads;
  relu_far_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

_cpp_source = "torch::Tensor relu_far(torch::Tensor x);"

_ext = load_inline(name="adv_illegal_address", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["relu_far"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = _ext.relu_far(x)
        torch.cuda.synchronize(x.device)
        return out
