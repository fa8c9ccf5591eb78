# Trap (layout convention): element 2i taken from the HIGH nibble of byte i (the problem's rows put it
# in the low one, as PyTorch's and FBGEMM's 4-bit formats do). Must be rejected.
import torch
import torch.nn as nn


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_tables, rows_per_table, dim):
        super().__init__()
        rows = num_tables * rows_per_table
        device = _table_device()
        row_bytes = (dim // 2 + 4 + 15) // 16 * 16
        packed = torch.randint(0, 256, (rows, dim // 2), dtype=torch.uint8, device=device)
        scale = torch.rand(rows, device=device).mul_(0.04).add_(0.03)
        bias = torch.randn(rows, device=device).mul_(0.05).sub_(scale * 7.5)
        header = torch.stack([scale.half(), bias.half()], dim=1).view(torch.uint8)
        pad = torch.zeros(rows, row_bytes - dim // 2 - 4, dtype=torch.uint8, device=device)
        self.register_buffer("table", torch.cat([packed, header, pad], dim=1))
        self.register_buffer("table_start", torch.arange(num_tables, device=device) * rows_per_table)
        self.dim = dim

    def forward(self, indices):
        tables, batch, bag = indices.shape
        half = self.dim // 2
        rows = self.table.index_select(0, (indices + self.table_start.view(-1, 1, 1)).reshape(-1))
        scale = rows[:, half:half + 2].contiguous().view(torch.float16).float()
        bias = rows[:, half + 2:half + 4].contiguous().view(torch.float16).float()
        packed = rows[:, :half]
        q = torch.stack([packed >> 4, packed & 15], dim=2).reshape(rows.shape[0], self.dim).float()
        pooled = (q * scale + bias).view(tables, batch, bag, self.dim).sum(2)
        return pooled.permute(1, 0, 2).reshape(batch, tables * self.dim).half()
