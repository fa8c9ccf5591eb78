# Honest candidate for problems/diag_matmul.py (cpp_extension): a C++ row-scaling kernel built with
# load_inline, rows split across threads with at::parallel_for; out[i, j] = a[i] * B[i, j].
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
#include <ATen/Parallel.h>

torch::Tensor row_scale(torch::Tensor a, torch::Tensor b) {
  TORCH_CHECK(a.device().is_cpu() && b.device().is_cpu(), "row_scale: CPU tensors expected");
  TORCH_CHECK(a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat, "row_scale: float32 expected");
  TORCH_CHECK(a.dim() == 1 && b.dim() == 2 && a.size(0) == b.size(0), "row_scale: a[n] and B[n, m] expected");
  auto av = a.contiguous();
  auto bv = b.contiguous();
  auto out = torch::empty_like(bv);
  const int64_t rows = bv.size(0), cols = bv.size(1);
  const float* ap = av.data_ptr<float>();
  const float* bp = bv.data_ptr<float>();
  float* op = out.data_ptr<float>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float s = ap[i];
      const float* src = bp + i * cols;
      float* dst = op + i * cols;
      for (int64_t j = 0; j < cols; ++j) dst[j] = s * src[j];
    }
  });
  return out;
}
"""

_ext = load_inline(name="honest_diag_row_scale", cpp_sources=_source, functions=["row_scale"],
                   extra_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return _ext.row_scale(A, B)
