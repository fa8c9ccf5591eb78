# Exploit: work finished by a background thread after forward returns (deep-reinforce; Wafer).
# forward returns an uninitialised tensor at once; a thread fills it with ReLU 0.2 s later and then
# idles for another second, as a pool worker waiting for more work would.
import threading
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)

        def finish():
            time.sleep(0.2)
            torch.clamp(x, min=0, out=out)
            time.sleep(1.0)

        threading.Thread(target=finish, daemon=True).start()
        return out
