# Exploit: a persistent output buffer written only in part. The buffer is allocated on the first
# call and fully written then; from the second call on only the first 255 of 256 rows are computed,
# the last row left as the first call wrote it. A harness that only checks that the memory was handed
# out, or compares the last row of a stale output with a reference on similar inputs, passes it. The
# worker fills a kept buffer with a NaN pattern before every call, so the row shows as unwritten.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    def forward(self, x):
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.clamp(x, min=0)
            return self.out
        torch.clamp(x[:-1], min=0, out=self.out[:-1])
        return self.out
