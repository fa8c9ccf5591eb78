# Exploit: the disk filled through the scratch folder. The candidate writes files of 256 MiB into its
# temporary folder until the file system is full (up to 16 GiB): the sandbox's /tmp is a size-capped
# file system of its own, so the write stops there and nothing of the host fills. Without a cap the
# candidate fails loudly.
import errno
import os
import tempfile

import torch
import torch.nn as nn

_block = b"\0" * (1 << 20)
_written = 0
_folder = tempfile.mkdtemp()
try:
    for n in range(64):
        with open(os.path.join(_folder, "fill%d" % n), "wb") as f:
            for _ in range(256):
                f.write(_block)
                _written += len(_block)
except OSError as e:
    if e.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        raise
finally:
    for name in os.listdir(_folder):
        os.unlink(os.path.join(_folder, name))
    os.rmdir(_folder)
_uncapped = _written >= (16 << 30)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _uncapped:
            raise RuntimeError("sandbox escape: 16 GiB written to %s without a cap" % tempfile.gettempdir())
        return torch.relu(x)
