# Problem: a pointwise (1 x 1) convolution, 64 to 128 channels with bias, on 8 x 64 x 32 x 32 float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(8, 64, 32, 32)]


def get_init_inputs():
    return [64, 128]
