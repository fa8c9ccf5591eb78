"""DLRM-style recommender: 26 nn.EmbeddingBag tables (sum pooling, MLPerf DLRMv2 multi-hot sizes,
rows capped so the model fits one GPU), bottom MLP 13-512-256-128, dot interaction, top MLP
479-1024-1024-512-256-1. Training uses sparse embedding gradients and SGD, as the reference DLRM
does, or with --table-optimizer rowwise-adagrad the tables' row-wise Adagrad fused into their
backward (SGD for the rest). --compile compiles the bottom MLP and the interaction with the top MLP;
the tables stay eager. --swap embedding puts DLRM-Bench's kernels in place of the tables' (swap.py).

Example:  python3 workloads/dlrm.py --mode train --profile torch --trace dlrm_train.json.gz
"""
import torch
import torch.nn as nn

import common
import recsys
from layers import mlp

PRESETS = {
    "large": dict(batch=16384, dim=128, max_rows=4_000_000, steps={"train": 60, "infer": 200},
                 warmup=3),
    "tiny": dict(batch=8, dim=16, max_rows=1000, steps=3, warmup=1),
}


class Interaction(nn.Module):
    """Pairwise dot products of the 27 feature vectors (lower triangle), then the top MLP."""

    def __init__(self, features, dim, device):
        super().__init__()
        self.top = mlp([dim + features * (features - 1) // 2, 1024, 1024, 512, 256, 1], device, nn.Sigmoid())
        tri = torch.tril_indices(features, features, offset=-1, device=device)
        self.register_buffer("rows", tri[0])
        self.register_buffer("cols", tri[1])

    def forward(self, x, embedded):
        z = torch.stack([x] + embedded, dim=1)
        inter = torch.bmm(z, z.transpose(1, 2))[:, self.rows, self.cols]
        return self.top(torch.cat([x, inter], dim=1))


class DLRM(nn.Module):
    def __init__(self, tables, dim, device):
        super().__init__()
        self.tables = tables
        self.bottom = mlp([recsys.DENSE_FEATURES, 512, 256, dim], device)
        self.interaction = Interaction(len(tables.bags) + 1, dim, device)

    def forward(self, dense, sparse):
        return self.interaction(self.bottom(dense), self.tables(sparse))


def build(args):
    recsys.check_swap_args(args)
    tables, dense, sparse, label = recsys.tables_and_inputs(args)
    model = DLRM(tables, args.dim, args.device)
    model = common.compile_regions(args, model, [(model, "bottom"), (model, "interaction")])
    desc = f"dlrm 26 tables dim{args.dim} batch{args.batch} rows<= {args.max_rows}"
    if args.mode == "infer":
        model.eval()

        @torch.inference_mode()
        def step():
            model(dense, sparse)
        return step, desc

    # With --table-optimizer rowwise-adagrad the tables update themselves in their backward.
    params = [p for name, p in model.named_parameters() if not (tables.rowwise_adagrad and name.startswith("tables."))]
    opt = torch.optim.SGD(params, lr=0.01)
    loss_fn = nn.BCELoss()

    def step():
        common.backward_and_step(loss_fn(model(dense, sparse), label), opt)
    return step, desc


if __name__ == "__main__":
    common.run(build, recsys.add_args, PRESETS, swaps=("embedding",))
