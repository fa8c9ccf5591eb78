# The DLRM workload's embedding forward (workloads/dlrm.py, large preset) as one problem: 26
# EmbeddingBag tables (sum pooling, fp32, D = 128, MLPerf DLRMv2's table sizes capped at 4M rows) at
# batch 16384 with MLPerf's fixed multi-hot bag lengths (1 to 100 ids, 214 per sample), uniform ids,
# offsets of B + 1 entries per table. What `--swap embedding` replaces in the workload's forward, at
# its shapes: the speedup `headroom eval` measures here is the one `headroom check-swap` is given
# (suites/swap/README.md). DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# MLPerf DLRMv2 (Criteo 1TB) table sizes and multi-hot sizes, as workloads/recsys.py.
TABLE_ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
              2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]

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
    # Gigabytes of tables are drawn where they will live: the CPU's generator takes tens of seconds.
    return "cuda" if torch.cuda.is_available() else "cpu"


class Model(nn.Module):
    def __init__(self, table_rows, multi_hot, dim):
        super().__init__()
        self.multi_hot = list(multi_hot)
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(n, dim, device=_table_device()), requires_grad=False) for n in table_rows)

    def forward(self, values, offsets):
        # values: every table's ids, table-major (table t's B * multi_hot[t] ids after table t-1's);
        # offsets [T, B + 1]: each table's bags, relative to its own ids.
        batch = offsets.shape[1] - 1
        pooled, at = [], 0
        for t, (weight, hot) in enumerate(zip(self.weights, self.multi_hot)):
            ids = values[at:at + batch * hot]
            at += batch * hot
            pooled.append(F.embedding_bag(ids, weight, offsets[t], mode="sum", include_last_offset=True))
        return tuple(pooled)


def get_inputs():
    p = _preset()
    rows = [min(n, p["max_rows"]) for n in TABLE_ROWS]
    b = p["batch"]
    values = torch.cat([torch.randint(0, n, (b * hot,)) for n, hot in zip(rows, MULTI_HOT)])
    offsets = torch.stack([torch.arange(0, b * hot + 1, hot) for hot in MULTI_HOT])
    return [values, offsets]


def get_init_inputs():
    p = _preset()
    return [[min(n, p["max_rows"]) for n in TABLE_ROWS], MULTI_HOT, p["dim"]]
