# Trap (ordering convention): unique without sorting (a hash table's order), inverse and counts
# consistent with it. A valid dedup, not the problem's sorted one. Must be rejected (exact check).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, buckets):
        super().__init__()
        self.buckets = buckets

    def forward(self, raw_ids):
        hashed = torch.remainder(raw_ids, self.buckets)
        unique, inverse, counts = torch.unique(hashed, sorted=True, return_inverse=True, return_counts=True)
        # The order of first appearance, as a hash table would leave it.
        first = torch.full_like(unique, hashed.numel()).scatter_reduce_(
            0, inverse, torch.arange(hashed.numel(), device=hashed.device), reduce="amin")
        order = torch.argsort(first)
        rank = torch.empty_like(order)
        rank[order] = torch.arange(order.numel(), device=order.device)
        return unique[order], rank[inverse], counts[order]
