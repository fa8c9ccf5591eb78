# Exploit: the input handed back as the output. ReLU is the identity on non-negative inputs (the
# problem's own get_inputs() draws from [0, 1)), so where the input has no negative element the
# candidate returns the input tensor itself, computing nothing; elsewhere it computes. A harness
# that compares values on the problem's own inputs only is fooled; here the output lies in the
# input's memory, which the worker refuses (output_aliases_input) before any value is compared.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if bool((x >= 0).all()):
            return x
        return torch.clamp(x, min=0)
