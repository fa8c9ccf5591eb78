#!/usr/bin/env python3
"""Compiles every DLRM-Bench solution's sources the way load_inline would, without a GPU and without a
CUDA build of PyTorch, so that a solution that does not compile cannot land.

Each solution keeps its sources in module-level strings (read here with `ast`, never imported:
importing a solution builds its extension):
  DECLS      the extern "C" launchers' declarations, shared by both halves;
  CUDA_SRC   kernels and launchers: plain CUDA (runtime API, CUB), no PyTorch header;
  CPP_SRC    the PyTorch glue (at::Tensor in and out, c10 stream and guard);
  FUNCTIONS  the glue functions load_inline binds;
  CUDA_FLAGS its extra nvcc flags (the -gencode for sm_90a among them).

For each solution this
  1. compiles CUDA_SRC with nvcc as load_inline does on an H200 (cuda.h and cuda_runtime.h first,
     PyTorch's nvcc defines -D__CUDA_NO_HALF_OPERATORS__ and friends, -std=c++17, the detected sm_90
     and CUDA_FLAGS' sm_90a): real device code, through ptxas;
  2. compiles CPP_SRC after `#include <torch/extension.h>`, with the PYBIND11_MODULE block
     load_inline generates for FUNCTIONS, against the installed PyTorch headers (Debian's
     libtorch-dev: CPU-only, so it lacks the generated c10/cuda/impl/cuda_cmake_macros.h; a one-line
     stand-in is written to the work folder) through a precompiled header;
  3. checks that every launcher DECLS declares is defined by the CUDA object and used by the glue.

Exit status: 0 all compiled, 1 some did not, 2 bad usage, 77 no nvcc (the check cannot run here).
"""
import argparse
import ast
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time

# What torch.utils.cpp_extension adds to every nvcc command line (COMMON_NVCC_FLAGS, its -std, and on an
# H200 without TORCH_CUDA_ARCH_LIST the detected architecture, sm_90, beside the solutions' own sm_90a).
TORCH_NVCC_FLAGS = ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
                    "--expt-relaxed-constexpr", "-std=c++17", "-Xcompiler", "-fPIC",
                    "-gencode=arch=compute_90,code=sm_90"]
REQUIRED = ("DECLS", "CUDA_SRC", "CPP_SRC", "FUNCTIONS", "CUDA_FLAGS")
PRELUDE = "#include <torch/extension.h>\n#include <c10/cuda/CUDAGuard.h>\n#include <c10/cuda/CUDAStream.h>\n"


