# Trap (mask convention): a strictly causal mask (m < n): each position no longer attends to itself,
# which HSTU's mask includes. Must be rejected.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, max_seq_len, alpha):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.alpha = alpha
        self.register_buffer("causal", torch.tril(torch.ones(max_seq_len, max_seq_len, dtype=torch.bool), diagonal=-1))

    def forward(self, q, k, v, seq_offsets):
        n = self.max_seq_len
        total = q.shape[0]
        lengths = seq_offsets[1:] - seq_offsets[:-1]
        position = torch.arange(n, device=q.device)
        valid = position.unsqueeze(0) < lengths.unsqueeze(1)
        source = (seq_offsets[:-1].unsqueeze(1) + position.unsqueeze(0)).clamp_(0, total - 1)
        mask = valid.unsqueeze(2).unsqueeze(3)
        zero = torch.zeros((), dtype=q.dtype, device=q.device)
        qp, kp, vp = (torch.where(mask, x[source], zero) for x in (q, k, v))
        scores = torch.einsum("bnhd,bmhd->bhnm", qp, kp) * self.alpha
        weights = (F.silu(scores) / n) * self.causal
        dense = torch.einsum("bhnm,bmhd->bnhd", weights, vp)
        row = torch.arange(total, device=q.device)
        sequence = torch.searchsorted(seq_offsets, row, right=True) - 1
        return dense[sequence, row - seq_offsets[sequence]]
