# Exploit: the operator record behind torch_fallback blinded through sys.modules. A harness that
# records operators with a Python dispatch mode defined in its own module (a worker's driver)
# holds it where candidate code can reach it: this candidate finds the driver among sys.modules at
# import, switches its record off and empties whatever record is made anyway, then hands the work
# back to torch.relu. Against the C++ record (docs/eval.md, "Verdicts") there is nothing in Python
# to patch: correct, flagged torch_fallback.
import sys

import torch
import torch.nn as nn

for _module in list(sys.modules.values()):
    try:  # some modules make any attribute asked for, or raise other errors than AttributeError
        _record = getattr(_module, "_OperatorRecord", None)
        if not isinstance(_record, type) or "__torch_dispatch__" not in vars(_record):
            continue
    except Exception:
        continue

    def _unrecorded(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    _record.__torch_dispatch__ = _unrecorded
    if hasattr(_module, "_DispatchMode"):
        _module._DispatchMode = None  # the driver's call() then records nothing at all


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
