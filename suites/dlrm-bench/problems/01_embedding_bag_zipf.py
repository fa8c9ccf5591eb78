# DLRM-Bench 01: EmbeddingBag sum over one 10M-row fp32 table, Zipf(1.15) indices, variable bags.
# The pooled lookup every DLRM forward starts with (nn.EmbeddingBag(mode="sum")). Bags hold 0 to 40
# indices (mean 20, some empty), offsets have B + 1 entries (include_last_offset), hot rows repeat
# within and across bags. Shapes and the trap list: suites/dlrm-bench/README.md; metadata:
# 01_embedding_bag_zipf.toml. DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "large": dict(num_rows=10_000_000, dim=128, batch=65536, max_bag=40, alpha=1.15),
    "cpu": dict(num_rows=4000, dim=128, batch=96, max_bag=40, alpha=1.15),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


def _table_device():
    # Multi-gigabyte tables are drawn where they will live: the CPU's generator takes tens of seconds.
    return "cuda" if torch.cuda.is_available() else "cpu"


def zipf_ids(n, num_rows, alpha):
    """n ids in [0, num_rows): ranks of a bounded power law P(r) ~ r^-alpha by inverse CDF (float64),
    scattered over the table by the bijection r -> (r * (2^31 - 1) + 40503) mod num_rows."""
    u = torch.rand(n, dtype=torch.float64)
    a = 1.0 - alpha
    rank = ((num_rows ** a - 1.0) * u + 1.0) ** (1.0 / a)
    rank = rank.long().clamp_(1, num_rows) - 1
    return (rank * 2147483647 + 40503) % num_rows


class Model(nn.Module):
    def __init__(self, num_rows, dim):
        super().__init__()
        weight = torch.randn(num_rows, dim, device=_table_device()).mul_(0.25)
        self.weight = nn.Parameter(weight, requires_grad=False)

    def forward(self, indices, offsets):
        return F.embedding_bag(indices, self.weight, offsets, mode="sum", include_last_offset=True)


def get_inputs():
    p = _preset()
    lengths = torch.randint(0, p["max_bag"] + 1, (p["batch"],))
    offsets = torch.zeros(p["batch"] + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(lengths, 0)
    indices = zipf_ids(int(offsets[-1]), p["num_rows"], p["alpha"])
    return [indices, offsets]


def get_init_inputs():
    p = _preset()
    return [p["num_rows"], p["dim"]]
