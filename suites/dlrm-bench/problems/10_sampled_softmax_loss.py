# DLRM-Bench 10: sampled softmax loss with per-row uniform ("local") negatives (generative-recommenders
# SampledSoftmaxLoss, as its HSTU configs use it): L2-normalised query and item embeddings (eps
# 1e-6), logits = [q . e_pos, q . e_neg_1 .. e_neg_R] / tau with tau = 0.05, a negative that is the
# positive itself (an accidental hit) set to -5e4, and the per-row loss -log_softmax(logits)[0],
# fp32 [N] (not the mean: a mean hides per-row errors). Item table [1M, 256] bf16; N = 16384 queries,
# R = 128 uniform negatives each; positives Zipf(1.05). Products and sums are fp32 after the bf16
# gather. Shapes and the trap list: suites/dlrm-bench/README.md; metadata:
# 10_sampled_softmax_loss.toml. DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "large": dict(num_items=1_000_000, dim=256, queries=16384, negatives=128, alpha=1.05),
    "cpu": dict(num_items=600, dim=256, queries=24, negatives=128, alpha=1.05),
}
TEMPERATURE = 0.05


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
    def __init__(self, num_items, dim, temperature):
        super().__init__()
        items = torch.randn(num_items, dim, device=_table_device(), dtype=torch.bfloat16)
        self.items = nn.Parameter(items, requires_grad=False)
        self.temperature = temperature

    def forward(self, query, positive_ids, negative_ids):
        q = F.normalize(query.float(), dim=-1, eps=1e-6)
        positive = F.normalize(self.items[positive_ids].float(), dim=-1, eps=1e-6)
        negative = F.normalize(self.items[negative_ids].float(), dim=-1, eps=1e-6)
        positive_logit = (q * positive).sum(-1, keepdim=True) / self.temperature
        negative_logits = torch.bmm(negative, q.unsqueeze(2)).squeeze(2) / self.temperature
        negative_logits = negative_logits.masked_fill(negative_ids == positive_ids.unsqueeze(1), -5e4)
        logits = torch.cat([positive_logit, negative_logits], dim=1)
        return -F.log_softmax(logits, dim=1)[:, 0]


def get_inputs():
    p = _preset()
    query = torch.randn(p["queries"], p["dim"], dtype=torch.bfloat16)
    positive = zipf_ids(p["queries"], p["num_items"], p["alpha"])
    negative = torch.randint(0, p["num_items"], (p["queries"], p["negatives"]))
    return [query, positive, negative]


def get_init_inputs():
    p = _preset()
    return [p["num_items"], p["dim"], TEMPERATURE]
