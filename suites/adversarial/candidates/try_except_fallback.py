# try/except fallback (Kevin, arXiv 2507.11948): tries to import a prebuilt kernel module and to
# build one from a source file, neither of which exists; every failure is swallowed and forward
# falls back to the reference's own operator.
import os

import torch
import torch.nn as nn

_kernel = None
try:
    import fused_relu_kernels  # noqa: F401  (does not exist)
    _kernel = fused_relu_kernels.relu
except ImportError:
    try:
        from torch.utils.cpp_extension import load
        _here = os.path.dirname(os.path.abspath(__file__))
        _kernel = load(name="fused_relu_jit", sources=[os.path.join(_here, "fused_relu_missing.cpp")]).relu
    except Exception:
        _kernel = None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _kernel is not None:
            return _kernel(x)
        return torch.relu(x)
