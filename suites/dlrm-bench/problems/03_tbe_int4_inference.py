# DLRM-Bench 03: INT4 row-wise quantized table-batched EmbeddingBag, inference (fp16 out).
# 32 tables of 1M rows, D = 128, 20 ids per bag (FBGEMM's nbit inference benchmark with 10x its
# rows), Zipf(1.09) ids (FBGEMM's recommendation for inference). A row is PyTorch's 4-bit row-wise
# layout (torch.ops.quantized.embedding_bag_4bit_prepack): D/2 bytes of packed values, element 2i in
# the LOW nibble of byte i and 2i+1 in the high one, then an fp16 scale and an fp16 bias; padded with
# zeros to a multiple of 16 bytes (80 bytes for D = 128) as FBGEMM pads TBE rows. Value = q * scale
# + bias, summed per bag in fp32, the sum rounded once to fp16. indices [T, B, L] are table-local.
# Output [B, T * D], table t in columns t*D .. t*D+D-1. Shapes and the trap list:
# suites/dlrm-bench/README.md; metadata: 03_tbe_int4_inference.toml. DLRM_BENCH_PRESET=cpu selects
# the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(num_tables=32, rows_per_table=1_000_000, dim=128, batch=4096, bag=20, alpha=1.09),
    "cpu": dict(num_tables=4, rows_per_table=2000, dim=128, batch=24, bag=20, alpha=1.09),
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
    def __init__(self, num_tables, rows_per_table, dim):
        super().__init__()
        rows = num_tables * rows_per_table
        device = _table_device()
        row_bytes = (dim // 2 + 4 + 15) // 16 * 16
        packed = torch.randint(0, 256, (rows, dim // 2), dtype=torch.uint8, device=device)
        scale = torch.rand(rows, device=device).mul_(0.04).add_(0.03)
        bias = torch.randn(rows, device=device).mul_(0.05).sub_(scale * 7.5)
        header = torch.stack([scale.half(), bias.half()], dim=1).view(torch.uint8)
        pad = torch.zeros(rows, row_bytes - dim // 2 - 4, dtype=torch.uint8, device=device)
        self.register_buffer("table", torch.cat([packed, header, pad], dim=1))
        self.register_buffer("table_start", torch.arange(num_tables, device=device) * rows_per_table)
        self.dim = dim

    def forward(self, indices):
        tables, batch, bag = indices.shape
        half = self.dim // 2
        rows = self.table.index_select(0, (indices + self.table_start.view(-1, 1, 1)).reshape(-1))
        scale = rows[:, half:half + 2].contiguous().view(torch.float16).float()
        bias = rows[:, half + 2:half + 4].contiguous().view(torch.float16).float()
        packed = rows[:, :half]
        q = torch.stack([packed & 15, packed >> 4], dim=2).reshape(rows.shape[0], self.dim).float()
        pooled = (q * scale + bias).view(tables, batch, bag, self.dim).sum(2)
        return pooled.permute(1, 0, 2).reshape(batch, tables * self.dim).half()


def get_inputs():
    p = _preset()
    n = p["num_tables"] * p["batch"] * p["bag"]
    ids = zipf_ids(n, p["rows_per_table"], p["alpha"])
    return [ids.view(p["num_tables"], p["batch"], p["bag"])]


def get_init_inputs():
    p = _preset()
    return [p["num_tables"], p["rows_per_table"], p["dim"]]
