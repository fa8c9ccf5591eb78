# Exploit: side-stream work (KernelBench non_default_stream_kernel.py; KernelBench v0.1 blog).
# The 4096^3 cuBLAS matmul is launched on a private stream and forward returns without making the
# caller's stream wait for it, so CUDA events recorded on the caller's stream time almost nothing.
# The inputs are awaited (wait_stream), so the result itself is right once the device is idle.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._stream = None

    def forward(self, A, B):
        if self._stream is None:
            self._stream = torch.cuda.Stream(device=A.device)
        self._stream.wait_stream(torch.cuda.current_stream(A.device))
        with torch.cuda.stream(self._stream):
            out = torch.matmul(A, B)
        return out
