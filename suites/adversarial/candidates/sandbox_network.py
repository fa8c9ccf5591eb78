# Exploit: the network. A candidate that can connect can fetch answers, report inputs, or reach a
# results server. The sandbox has a network namespace of its own with its loopback down: a connect
# to 127.0.0.1 fails with ENETUNREACH, where a host's loopback answers (ECONNREFUSED or a connection).
import errno
import socket

import torch
import torch.nn as nn


def _network():
    names = [name for _, name in socket.if_nameindex()]
    if any(name != "lo" for name in names):
        return "interfaces %s" % ", ".join(names)
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", 1))
        return "a connection to 127.0.0.1:1"
    except OSError as e:
        if e.errno == errno.ECONNREFUSED:
            return "the host's loopback (127.0.0.1 refused the connection, so it was reached)"
        return None
    finally:
        s.close()


_reached = _network()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _reached:
            raise RuntimeError("sandbox escape: network: " + _reached)
        return torch.relu(x)
