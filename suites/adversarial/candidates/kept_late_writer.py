# Exploit: a persistent output buffer filled by a helper thread after forward has returned. The
# thread is started at import, so no thread is left running by a call (background_thread counts
# those); forward computes its first call itself, and from then on only signals the helper, which
# writes the buffer 0.2 s later, after the harness has read it. The worker fills a kept buffer with a
# NaN pattern before every call: what it reads is still the pattern (stale_output).
import threading
import time

import torch
import torch.nn as nn

_work = []
_ready = threading.Condition()


def _helper():
    while True:
        with _ready:
            while not _work:
                _ready.wait()
            x, out = _work.pop()
        time.sleep(0.2)
        torch.clamp(x, min=0, out=out)


threading.Thread(target=_helper, daemon=True).start()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    def forward(self, x):
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.clamp(x, min=0)
            return self.out
        with _ready:
            _work.append((x.clone(), self.out))
            _ready.notify()
        return self.out
