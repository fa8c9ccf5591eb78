# Hang: forward never returns (a busy loop that holds the GIL). The harness must kill it.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        while True:
            pass
