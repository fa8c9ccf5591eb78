"""What the DLRM workloads share: MLPerf DLRMv2's embedding tables and multi-hot inputs."""
import torch
import torch.nn as nn

# MLPerf DLRMv2 (Criteo 1TB) table sizes and multi-hot sizes (bag length per sample), as in the
# MLPerf training reference's multi-hot synthesis.
TABLE_ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
              2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
DENSE_FEATURES = 13


def add_args(p):
    p.add_argument("--batch", type=int)
    p.add_argument("--dim", type=int, help="embedding dimension")
    p.add_argument("--max-rows", type=int, help="cap on rows per table (the largest have 40M)")


class Tables(nn.Module):
    """The 26 tables, one nn.EmbeddingBag each (sum pooling, sparse gradients)."""

    def __init__(self, rows, dim, device):
        super().__init__()
        self.bags = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum", sparse=True, device=device) for n in rows)

    def forward(self, sparse):
        return [bag(idx, off) for bag, (idx, off) in zip(self.bags, sparse)]


def tables_and_inputs(args):
    """The tables (rows capped at --max-rows) and one batch: dense features, per table (indices,
    offsets) with uniform indices and MLPerf's fixed bag lengths, and click labels."""
    dev, b = args.device, args.batch
    rows = [min(n, args.max_rows) for n in TABLE_ROWS]
    tables = Tables(rows, args.dim, dev)
    dense = torch.randn(b, DENSE_FEATURES, device=dev)
    sparse = []
    for n, hot in zip(rows, MULTI_HOT):
        idx = torch.randint(0, n, (b * hot,), device=dev)
        off = torch.arange(0, b * hot, hot, device=dev)
        sparse.append((idx, off))
    label = torch.rand(b, 1, device=dev).round()
    return tables, dense, sparse, label
