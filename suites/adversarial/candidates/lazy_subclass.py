# Exploit: lazy output (deep-reinforce; GPU MODE eigh red-team). forward returns a torch.Tensor
# subclass holding uninitialised memory and a pending computation; the first torch function that
# touches it (the checker's comparison) computes ReLU into it, so the work happens outside the
# timed region.
import torch
import torch.nn as nn


class _Deferred(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, _Deferred):
                a._materialise()
        with torch._C.DisableTorchFunction():
            return func(*args, **kwargs)

    def _materialise(self):
        pending = self.__dict__.pop("_pending", None)
        if pending is not None:
            with torch._C.DisableTorchFunction():
                torch.clamp(pending, min=0, out=self)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        with torch._C.DisableTorchFunction():
            out = torch.Tensor._make_subclass(_Deferred, torch.empty_like(x))
        out.__dict__["_pending"] = x
        return out
