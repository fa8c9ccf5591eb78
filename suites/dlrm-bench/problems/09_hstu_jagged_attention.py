# DLRM-Bench 09: HSTU jagged causal attention forward (generative-recommenders pytorch_hstu_mha,
# without relative bias or targets), bf16. q, k, v [sum of lengths, H = 4, 128] jagged by
# seq_offsets [B + 1], B = 32, max_seq_len N = 2048, lengths uniform in [0.9 N, N) (the benchmark's
# generate_sparse_seq_len at sparsity 0.95). For each sequence and head:
#   out[n] = sum over m <= n of silu(alpha * q[n] . k[m]) / N * v[m],   alpha = 1/128 (1/attn_dim)
# Every step rounds to bf16 as the eager bf16 reference does (q k^T, then silu, then the division by
# N; alpha and 1/N are powers of two, so those scalings are exact). Shapes and the trap list:
# suites/dlrm-bench/README.md; metadata: 09_hstu_jagged_attention.toml. DLRM_BENCH_PRESET=cpu
# selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "large": dict(batch=32, max_seq_len=2048, heads=4, head_dim=128, shortest=0.9),
    "cpu": dict(batch=3, max_seq_len=64, heads=2, head_dim=128, shortest=0.5),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, max_seq_len, alpha):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.alpha = alpha
        self.register_buffer("causal", torch.tril(torch.ones(max_seq_len, max_seq_len, dtype=torch.bool)))

    def forward(self, q, k, v, seq_offsets):
        n = self.max_seq_len
        total = q.shape[0]
        lengths = seq_offsets[1:] - seq_offsets[:-1]
        position = torch.arange(n, device=q.device)
        valid = position.unsqueeze(0) < lengths.unsqueeze(1)
        source = (seq_offsets[:-1].unsqueeze(1) + position.unsqueeze(0)).clamp_(0, total - 1)
        mask = valid.unsqueeze(2).unsqueeze(3)
        zero = torch.zeros((), dtype=q.dtype, device=q.device)
        qp, kp, vp = (torch.where(mask, x[source], zero) for x in (q, k, v))  # [B, N, H, D]
        scores = torch.einsum("bnhd,bmhd->bhnm", qp, kp) * self.alpha
        weights = (F.silu(scores) / n) * self.causal
        dense = torch.einsum("bhnm,bmhd->bnhd", weights, vp)
        row = torch.arange(total, device=q.device)
        sequence = torch.searchsorted(seq_offsets, row, right=True) - 1
        return dense[sequence, row - seq_offsets[sequence]]


def get_inputs():
    p = _preset()
    n = p["max_seq_len"]
    lengths = torch.randint(int(p["shortest"] * n), n, (p["batch"],))
    offsets = torch.zeros(p["batch"] + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(lengths, 0)
    total = int(offsets[-1])
    shape = (total, p["heads"], p["head_dim"])
    return [torch.randn(shape, dtype=torch.bfloat16), torch.randn(shape, dtype=torch.bfloat16),
            torch.randn(shape, dtype=torch.bfloat16), offsets]


def get_init_inputs():
    p = _preset()
    return [p["max_seq_len"], 1.0 / p["head_dim"]]
