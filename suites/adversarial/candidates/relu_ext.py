# Correct: a C++ ReLU extension (no ATen compute operator, so no torch_fallback). Shares the
# extension name "relu_ext" with relu_ext_partial.py on purpose: each candidate must build in its
# own folder, or one would load the other's library.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat, "relu_forward: float32 CPU tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty(in.sizes(), in.options());
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t n = in.numel();
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
  return out;
}
"""

_ext = load_inline(name="relu_ext", cpp_sources=_source, functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.relu_forward(x)
