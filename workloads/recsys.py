"""What the DLRM workloads share: MLPerf DLRMv2's embedding tables and multi-hot inputs, and the
tables' optimizer when it is fused into their backward (row-wise Adagrad, swap.py)."""
import torch
import torch.nn as nn

import swap

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
    p.add_argument("--table-optimizer", choices=["sparse", "rowwise-adagrad"], default="sparse",
                   help="training: sparse (the tables' sparse gradients to the workload's optimizer, the study's) or "
                        "rowwise-adagrad (fused into the tables' backward, as FBGEMM's table-batched embeddings; the "
                        "backward `--swap embedding` replaces)")


# MLPerf DLRMv2's Adagrad settings, also the fused row-wise Adagrad's.
ROWWISE_LR = 0.004
ROWWISE_EPS = 1e-8


def check_swap_args(args):
    """--swap embedding in training replaces the backward with its fused optimizer update: the tables
    must be trained that way on both arms."""
    if "embedding" in args.swap and args.mode == "train" and args.table_optimizer != "rowwise-adagrad":
        import common
        common.fail("--swap embedding in training replaces the tables' backward with its fused row-wise Adagrad "
                    "update (DLRM-Bench 04): give --table-optimizer rowwise-adagrad (to the run before the swap too)")


class Tables(nn.Module):
    """The 26 tables, one nn.EmbeddingBag each (sum pooling, offsets with B + 1 entries, sparse
    gradients); with rowwise_adagrad, each table's backward updates it in place (swap.py) and the
    tables get no gradient for the workload's optimizer."""

    def __init__(self, rows, dim, device, rowwise_adagrad=False):
        super().__init__()
        self.bags = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum", sparse=True, include_last_offset=True, device=device)
                                  for n in rows)
        self.rowwise_adagrad = rowwise_adagrad
        if rowwise_adagrad:
            for i, n in enumerate(rows):
                self.register_buffer(f"momentum{i}", torch.zeros(n, device=device))

    def forward(self, sparse):
        if self.rowwise_adagrad and torch.is_grad_enabled():
            return [swap.rowwise_adagrad_lookup(bag.weight, getattr(self, f"momentum{i}"), idx, off, hot,
                                                ROWWISE_LR, ROWWISE_EPS)
                    for i, (bag, (idx, off), hot) in enumerate(zip(self.bags, sparse, MULTI_HOT))]
        if swap.enabled("embedding"):
            return [swap.embedding_bag(bag, idx, off) for bag, (idx, off) in zip(self.bags, sparse)]
        return [bag(idx, off) for bag, (idx, off) in zip(self.bags, sparse)]


def tables_and_inputs(args):
    """The tables (rows capped at --max-rows) and one batch: dense features, per table (indices,
    offsets of B + 1 entries) with uniform indices and MLPerf's fixed bag lengths, and click labels."""
    dev, b = args.device, args.batch
    rows = [min(n, args.max_rows) for n in TABLE_ROWS]
    tables = Tables(rows, args.dim, dev, rowwise_adagrad=args.mode == "train" and args.table_optimizer == "rowwise-adagrad")
    dense = torch.randn(b, DENSE_FEATURES, device=dev)
    sparse = []
    for n, hot in zip(rows, MULTI_HOT):
        idx = torch.randint(0, n, (b * hot,), device=dev)
        off = torch.arange(0, b * hot + 1, hot, device=dev)
        sparse.append((idx, off))
    label = torch.rand(b, 1, device=dev).round()
    return tables, dense, sparse, label
