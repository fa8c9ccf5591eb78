# DLRM-Bench 04: table-batched EmbeddingBag backward with a fused row-wise Adagrad step (FBGEMM's
# EXACT_ROWWISE_ADAGRAD, TorchRec's RowWiseAdagrad), sum pooling. 8 tables of 2M rows, D = 128,
# B = 16384, 20 Zipf(1.15) ids per bag, so rows repeat across bags and within a bag. The gradient of
# a row is the sum of grad_out over every occurrence; the optimizer is non-linear in it, so it runs
# once per distinct row:
#   G[r] = sum over lookups i of row r of grad_out[bag(i), table(i)]
#   m'[r] = m[r] + mean_d(G[r]^2);   w'[r] = w[r] - lr * G[r] / (sqrt(m'[r]) + eps)
# The module's own weight and momentum are left untouched (a harness calls forward many times): it
# returns the distinct rows (global ids, ascending, int64), their new weights and new momentum.
# indices [T, B, L] are table-local; table t's rows start at t * rows_per_table; grad_out is
# [B, T * D], table t in columns t*D .. t*D+D-1. Shapes and the trap list:
# suites/dlrm-bench/README.md; metadata: 04_tbe_backward_rowwise_adagrad.toml.
# DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(num_tables=8, rows_per_table=2_000_000, dim=128, batch=16384, bag=20, alpha=1.15),
    "cpu": dict(num_tables=3, rows_per_table=2000, dim=128, batch=32, bag=20, alpha=1.15),
}
LEARNING_RATE = 0.05
EPS = 1e-8


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
        per_lookup = grad_out.view(batch, tables, dim).transpose(0, 1).unsqueeze(2)
        per_lookup = per_lookup.expand(tables, batch, bag, dim).reshape(-1, dim)
        unique, inverse = torch.unique(rows, sorted=True, return_inverse=True)
        grad = torch.zeros(unique.numel(), dim, device=grad_out.device).index_add_(0, inverse, per_lookup)
        momentum = self.momentum[unique] + grad.pow(2).mean(1)
        weight = self.weight[unique] - self.lr * grad / (momentum.sqrt() + self.eps).unsqueeze(1)
        return unique, weight, momentum


def get_inputs():
    p = _preset()
    n = p["num_tables"] * p["batch"] * p["bag"]
    ids = zipf_ids(n, p["rows_per_table"], p["alpha"]).view(p["num_tables"], p["batch"], p["bag"])
    return [ids, torch.randn(p["batch"], p["num_tables"] * p["dim"])]


def get_init_inputs():
    p = _preset()
    return [p["num_tables"], p["rows_per_table"], p["dim"], LEARNING_RATE, EPS]
