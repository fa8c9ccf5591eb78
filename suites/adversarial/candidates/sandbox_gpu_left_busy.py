# Exploit: the GPU kept busy while something else is timed. The first call starts a child process,
# a Python of its own with a CUDA context of its own, that queues float32 matmuls of 8192^3 (1.1
# TFLOP each, tens of milliseconds on an H100) for about a minute and then sleeps. Freezing the
# candidate's sandbox stops the child, not the kernels it queued: the GPU time-slices between its
# context and whichever one is timed, so a reference timed in another process runs slower (a
# child that queued its work just before the reference's turns would win the candidate a speedup).
# forward itself returns the reference's result, computed the same way. The worker probes the GPU
# before every timed call; a busy GPU ends the candidate's sandbox, and a GPU idle once it has
# ended blames the candidate (gpu_left_busy).
import subprocess
import sys

import torch
import torch.nn as nn

_CHILD = r"""
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.rand(8192, 8192, device="cuda")
b = torch.rand(8192, 8192, device="cuda")
c = torch.empty_like(a)
# The launches return at once until the driver's queue is full, then one at a time as kernels end:
# the queue stays full for as long as the loop lasts, and drains for seconds after a freeze.
for i in range(3000):
    torch.matmul(a, b, out=c)
    if i == 16:
        print("queued", flush=True)
time.sleep(3600)
"""

_child = None


def _keep_gpu_busy():
    global _child
    _child = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    # The first call returns once the child's kernels are queued: the GPU is busy from then on.
    # A child that failed says nothing and the case fails (correct, not gpu_left_busy): the exploit
    # must be real.
    _child.stdout.readline()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _child is None:
            _keep_gpu_busy()
        return torch.relu(x)
