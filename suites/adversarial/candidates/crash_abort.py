# Crash: forward aborts the process (SIGABRT). The harness must survive its worker's death.
import os

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        os.abort()
