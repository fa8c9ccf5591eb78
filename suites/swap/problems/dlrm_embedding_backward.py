# The DLRM workload's embedding backward with its fused row-wise Adagrad update (workloads/dlrm.py
# --table-optimizer rowwise-adagrad, large preset) as one problem: for each of the 26 tables, the
# pooled gradient [B, D] of its bags (B = 16384, MLPerf's fixed bag lengths, uniform ids) turned into
# the distinct rows it touches, their new weights and new momentum:
#   G[r] = sum over r's lookups of grad_out[bag];  m' = m + mean_d(G^2);  w' = w - lr G / (sqrt(m') + eps)
# with lr 0.004, eps 1e-8, as the workload. The tables are not written (the harness calls forward many
# times); the workload writes the returned rows back outside what this problem times, the same on both
# arms. The eager reference is the workload's own (workloads/swap.py, rowwise_adagrad_rows_reference).
# What `--swap embedding` replaces in the workload's backward (suites/swap/README.md).
# DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

TABLE_ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
              2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
LEARNING_RATE = 0.004
EPS = 1e-8

PRESETS = {
    "large": dict(batch=16384, dim=128, max_rows=4_000_000),
    "cpu": dict(batch=8, dim=16, max_rows=1000),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class Model(nn.Module):
    def __init__(self, table_rows, multi_hot, dim, lr, eps):
        super().__init__()
        device = _table_device()
        self.multi_hot = list(multi_hot)
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(n, dim, device=device), requires_grad=False) for n in table_rows)
        for t, n in enumerate(table_rows):
            self.register_buffer(f"momentum{t}", torch.rand(n, device=device))
        self.lr = lr
        self.eps = eps

    def forward(self, values, grad_out):
        # values: every table's ids, table-major; grad_out [T, B, D]: each table's pooled gradient.
        batch, dim = grad_out.shape[1], grad_out.shape[2]
        out, at = [], 0
        for t, (weight, hot) in enumerate(zip(self.weights, self.multi_hot)):
            ids = values[at:at + batch * hot]
            at += batch * hot
            per_lookup = grad_out[t].unsqueeze(1).expand(batch, hot, dim).reshape(-1, dim)
            unique, inverse = torch.unique(ids, sorted=True, return_inverse=True)
            grad = torch.zeros(unique.numel(), dim, device=grad_out.device).index_add_(0, inverse, per_lookup)
            momentum = getattr(self, f"momentum{t}")[unique] + grad.pow(2).mean(1)
            out += [unique, weight[unique] - self.lr * grad / (momentum.sqrt() + self.eps).unsqueeze(1), momentum]
        return tuple(out)


def get_inputs():
    p = _preset()
    rows = [min(n, p["max_rows"]) for n in TABLE_ROWS]
    b = p["batch"]
    values = torch.cat([torch.randint(0, n, (b * hot,)) for n, hot in zip(rows, MULTI_HOT)])
    return [values, torch.randn(len(rows), b, p["dim"])]


def get_init_inputs():
    p = _preset()
    return [[min(n, p["max_rows"]) for n in TABLE_ROWS], MULTI_HOT, p["dim"], LEARNING_RATE, EPS]
