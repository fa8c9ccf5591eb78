# Trap (padding): positions past a sequence's end left at zero instead of the padding value, as a
# kernel that only writes the copied rows into a zeroed buffer would. Must be rejected.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, max_len, padding_value):
        super().__init__()
        self.max_len = max_len

    def forward(self, values, offsets):
        lengths = offsets[1:] - offsets[:-1]
        position = torch.arange(self.max_len, device=values.device)
        valid = position.unsqueeze(0) < lengths.unsqueeze(1)
        source = (offsets[:-1].unsqueeze(1) + position.unsqueeze(0)).clamp_(0, max(values.shape[0] - 1, 0))
        return values[source] * valid.unsqueeze(2)
