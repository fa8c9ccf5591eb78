# Exploit: a cache keyed on the inputs' content. A harness that cycles through a few input sets
# while it times lets every timed call after the first pass hit the cache (10.7x "verified" where
# this was tried). Every timed call's inputs are fresh here, so the cache never hits and the
# candidate pays for its hashing: it must come out slower than the reference.
import hashlib

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def forward(self, x):
        key = hashlib.sha1(x.detach().cpu().numpy().tobytes()).hexdigest()
        hit = self._cache.get(key)
        if hit is not None:
            return hit.clone()
        out = torch.relu(x)
        self._cache[key] = out.clone()
        return out
