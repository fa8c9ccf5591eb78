# Trap (partial work): every non-empty bag loses its last id, as a kernel with an off-by-one bag end
# would. Must be rejected.
import torch
import torch.nn as nn
import torch.nn.functional as F


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_rows, dim):
        super().__init__()
        weight = torch.randn(num_rows, dim, device=_table_device()).mul_(0.25)
        self.weight = nn.Parameter(weight, requires_grad=False)

    def forward(self, indices, offsets):
        lengths = offsets[1:] - offsets[:-1]
        keep = torch.ones(indices.numel(), dtype=torch.bool, device=indices.device)
        keep[(offsets[1:] - 1)[lengths > 0]] = False
        shorter = torch.zeros_like(offsets)
        shorter[1:] = torch.cumsum((lengths - 1).clamp(min=0), 0)
        return F.embedding_bag(indices[keep], self.weight, shorter, mode="sum", include_last_offset=True)
