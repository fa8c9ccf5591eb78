# Honest candidate for problems/tril_cumsum.py (cpp_extension): the triangular product is a row-wise
# inclusive prefix sum; a C++ scan (float32 running sum, rows split across threads) via load_inline.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/Parallel.h>

torch::Tensor row_prefix_sum(torch::Tensor x) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.dim() == 2,
              "row_prefix_sum: 2-D float32 CPU tensor expected");
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const int64_t rows = in.size(0), cols = in.size(1);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  at::parallel_for(0, rows, 8, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float acc = 0.f;
      for (int64_t j = 0; j < cols; ++j) {
        acc += src[i * cols + j];
        dst[i * cols + j] = acc;
      }
    }
  });
  return out;
}
"""

_ext = load_inline(name="honest_prefix_sum", cpp_sources=_source, functions=["row_prefix_sum"],
                   extra_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.row_prefix_sum(x)