def read_sources(path):
    """The module-level string and list-of-string constants of a solution, `a + b` concatenations of
    them included."""
    tree = ast.parse(open(path).read(), path)
    found = {}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in found:
            return found[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = value(node.left), value(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
        if isinstance(node, ast.List):
            items = [value(e) for e in node.elts]
            if all(isinstance(i, str) for i in items):
                return items
        return None

    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = value(node.value)
            if v is not None:
                found[node.targets[0].id] = v
    missing = [k for k in REQUIRED if k not in found]
    if missing:
        raise ValueError("%s: no module-level %s" % (path, ", ".join(missing)))
    return found


def run(cmd, log):
    began = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n\n" + p.stdout)
    return p.returncode, p.stdout, time.monotonic() - began


def defined_symbols(obj):
    out = subprocess.run(["nm", "--defined-only", obj], stdout=subprocess.PIPE, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def undefined_symbols(obj):
    out = subprocess.run(["nm", "--undefined-only", obj], stdout=subprocess.PIPE, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def check_cuda(name, src, work, nvcc):
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    cu = os.path.join(folder, "cuda.cu")
    with open(cu, "w") as f:
        f.write("#include <cuda.h>\n#include <cuda_runtime.h>\n" + src["CUDA_SRC"])
    obj = os.path.join(folder, "cuda.o")
    rc, text, seconds = run([nvcc] + TORCH_NVCC_FLAGS + src["CUDA_FLAGS"] + ["-c", cu, "-o", obj],
                            os.path.join(folder, "nvcc.log"))
    return rc, text, seconds, obj


def check_cpp(name, src, work, cxx, include_flags):
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    cpp = os.path.join(folder, "main.cpp")
    binding = ['PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {']
    binding += ['m.def("{0}", torch::wrap_pybind_function({0}), "{0}");'.format(f) for f in src["FUNCTIONS"]]
    binding.append("}")
    with open(cpp, "w") as f:
        f.write("#include <torch/extension.h>\n" + src["CPP_SRC"] + "\n#define TORCH_EXTENSION_NAME " + name + "\n" +
                "\n".join(binding) + "\n")
    obj = os.path.join(folder, "main.o")
    cmd = [cxx, "-include", os.path.join(work, "pch", "prelude.h"), "-Winvalid-pch"] + include_flags + \
          ["-c", cpp, "-o", obj]
    rc, text, seconds = run(cmd, os.path.join(folder, "g++.log"))
    return rc, text, seconds, obj


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("solutions", nargs="*", help="solution files (default: every file in solutions/)")
    ap.add_argument("--work", default=None, help="build folder (default: a fresh temporary folder, removed after)")
    ap.add_argument("--nvcc", default=None, help="nvcc (default: on PATH, else /usr/local/cuda/bin/nvcc)")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"), help="host C++ compiler for the glue")
    ap.add_argument("--torch-include", default="/usr/include",
                    help="folder holding torch/extension.h (default: Debian's libtorch-dev)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cuda-only", action="store_true", help="only the CUDA half (no PyTorch headers needed)")
    args = ap.parse_args()

    nvcc = args.nvcc or shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
    if not nvcc:
        print("compile_check: no nvcc (the CUDA toolkit is not installed): skipped")
        return 77
    files = args.solutions or sorted(os.path.join(here, "solutions", f) for f in os.listdir(os.path.join(here, "solutions"))
                                     if f.endswith(".py"))
    if not files:
        print("compile_check: no solution files", file=sys.stderr)
        return 2
    try:
        sources = {os.path.splitext(os.path.basename(f))[0]: read_sources(f) for f in files}
    except (OSError, SyntaxError, ValueError) as e:
        print("compile_check: %s" % e, file=sys.stderr)
        return 2

    import tempfile
    work = args.work or tempfile.mkdtemp(prefix="dlrm-bench-compile-")
    os.makedirs(work, exist_ok=True)
    cuda_home = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    failures = []
    try:
        cpp = not args.cuda_only
        include_flags = []
        if cpp:
            torch_header = os.path.join(args.torch_include, "torch", "extension.h")
            if not os.path.exists(torch_header):
                print("compile_check: %s not found (install libtorch-dev, or give --torch-include); "
                      "compiling the CUDA half only" % torch_header)
                cpp = False
        if cpp:
            shim = os.path.join(work, "shim")
            os.makedirs(os.path.join(shim, "c10", "cuda", "impl"), exist_ok=True)
            with open(os.path.join(shim, "c10", "cuda", "impl", "cuda_cmake_macros.h"), "w") as f:
                f.write("#pragma once\n// Generated by a CUDA build of PyTorch; Debian's CPU-only build lacks it.\n"
                        "#define C10_CUDA_BUILD_SHARED_LIBS\n")
            include_flags = ["-std=c++17", "-O0", "-fPIC", "-w", "-I" + shim, "-I" + args.torch_include,
                             "-I" + os.path.join(args.torch_include, "torch", "csrc", "api", "include"),
                             "-I" + sysconfig.get_paths()["include"], "-I" + os.path.join(cuda_home, "include"),
                             "-DTORCH_API_INCLUDE_EXTENSION_H"]
            pch = os.path.join(work, "pch")
            os.makedirs(pch, exist_ok=True)
            with open(os.path.join(pch, "prelude.h"), "w") as f:
                f.write(PRELUDE)
            command = [args.cxx, "-x", "c++-header"] + include_flags + \
                [os.path.join(pch, "prelude.h"), "-o", os.path.join(pch, "prelude.h.gch")]
            stamp = os.path.join(pch, "command")
            if os.path.exists(stamp) and open(stamp).read() == " ".join(command):  # a kept --work folder
                rc, text, seconds = 0, "", 0.0
            else:
                print("compile_check: precompiling the PyTorch headers ...", flush=True)
                rc, text, seconds = run(command, os.path.join(pch, "g++.log"))
                if rc == 0:
                    with open(stamp, "w") as f:
                        f.write(" ".join(command))
            if rc != 0:
                print(text[-4000:])
                print("compile_check: the PyTorch headers do not compile here; compiling the CUDA half only")
                cpp = False
            else:
                print("compile_check: precompiled header in %.0f s" % seconds, flush=True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            cuda_jobs = {name: pool.submit(check_cuda, name, src, work, nvcc) for name, src in sources.items()}
            cpp_jobs = {name: pool.submit(check_cpp, name, src, work, args.cxx, include_flags)
                        for name, src in sources.items()} if cpp else {}
            for name, src in sources.items():
                rc, text, seconds, cuda_obj = cuda_jobs[name].result()
                problems = []
                if rc != 0:
                    problems.append("nvcc failed:\n" + text[-6000:])
                launchers = re.findall(r'extern\s+"C"\s+[\w:]+\s+(\w+)\s*\(', src["DECLS"])
                if not launchers:
                    problems.append("DECLS declares no extern \"C\" launcher")
                if rc == 0:
                    missing = [l for l in launchers if l not in defined_symbols(cuda_obj)]
                    if missing:
                        problems.append("declared but not defined by CUDA_SRC: " + ", ".join(missing))
                status = "nvcc %.0f s" % seconds
                if cpp:
                    crc, ctext, cseconds, cpp_obj = cpp_jobs[name].result()
                    status += ", glue %.0f s" % cseconds
                    if crc != 0:
                        problems.append("the glue (CPP_SRC) failed:\n" + ctext[-6000:])
                    else:
                        unused = [l for l in launchers if l not in undefined_symbols(cpp_obj)]
                        if unused:
                            problems.append("declared but never called by CPP_SRC: " + ", ".join(unused))
                print("%-40s %s (%s)" % (name, "FAILED" if problems else "ok", status), flush=True)
                for p in problems:
                    print("  " + p.replace("\n", "\n  "))
                if problems:
                    failures.append(name)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print("compile_check: %d of %d solution(s) compiled%s" % (len(sources) - len(failures), len(sources),
                                                            "" if cpp else " (CUDA half only)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
