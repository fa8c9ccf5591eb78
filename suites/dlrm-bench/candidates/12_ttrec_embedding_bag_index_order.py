# Trap (index convention): the id decomposed with the first core varying fastest
# (i1 = id % p1, ...) instead of the last. A valid TT table, not the problem's. Must be rejected.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, p, q, ranks):
        super().__init__()
        self.p = list(p)
        self.G1 = nn.Parameter(torch.randn(p[0], q[0], ranks[0]).mul_(0.2), requires_grad=False)
        self.G2 = nn.Parameter(torch.randn(p[1], ranks[0], q[1], ranks[1]).mul_(0.2), requires_grad=False)
        self.G3 = nn.Parameter(torch.randn(p[2], ranks[1], q[2]).mul_(0.2), requires_grad=False)

    def forward(self, indices, offsets):
        p1, p2 = self.p[0], self.p[1]
        i1 = indices % p1
        i2 = torch.div(indices, p1, rounding_mode="floor") % p2
        i3 = torch.div(indices, p1 * p2, rounding_mode="floor")
        a = self.G1[i1]
        b = self.G2[i2].flatten(2)
        c = self.G3[i3]
        partial = torch.bmm(a, b).view(-1, a.shape[1] * self.G2.shape[2], self.G2.shape[3])
        rows = torch.bmm(partial, c).flatten(1)
        batch = offsets.numel() - 1
        bag = torch.repeat_interleave(torch.arange(batch, device=indices.device), offsets[1:] - offsets[:-1],
                                      output_size=indices.numel())
        return torch.zeros(batch, rows.shape[1], device=rows.device).index_add_(0, bag, rows)
