# Exploit: stale outputs once the checks are over. A harness that compares only its first few timed
# outputs never sees later ones; this candidate computes its first twelve calls (the correctness
# trials and the start of the timing) and from then on returns a copy of its last result, in fresh
# memory, whatever the inputs. Every timed call is sketched, and calls picked after the timing are
# run again on the reference (timed_output_mismatch).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._calls = 0
        self._last = None

    def forward(self, x):
        self._calls += 1
        if self._calls <= 12 or self._last is None or self._last.shape != x.shape:
            self._last = torch.relu(x)
            return self._last.clone()
        return self._last.clone()
