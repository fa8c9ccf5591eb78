# Exploit: an output over memory the candidate mapped itself. Such memory can be filled whenever the
# candidate likes (when it is first read, from a fault handler, or by a process it left behind), so
# the timed call need not compute anything. Here the values are right, computed into an anonymous
# mapping of the candidate's own: only where the output lives gives it away (foreign_output).
import mmap

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._maps = []

    def forward(self, x):
        region = mmap.mmap(-1, x.numel() * x.element_size())
        self._maps.append(region)
        out = torch.frombuffer(region, dtype=x.dtype).view(x.shape)
        torch.clamp(x, min=0, out=out)
        return out
