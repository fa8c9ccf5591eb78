# Compile error: the inline C++ has a syntax error (a missing semicolon and brace).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>

torch::Tensor broken_relu(torch::Tensor x) {
  auto out = torch::empty_like(x)
  return out;
"""

_ext = load_inline(name="broken_relu_ext", cpp_sources=_source, functions=["broken_relu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.broken_relu(x)
