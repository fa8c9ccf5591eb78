# Trap (duplicates): row-wise Adagrad applied per lookup with that lookup's gradient alone, the
# duplicates of a row then resolved by the last write, as a kernel that skips the sort/segment step
# would. Right for rows seen once; wrong for every repeated row (the optimizer is not linear in the
# gradient). Must be rejected.
import torch
import torch.nn as nn


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_tables, rows_per_table, dim, lr, eps):
        super().__init__()
        device = _table_device()
        rows = num_tables * rows_per_table
        self.weight = nn.Parameter(torch.randn(rows, dim, device=device), requires_grad=False)
        self.register_buffer("momentum", torch.rand(rows, device=device))
        self.register_buffer("table_start", torch.arange(num_tables, device=device) * rows_per_table)
        self.lr = lr
        self.eps = eps

    def forward(self, indices, grad_out):
        tables, batch, bag = indices.shape
        dim = self.weight.shape[1]
        rows = (indices + self.table_start.view(-1, 1, 1)).reshape(-1)
        grad = grad_out.view(batch, tables, dim).transpose(0, 1).unsqueeze(2)
        grad = grad.expand(tables, batch, bag, dim).reshape(-1, dim)
        momentum = self.momentum[rows] + grad.pow(2).mean(1)
        weight = self.weight[rows] - self.lr * grad / (momentum.sqrt() + self.eps).unsqueeze(1)
        unique, inverse = torch.unique(rows, sorted=True, return_inverse=True)
        last = torch.zeros(unique.numel(), dtype=torch.long, device=rows.device)
        last.scatter_reduce_(0, inverse, torch.arange(rows.numel(), device=rows.device), reduce="amax")
        return unique, weight[last], momentum[last]
