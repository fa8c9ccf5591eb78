# Wrong shape: the right values, flattened to one dimension (a harness that compares flattened
# buffers or broadcasts would accept it).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x, min=0).flatten()
