# Exploit: a persistent output buffer whose last result is copied back in. The candidate computes
# its first twelve calls (the trials and the start of the timing) into a buffer it keeps, saves a
# copy, and from then on copies the saved result into the buffer instead of computing: every element
# is written, so no fill pattern is left, but the values are an earlier call's. Timed calls picked
# after the timing are run again on the reference (timed_output_mismatch).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None
        self.saved = None
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.empty_like(x)
        if self.calls <= 12 or self.saved is None:
            torch.clamp(x, min=0, out=self.out)
            self.saved = self.out.clone()
        else:
            self.out.copy_(self.saved)
        return self.out
