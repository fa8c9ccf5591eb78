"""DLRM-style recommender: 26 nn.EmbeddingBag tables (sum pooling, multi-hot as in MLPerf DLRMv2,
rows capped so the model fits one GPU), bottom MLP 13-512-256-128, dot interaction, top MLP
479-1024-1024-512-256-1. Training uses sparse embedding gradients and SGD, as the reference DLRM does.

Example:  python3 workloads/dlrm.py --mode train --profile torch --trace dlrm_train.json.gz
"""
import torch
import torch.nn as nn

import common

# MLPerf DLRMv2 (Criteo 1TB) table sizes and multi-hot sizes, as in MLPerf's DLRMv2 reference.
TABLE_ROWS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
              2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]


def mlp(sizes, last_sigmoid=False):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    if last_sigmoid:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, rows, dim):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum", sparse=True) for n in rows)
        self.bottom = mlp([13, 512, 256, dim])
        n = len(rows) + 1
        self.top = mlp([dim + n * (n - 1) // 2, 1024, 1024, 512, 256, 1], last_sigmoid=True)
        self.tri = torch.tril_indices(n, n, offset=-1)

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        feats = [x] + [t(idx, off) for t, (idx, off) in zip(self.tables, sparse)]
        z = torch.stack(feats, dim=1)
        inter = torch.bmm(z, z.transpose(1, 2))[:, self.tri[0], self.tri[1]]
        return self.top(torch.cat([x, inter], dim=1))


def add_args(p):
    p.add_argument("--batch", type=int, default=16384)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--max-rows", type=int, default=4_000_000, help="cap on rows per table")


def build(args):
    dev = "cuda"
    rows = [min(n, args.max_rows) for n in TABLE_ROWS]
    model = DLRM(rows, args.dim).to(dev)
    model.tri = model.tri.to(dev)
    b = args.batch
    dense = torch.randn(b, 13, device=dev)
    sparse = []
    for n, hot in zip(rows, MULTI_HOT):
        idx = torch.randint(0, n, (b * hot,), device=dev)
        off = torch.arange(0, b * hot, hot, device=dev)
        sparse.append((idx, off))
    label = torch.rand(b, 1, device=dev).round()
    desc = f"dlrm 26 tables dim{args.dim} batch{b} rows<= {args.max_rows}"
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            model(dense, sparse)
        return step, desc

    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.BCELoss()

    def step():
        loss = loss_fn(model(dense, sparse), label)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args)
