# Honest candidate for problems/rmsnorm.py (cpp_extension): RMS normalisation over dim 1 of an
# N x C x H x W float32 tensor in C++ (load_inline): per image, the sum of squares over the channels
# is accumulated for every position, then every element is multiplied by 1 / sqrt(mean + eps).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <vector>

torch::Tensor rms_norm_channels(torch::Tensor x, double eps) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.dim() >= 2,
              "rms_norm_channels: float32 CPU tensor with a channel axis expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const int64_t n = in.size(0), c = in.size(1), inner = in.numel() / (n * c);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scale(inner);
    for (int64_t b = begin; b < end; ++b) {
      const float* xb = src + b * c * inner;
      float* yb = dst + b * c * inner;
      std::fill(scale.begin(), scale.end(), 0.f);
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < inner; ++p) scale[p] += xb[ch * inner + p] * xb[ch * inner + p];
      for (int64_t p = 0; p < inner; ++p) scale[p] = 1.f / std::sqrt(scale[p] / (float)c + (float)eps);
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t p = 0; p < inner; ++p) yb[ch * inner + p] = xb[ch * inner + p] * scale[p];
    }
  });
  return out;
}
"""

_ext = load_inline(name="honest_rms_norm", cpp_sources=_source, functions=["rms_norm_channels"],
                   extra_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        return _ext.rms_norm_channels(x, self.eps)
