# Out of device memory: forward asks for 2^45 float32 elements (128 TiB) on the GPU.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        scratch = torch.empty(1 << 45, dtype=torch.float32, device=x.device)
        return torch.clamp(x, min=0) + scratch[:1]
