# DLRM-Bench 07: jagged to padded dense (FBGEMM jagged_to_padded_dense; the input step of HSTU and
# SASRec sequence models). values [sum of lengths, 256] bf16 with offsets [B + 1]; out [B, 512, 256]:
# out[b, n] = values[offsets[b] + n] for n < min(length_b, 512), and the padding value -1 elsewhere.
# Lengths are uniform in [0, 640), so about a fifth of the sequences are longer than 512 and are
# truncated, and some are empty. Shapes and the trap list: suites/dlrm-bench/README.md; metadata:
# 07_jagged_to_padded_dense.toml. DLRM_BENCH_PRESET=cpu selects the CPU-sized variant.
import os

import torch
import torch.nn as nn

PRESETS = {
    "large": dict(batch=2048, max_len=512, dim=256, longest=640),
    "cpu": dict(batch=16, max_len=32, dim=256, longest=40),
}
PADDING_VALUE = -1.0


def _preset():
    name = os.environ.get("DLRM_BENCH_PRESET", "large")
    if name not in PRESETS:
        raise ValueError("DLRM_BENCH_PRESET=%r: expected one of %s" % (name, sorted(PRESETS)))
    return PRESETS[name]


class Model(nn.Module):
    def __init__(self, max_len, padding_value):
        super().__init__()
        self.max_len = max_len
        self.padding_value = padding_value

    def forward(self, values, offsets):
        lengths = offsets[1:] - offsets[:-1]
        position = torch.arange(self.max_len, device=values.device)
        valid = position.unsqueeze(0) < lengths.unsqueeze(1)
        source = (offsets[:-1].unsqueeze(1) + position.unsqueeze(0)).clamp_(0, max(values.shape[0] - 1, 0))
        padding = torch.full((), self.padding_value, dtype=values.dtype, device=values.device)
        return torch.where(valid.unsqueeze(2), values[source], padding)


def get_inputs():
    p = _preset()
    lengths = torch.randint(0, p["longest"], (p["batch"],))
    offsets = torch.zeros(p["batch"] + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(lengths, 0)
    return [torch.randn(int(offsets[-1]), p["dim"], dtype=torch.bfloat16), offsets]


def get_init_inputs():
    p = _preset()
    return [p["max_len"], PADDING_VALUE]
