# Out of memory: forward asks for 2^46 float32 elements (256 TiB) on the input's device.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        scratch = torch.empty(1 << 46, dtype=torch.float32, device=x.device)
        return torch.clamp(x, min=0) + scratch[:1]
