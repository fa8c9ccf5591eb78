# Exploit: PyTorch's own switch for its RecordFunction, which every C++ observer of operators
# (profilers, the worker's C++ record) depends on: torch.autograd._enable_record_function(False)
# stops RecordFunction on the calling thread, so operators run there reach no callback. The
# candidate turns it off around torch.relu and on again before returning, so nothing looks amiss
# once forward is done. The worker replaces that function (and _clear_callbacks) before any
# candidate code runs, by one that does nothing and notes the call (docs/eval.md, "Verdicts"):
# incorrect, tampering.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        torch.autograd._enable_record_function(False)
        try:
            return torch.relu(x)
        finally:
            torch.autograd._enable_record_function(True)
