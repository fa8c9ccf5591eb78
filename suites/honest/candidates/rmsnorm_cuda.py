# Honest candidate for problems/rmsnorm.py (inline_cuda): one thread per (image, position) sums the
# squares over the channels (neighbouring threads read neighbouring positions, so loads coalesce),
# then writes every channel times rsqrt(mean + eps).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <algorithm>

__global__ void rms_norm_kernel(const float* __restrict__ x, float* __restrict__ y, long long n, long long c,
                                long long inner, float eps) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n * inner) return;
  const long long b = idx / inner, p = idx % inner;
  const float* xb = x + b * c * inner + p;
  float* yb = y + b * c * inner + p;
  float s = 0.f;
  for (long long ch = 0; ch < c; ++ch) {
    const float v = xb[ch * inner];
    s += v * v;
  }
  const float r = rsqrtf(s / (float)c + eps);
  for (long long ch = 0; ch < c; ++ch) yb[ch * inner] = xb[ch * inner] * r;
}

torch::Tensor rms_norm_cuda(torch::Tensor x, double eps) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.dim() >= 2,
              "rms_norm_cuda: float32 CUDA tensor with a channel axis expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const long long n = in.size(0), c = in.size(1);
  if (in.numel() == 0) return out;
  const long long inner = in.numel() / (n * c);
  const int threads = 256;
  const long long blocks = (n * inner + threads - 1) / threads;
  rms_norm_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      in.data_ptr<float>(), out.data_ptr<float>(), n, c, inner, (float)eps);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
"""

_cpp_source = "torch::Tensor rms_norm_cuda(torch::Tensor x, double eps);"

_ext = load_inline(name="honest_rms_norm_cuda", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["rms_norm_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        return _ext.rms_norm_cuda(x, self.eps)
