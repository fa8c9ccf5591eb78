# What src/worker/CMakeLists.txt needs to build libheadroom_op_record.so (and, where torch has CUDA,
# libheadroom_alloc_tracker.so) against the PyTorch this interpreter imports, so that the library
# and the worker's torch are one build: the headers that torch's own extensions compile against, its
# C++ ABI flag and standard, and the very libtorch_cpu, libc10 and libc10_cuda files the interpreter
# loaded (a pip wheel's, or Debian's in /usr/lib). One `key=value` a line; exit 1 with the reason on
# stderr when something is missing (libc10_cuda is empty for a torch without CUDA).
import inspect
import os
import re
import sys

try:
    import torch
    from torch.utils import cpp_extension
except Exception as e:  # no torch, or a broken one
    sys.exit("cannot import torch: %s" % e)

loaded = {}
with open("/proc/self/maps") as maps:
    for line in maps:
        path = line.split()[-1]
        name = os.path.basename(path)
        for lib in ("libtorch_cpu", "libc10", "libc10_cuda"):
            if name == lib + ".so" or name.startswith(lib + ".so."):
                loaded.setdefault(lib, path)
missing = [lib for lib in ("libtorch_cpu", "libc10") if lib not in loaded]
if missing:
    sys.exit("torch %s loaded no %s" % (torch.__version__, " or ".join(missing)))

includes = [p for p in cpp_extension.include_paths() if os.path.isdir(p)]
if not any(os.path.isfile(os.path.join(p, "ATen", "record_function.h")) for p in includes):
    sys.exit("torch %s has no C++ headers (ATen/record_function.h) in %s; on Debian: apt-get install libtorch-dev"
             % (torch.__version__, includes))

# The C++ standard torch compiles its extensions with (c++14 in 1.13, c++17 in 2.x), 17 at least.
standards = [int(n) for n in re.findall(r"-std=c\+\+(\d+)", inspect.getsource(cpp_extension))]
standard = max([17] + [n for n in standards if n < 50])

print("version=%s" % torch.__version__)
print("cxx_standard=%d" % standard)
print("abi=%d" % int(torch.compiled_with_cxx11_abi()))
print("includes=%s" % "|".join(includes))  # CMake turns "|" into its list separator
print("libtorch_cpu=%s" % loaded["libtorch_cpu"])
print("libc10=%s" % loaded["libc10"])
print("libc10_cuda=%s" % loaded.get("libc10_cuda", ""))
