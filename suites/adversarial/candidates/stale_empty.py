# Exploit: stale memory (the Sakana "memory exploit"). Returns an uninitialised tensor, hoping the
# allocator hands back the block that held the reference's output in an in-process harness.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.empty_like(x)
