"""DLRMv2 (MLPerf Training's DLRM-DCNv2): the 26 tables of dim 128 with MLPerf's multi-hot sizes
(rows capped so the model fits one GPU), bottom MLP 13-512-256-128, the DCNv2 low-rank cross network
(3 layers of rank 512: x <- x0 * (W (V x) + b) + x, as TorchRec's LowRankCrossNet) over the 27 x 128
= 3456 concatenated features, top MLP 1024-1024-512-256-1, a logit and BCEWithLogitsLoss. Training
with Adagrad as the reference (sparse Adagrad for the tables). The large preset is one GPU's share of
MLPerf's global batch (8192). --compile compiles the bottom MLP and the cross network with the top
MLP; the tables stay eager. --swap cross runs the cross network in bf16 (from fp32 weights, both
arms) with its forward by DLRM-Bench 06's kernel or PyTorch's (swap.py).

Example:  python3 workloads/dlrmv2.py --mode train --profile torch --trace dlrmv2_train.json.gz
"""
import torch
import torch.nn as nn

import common
import recsys
import swap
from layers import mlp

PRESETS = {
    "large": dict(batch=8192, dim=128, max_rows=4_000_000, cross_layers=3, cross_rank=512,
                 steps={"train": 60, "infer": 200}, warmup=3),
    "tiny": dict(batch=8, dim=16, max_rows=1000, cross_layers=2, cross_rank=8, steps=3, warmup=1),
}


class LowRankCross(nn.Module):
    """DCNv2's cross network with low-rank weights W V (rank r): x_{l+1} = x0 * (W_l V_l x_l + b_l) + x_l."""

    def __init__(self, width, layers, rank, device):
        super().__init__()
        self.down = nn.ModuleList(nn.Linear(width, rank, bias=False, device=device) for _ in range(layers))
        self.up = nn.ModuleList(nn.Linear(rank, width, device=device) for _ in range(layers))

    def forward(self, x0):
        if swap.enabled("cross"):
            return self.swappable(x0)
        x = x0
        for down, up in zip(self.down, self.up):
            x = x0 * up(down(x)) + x
        return x

    def swappable(self, x0):
        """The same network as one operator (`--swap cross`): bf16 weights stacked per layer from the
        fp32 ones (gradients flow back through the casts), in and out of bf16 around it."""
        low = torch.bfloat16 if x0.is_cuda else x0.dtype  # Debian's CPU PyTorch: fp32 on the tiny preset
        V = torch.stack([d.weight for d in self.down]).to(low)
        W = torch.stack([u.weight for u in self.up]).to(low)
        b = torch.stack([u.bias for u in self.up]).to(low)
        return swap.cross_network(x0.to(low).contiguous(), V, W, b).to(x0.dtype)


class Over(nn.Module):
    """The dense features beside the pooled embeddings, crossed, then the top MLP to a logit."""

    def __init__(self, features, dim, layers, rank, device):
        super().__init__()
        self.cross = LowRankCross(features * dim, layers, rank, device)
        self.top = mlp([features * dim, 1024, 1024, 512, 256, 1], device)

    def forward(self, x, embedded):
        return self.top(self.cross(torch.cat([x] + embedded, dim=1)))


class DLRMv2(nn.Module):
    def __init__(self, tables, dim, layers, rank, device):
        super().__init__()
        self.tables = tables
        self.bottom = mlp([recsys.DENSE_FEATURES, 512, 256, dim], device)
        self.over = Over(len(tables.bags) + 1, dim, layers, rank, device)

    def forward(self, dense, sparse):
        return self.over(self.bottom(dense), self.tables(sparse))


def add_args(p):
    recsys.add_args(p)
    p.add_argument("--cross-layers", type=int)
    p.add_argument("--cross-rank", type=int)


def build(args):
    recsys.check_swap_args(args)
    tables, dense, sparse, label = recsys.tables_and_inputs(args)
    model = DLRMv2(tables, args.dim, args.cross_layers, args.cross_rank, args.device)
    model = common.compile_regions(args, model, [(model, "bottom"), (model, "over")])
    desc = (f"dlrmv2 26 tables dim{args.dim} batch{args.batch} rows<= {args.max_rows} "
            f"dcnv2 {args.cross_layers}x rank{args.cross_rank}")
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            torch.sigmoid(model(dense, sparse))
        return step, desc

    # MLPerf's reference: Adagrad (lr 0.004, eps 1e-8) on both; the tables' gradients are sparse,
    # which only the one-tensor-at-a-time implementation takes. With --table-optimizer
    # rowwise-adagrad the tables update themselves in their backward.
    dense_params = [p for name, p in model.named_parameters() if not name.startswith("tables.")]
    dense_opt = torch.optim.Adagrad(dense_params, lr=0.004, eps=1e-8)
    optimizers = [dense_opt]
    if not tables.rowwise_adagrad:
        optimizers.insert(0, torch.optim.Adagrad(model.tables.parameters(), lr=0.004, eps=1e-8, foreach=False))
    loss_fn = nn.BCEWithLogitsLoss()

    def step():
        common.backward_and_step(loss_fn(model(dense, sparse), label), *optimizers)
    return step, desc


if __name__ == "__main__":
    common.run(build, add_args, PRESETS, swaps=("embedding", "cross"))
