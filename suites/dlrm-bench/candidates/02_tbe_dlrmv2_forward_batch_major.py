# Trap (layout convention): the ids read batch-major (sample by sample, tables inside) instead of
# KJT's table-major order. Same ids, same tables, wrong bags. Must be rejected.
import torch
import torch.nn as nn


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, table_rows, pooling, dim):
        super().__init__()
        self.table_rows = list(table_rows)
        self.pooling = list(pooling)
        self.row_offsets = [sum(self.table_rows[:t]) for t in range(len(self.table_rows))]
        weight = torch.randn(sum(self.table_rows), dim, device=_table_device(), dtype=torch.bfloat16)
        self.weight = nn.Parameter(weight.mul_(0.25), requires_grad=False)

    def forward(self, values):
        per_sample = sum(self.pooling)
        batch = values.numel() // per_sample
        samples = values.view(batch, per_sample)
        pooled = []
        at = 0
        for rows, pool, first in zip(self.table_rows, self.pooling, self.row_offsets):
            ids = samples[:, at:at + pool].clamp(max=rows - 1)
            at += pool
            table = self.weight[first:first + rows]
            pooled.append(table.index_select(0, ids.reshape(-1)).float().view(batch, pool, -1).sum(1))
        return torch.cat(pooled, dim=1).to(torch.bfloat16)
