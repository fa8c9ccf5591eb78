# Exploit: the disk filled through the log. Three GiB written to stdout at import: a harness that
# keeps every byte of a worker's output fills the disk, and its own next write ("database or disk is
# full") ends the run. The sandbox keeps the first 8 MiB and the last 64 KiB and counts the rest.
import os

import torch
import torch.nn as nn

_block = b"x" * (1 << 20)
for _ in range(3 << 10):
    os.write(1, _block)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
