# Exploit: the next candidate's file rewritten at import, so that the code judged next is not the
# code stored under its hash. The candidate looks for other candidates' files around its own file, its
# build folder and its working folder, and fails loudly if it could change one (it changes nothing).
# The harness writes each candidate's stored text where only that candidate's sandbox sees it,
# read-only.
import glob
import os

import torch
import torch.nn as nn


def _rewritable():
    own = os.path.realpath(__file__)
    places = {os.path.dirname(own), os.path.dirname(os.path.dirname(own)), os.getcwd()}
    build = os.environ.get("TORCH_EXTENSIONS_DIR", "")
    if build:
        places |= {os.path.dirname(build), os.path.dirname(os.path.dirname(build)),
                   os.path.join(os.path.dirname(build), "src"), os.path.join(os.path.dirname(os.path.dirname(build)), "src")}
    for place in places:
        for path in glob.glob(os.path.join(place, "*.py")) + glob.glob(os.path.join(place, "candidates", "*.py")):
            if os.path.realpath(path) != own and os.access(path, os.W_OK):
                return path
    return None


_found = _rewritable()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _found:
            raise RuntimeError("sandbox escape: could rewrite %s" % _found)
        return torch.relu(x)
