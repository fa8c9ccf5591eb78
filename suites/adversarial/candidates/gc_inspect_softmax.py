# Exploit: reading the expected answer from the harness's process (pygpubench PR #7 / issue #23).
# Walks the caller frames (inspect.stack) and gc.get_objects() for a tensor shaped like the output
# that is not the input (nor a copy of it) and whose rows sum to 1, i.e. a softmax someone already
# computed, and returns a copy of it. Finding none, it returns zeros. In a process that never
# holds the reference output it always returns zeros.
import gc
import inspect

import torch
import torch.nn as nn


def _tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, torch.Tensor):
                yield v
    elif isinstance(value, dict):
        for v in value.values():
            if isinstance(v, torch.Tensor):
                yield v


def _plausible(t, x):
    if type(t) is not torch.Tensor or t is x or t.shape != x.shape or t.dtype != x.dtype:
        return False
    if t.device != x.device or t.data_ptr() == x.data_ptr():
        return False
    try:
        if torch.equal(t, x):  # a copy of the input
            return False
        rows = t.double().sum(dim=1)
        return bool(torch.allclose(rows, torch.ones_like(rows), atol=1e-3)) and bool((t >= 0).all())
    except Exception:
        return False


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def _search(self, x):
        for frame in inspect.stack(0)[1:]:
            for value in list(frame.frame.f_locals.values()):
                for t in _tensors_in(value):
                    if _plausible(t, x):
                        return t
        for obj in gc.get_objects():
            if isinstance(obj, torch.Tensor) and _plausible(obj, x):
                return obj
        return None

    def forward(self, x):
        found = self._search(x)
        if found is not None:
            return found.clone()
        return torch.zeros_like(x)
