# DLRM-Bench 12: TT-Rec tensor-train compressed EmbeddingBag forward (facebookresearch/FBTT-Embedding,
# its benchmark's shapes): an 11M x 64 table held as three cores, fp32,
#   G1 [200, 4, 32], G2 [220, 32, 4, 32], G3 [250, 32, 4]   (p = 200, 220, 250; q = 4, 4, 4; ranks 32)
# id = i1 * (220 * 250) + i2 * 250 + i3, and row[d1, d2, d3] (flattened d1 * 16 + d2 * 4 + d3) =
#   sum over a, b of G1[i1, d1, a] * G2[i2, a, d2, b] * G3[i3, b, d3]
# summed per bag (offsets [B + 1], bags of 0 to 40 ids, B = 8192, uniform ids). Shapes and the trap
# list: suites/dlrm-bench/README.md; metadata: 12_ttrec_embedding_bag.toml. DLRM_BENCH_PRESET=cpu
# selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(p=[200, 220, 250], q=[4, 4, 4], ranks=[32, 32], batch=8192, max_bag=40),
    "cpu": dict(p=[6, 7, 5], q=[4, 4, 4], ranks=[32, 32], batch=24, max_bag=40),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, p, q, ranks):
        super().__init__()
        self.p = list(p)
        # Cores of scale 0.2: a row is a sum of 32 * 32 triple products, of order 0.26.
        self.G1 = nn.Parameter(torch.randn(p[0], q[0], ranks[0]).mul_(0.2), requires_grad=False)
        self.G2 = nn.Parameter(torch.randn(p[1], ranks[0], q[1], ranks[1]).mul_(0.2), requires_grad=False)
        self.G3 = nn.Parameter(torch.randn(p[2], ranks[1], q[2]).mul_(0.2), requires_grad=False)

    def forward(self, indices, offsets):
        p2, p3 = self.p[1], self.p[2]
        i1 = torch.div(indices, p2 * p3, rounding_mode="floor")
        i2 = torch.div(indices, p3, rounding_mode="floor") % p2
        i3 = indices % p3
        a = self.G1[i1]                                                      # [N, q1, r1]
        b = self.G2[i2].flatten(2)                                           # [N, r1, q2 * r2]
        c = self.G3[i3]                                                      # [N, r2, q3]
        partial = torch.bmm(a, b).view(-1, a.shape[1] * self.G2.shape[2], self.G2.shape[3])
        rows = torch.bmm(partial, c).flatten(1)                              # [N, q1 * q2 * q3]
        batch = offsets.numel() - 1
        bag = torch.repeat_interleave(torch.arange(batch, device=indices.device), offsets[1:] - offsets[:-1],
                                      output_size=indices.numel())
        return torch.zeros(batch, rows.shape[1], device=rows.device).index_add_(0, bag, rows)


def get_inputs():
    p = _preset()
    lengths = torch.randint(0, p["max_bag"] + 1, (p["batch"],))
    offsets = torch.zeros(p["batch"] + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(lengths, 0)
    rows = p["p"][0] * p["p"][1] * p["p"][2]
    return [torch.randint(0, rows, (int(offsets[-1]),)), offsets]


def get_init_inputs():
    p = _preset()
    return [p["p"], p["q"], p["ranks"]]
