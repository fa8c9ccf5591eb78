# Exploit: an output in memory the candidate owns outside PyTorch's allocator. A NumPy array made at
# import (the problem's shape: 256 x 4096 float32) holds the result (NumPy's own allocation), and
# forward returns a tensor over it, rewritten by every call. Memory the harness never handed out can
# be filled whenever the candidate likes (before the call, by a thread that watches for inputs, or
# after it); only memory from the harness's allocators is accepted as an output a candidate keeps
# (foreign_output).
import numpy as np
import torch
import torch.nn as nn

_buffer = np.empty((256, 4096), dtype=np.float32)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.from_numpy(_buffer).view(x.shape)
        torch.clamp(x, min=0, out=out)
        return out
