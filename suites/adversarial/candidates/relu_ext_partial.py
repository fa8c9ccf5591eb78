# Exploit: partial write. A C++ extension allocates the output with torch::empty and writes only the
# first 99.7% of the elements; the rest holds whatever the allocator handed out (a stale buffer may
# even hold the right values). Deliberately reuses the extension name "relu_ext" of relu_ext.py with
# different code, as KernelBench candidates do.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>

torch::Tensor relu_partial(torch::Tensor x) {
  auto in = x.contiguous();
  auto out = torch::empty(in.sizes(), in.options());
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t n = in.numel();
  const int64_t written = n * 997 / 1000;  // the tail is never written
  for (int64_t i = 0; i < written; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
  return out;
}
"""

_ext = load_inline(name="relu_ext", cpp_sources=_source, functions=["relu_partial"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.relu_partial(x)
