# A KernelBench level-2 shape whose output does not depend on its inputs: a linear layer, the max over
# the features kept as one column, minus that column's mean over the same (singleton) axis, then GELU.
# The subtraction leaves exact zeros whatever the inputs, so any kernel that writes zeros is "correct"
# and as fast as a memset. 64 x 512 float32 inputs (128 KiB).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = self.gemm(x)
        y = torch.max(y, dim=1, keepdim=True).values
        y = y - y.mean(dim=1, keepdim=True)
        return F.gelu(y)


batch = 64
in_features = 512
out_features = 1024


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
