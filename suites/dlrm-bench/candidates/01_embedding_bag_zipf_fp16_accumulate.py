# Trap (precision): the embedding bag summed in float16, as a kernel that accumulates in the table's
# half precision would; converted back to float32 at the end. Must be rejected: the float32 check
# (normwise 1e-4) sees the fp16 rounding of the rows and of every partial sum.
import torch
import torch.nn as nn


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_rows, dim):
        super().__init__()
        weight = torch.randn(num_rows, dim, device=_table_device()).mul_(0.25)
        self.weight = nn.Parameter(weight, requires_grad=False)

    def forward(self, indices, offsets):
        bags = offsets.numel() - 1
        bag = torch.repeat_interleave(torch.arange(bags, device=indices.device), offsets[1:] - offsets[:-1],
                                      output_size=indices.numel())
        rows = self.weight.index_select(0, indices).half()
        out = torch.zeros(bags, self.weight.shape[1], dtype=torch.float16, device=indices.device)
        return out.index_add_(0, bag, rows).float()
