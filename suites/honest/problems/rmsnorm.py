# Problem: RMS normalisation over the feature axis (dim 1) of 16 x 64 x 32 x 32 float32, as the
# KernelBench level-1 RMSNorm problem states it: x / sqrt(mean(x^2) + eps).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)
        return x / rms


def get_inputs():
    return [torch.randn(16, 64, 32, 32)]


def get_init_inputs():
    return [64]
