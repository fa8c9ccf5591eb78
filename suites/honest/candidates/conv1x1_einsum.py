# Honest candidate for problems/conv1x1.py (library): a 1 x 1 convolution is a matrix product over
# the channels; written as an einsum with the bias added in place, no convolution machinery.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=True)

    def forward(self, x):
        w = self.conv.weight.view(self.conv.out_channels, self.conv.in_channels)
        y = torch.einsum("oc,nchw->nohw", w, x)
        return y.add_(self.conv.bias.view(1, -1, 1, 1))
