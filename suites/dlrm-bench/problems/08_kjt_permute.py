# DLRM-Bench 08: KeyedJaggedTensor permute (FBGEMM permute_2D_sparse_data, TorchRec
# KeyedJaggedTensor.permute): regroup 128 keys' jagged ids and weights into a new key order, as a
# sharded recommender does before and after its all-to-all. lengths [T, B] int32 (key-major),
# values int64 and weights fp32 concatenated key by key; permute [T] is a permutation of the keys.
# Output key k is input key permute[k]: its lengths row and its whole segment of values and weights.
# Per-key mean lengths are log-normal around 10 (some keys nearly empty, some long), lengths are
# Poisson. Shapes and the trap list: suites/dlrm-bench/README.md; metadata: 08_kjt_permute.toml.
# DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(keys=128, batch=4096, mean_length=10.0, id_space=2**40),
    "cpu": dict(keys=12, batch=16, mean_length=10.0, id_space=2**40),
}


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def forward(self, lengths, values, weights, permute):
        per_key = lengths.sum(1)
        key_start = per_key.cumsum(0) - per_key
        segment = per_key.index_select(0, permute)
        moved = key_start.index_select(0, permute) - (segment.cumsum(0) - segment)
        total = values.numel()
        source = torch.repeat_interleave(moved, segment, output_size=total)
        source += torch.arange(total, device=values.device)
        return lengths.index_select(0, permute), values.index_select(0, source), weights.index_select(0, source)


def get_inputs():
    p = _preset()
    sigma = 0.8
    mean = p["mean_length"] * torch.exp(sigma * torch.randn(p["keys"]) - sigma * sigma / 2)
    lengths = torch.poisson(mean.unsqueeze(1).expand(p["keys"], p["batch"]).contiguous()).int()
    total = int(lengths.sum())
    values = torch.randint(0, p["id_space"], (total,))
    weights = torch.rand(total)
    return [lengths, values, weights, torch.randperm(p["keys"])]


def get_init_inputs():
    return []
