# DLRM-Bench 02: table-batched EmbeddingBag forward over MLPerf DLRMv2's 26 tables (bf16, D = 128)
# at DLRMv2's multi-hot pooling factors (1 to 100 ids per table and sample, 214 per sample in all).
# The 40M-row tables are capped at 4M rows so that Model and ModelNew fit one H200 together.
# Ids are table-local and table-major (KJT order): table t's B bags of pooling[t] ids each follow
# table t-1's. The output is batch-major [B, 26 * 128], table t in columns t*128 .. t*128+127, as
# TorchRec's EmbeddingBagCollection and FBGEMM's TBE lay it out. Rows are summed in fp32 and the sum
# rounded once to bf16 (what PyTorch's CUDA embedding_bag does for bf16 weights). Shapes and the trap
# list: suites/dlrm-bench/README.md; metadata: 02_tbe_dlrmv2_forward.toml. DLRM_BENCH_PRESET=cpu
# selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# mlcommons/training recommendation_v2 (DLRMv2): table sizes and multi-hot sizes.
DLRMV2_ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209,
               11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
DLRMV2_POOLING = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]

PRESETS = {
    "large": dict(row_cap=4_000_000, dim=128, batch=8192, alpha=1.05),
    "cpu": dict(row_cap=3000, dim=128, batch=16, alpha=1.05),
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
    def __init__(self, table_rows, pooling, dim):
        super().__init__()
        self.table_rows = list(table_rows)
        self.pooling = list(pooling)
        self.row_offsets = [sum(self.table_rows[:t]) for t in range(len(self.table_rows))]
        weight = torch.randn(sum(self.table_rows), dim, device=_table_device(), dtype=torch.bfloat16)
        self.weight = nn.Parameter(weight.mul_(0.25), requires_grad=False)

    def forward(self, values):
        batch = values.numel() // sum(self.pooling)
        pooled = []
        at = 0
        for rows, pool, first in zip(self.table_rows, self.pooling, self.row_offsets):
            ids = values[at:at + batch * pool].view(batch, pool)
            table = self.weight[first:first + rows]
            at += batch * pool
            if table.is_cuda:
                pooled.append(F.embedding_bag(ids, table, mode="sum"))
            else:  # the CPU's embedding_bag has no bf16 kernel: the same fp32 sum, rounded once
                pooled.append(table.index_select(0, ids.reshape(-1)).float().view(batch, pool, -1)
                              .sum(1).to(torch.bfloat16))
        return torch.cat(pooled, dim=1)


def get_inputs():
    p = _preset()
    rows = [min(r, p["row_cap"]) for r in DLRMV2_ROWS]
    return [torch.cat([zipf_ids(p["batch"] * pool, n, p["alpha"]) for n, pool in zip(rows, DLRMV2_POOLING)])]


def get_init_inputs():
    p = _preset()
    return [[min(r, p["row_cap"]) for r in DLRMV2_ROWS], DLRMV2_POOLING, p["dim"]]
