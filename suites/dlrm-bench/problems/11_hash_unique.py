# DLRM-Bench 11: feature hashing and deduplication before an embedding lookup (DLRM's
# --max-ind-range modulo hashing; TorchRec/HugeCTR unique before the all-to-all). 8M raw 40-bit ids
# (Zipf(1.15) ranks scattered over [0, 2^40)) are hashed into E = 10M rows by h = raw mod E, then
#   unique, inverse, counts = torch.unique(h, sorted=True, return_inverse=True, return_counts=True)
# all int64 and compared exactly; the number of distinct rows is data-dependent. Shapes and the trap
# list: suites/dlrm-bench/README.md; metadata: 11_hash_unique.toml. DLRM_BENCH_PRESET=cpu selects the
# CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(ids=8_000_000, buckets=10_000_000, alpha=1.15),
    "cpu": dict(ids=5000, buckets=20_000, alpha=1.15),
}
ID_BITS = 40


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, buckets):
        super().__init__()
        self.buckets = buckets

    def forward(self, raw_ids):
        hashed = torch.remainder(raw_ids, self.buckets)
        return torch.unique(hashed, sorted=True, return_inverse=True, return_counts=True)


def get_inputs():
    p = _preset()
    space = 2 ** ID_BITS
    u = torch.rand(p["ids"], dtype=torch.float64)
    a = 1.0 - p["alpha"]
    rank = (((space ** a - 1.0) * u + 1.0) ** (1.0 / a)).long().clamp_(1, space) - 1
    # An odd multiplier is a bijection of [0, 2^40): hot ids land anywhere in the id space.
    return [(rank * 6700417 + 977) % space]


def get_init_inputs():
    return [_preset()["buckets"]]
