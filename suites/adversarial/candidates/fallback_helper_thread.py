# Exploit: the reference's operator run on a persistent helper thread. A dispatch mode records the
# thread that entered it; this candidate starts one thread at import, and forward hands it the
# input and waits for torch.relu's result. No thread is left running after forward that was not
# there before it (the helper predates every call), so background_thread does not apply, and the
# result is complete when forward returns. Against the C++ record, which sees every thread
# (docs/eval.md, "Verdicts"): correct, flagged torch_fallback.
import queue
import threading

import torch
import torch.nn as nn

_jobs = queue.Queue()
_results = queue.Queue()


def _serve():
    while True:
        x = _jobs.get()
        try:
            _results.put(torch.relu(x))
        except Exception as e:  # noqa: BLE001 (the caller raises it)
            _results.put(e)


threading.Thread(target=_serve, name="relu-helper", daemon=True).start()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _jobs.put(x)
        out = _results.get()
        if isinstance(out, Exception):
            raise out
        return out
