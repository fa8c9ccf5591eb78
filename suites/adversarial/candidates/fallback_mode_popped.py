# Exploit: the dispatch mode that records operators popped for the duration of the call. A Python
# dispatch mode sees only what runs while it is on the stack, and any code can take it off: this
# candidate pops whatever mode is current, calls torch.relu, and pushes it back on the way out.
# Against the C++ record (docs/eval.md, "Verdicts") no mode is involved: correct, flagged
# torch_fallback.
import torch
import torch.nn as nn
from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode_temporarily


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _get_current_dispatch_mode() is not None:
            with _pop_mode_temporarily():
                return torch.relu(x)
        return torch.relu(x)
