#!/usr/bin/env python3
"""Writes four candidates of our own for every KernelBench level-1 problem, named as KernelBench runs
name theirs (level_1_problem_{N}_sample_{S}_kernel.py), so that `headroom eval PROBLEMS --candidates
OUT --reference-as-candidate` evaluates five candidates a problem, as a KernelBench run does. They are
generated from the problem files where the benchmark runs and never committed: KernelBench's files
are not ours, and every candidate starts with its problem's own text.

  bench/kb_candidates.py PROBLEMS_DIR OUT_DIR [--only 19,47]

Each candidate is the problem's source followed by a `ModelNew` that subclasses its `Model` (so the
constructor, its arguments and any weights drawn under the worker's seed are the reference's):
  S=0 no_grad     the parent's forward under torch.no_grad()
  S=1 contiguous  the parent's forward on its tensor arguments passed through .contiguous()
  S=2 clone_out   the parent's result cloned (a tuple or list element by element): correct, a copy slower
  S=3 cuda        an inline CUDA kernel through load_inline: for the elementwise problems one
                  grid-stride kernel with the op as a device expression, for the reductions over one
                  dimension one thread per output looping over the reduced dimension
      detached    (S=3 of every other problem, and of any of those whose forward is not the one the
                  kernel computes) the parent's forward on its tensor arguments detached from autograd

The CUDA source holds the kernels and a launcher that takes raw pointers, sizes and the stream; the
torch binding is a separate C++ string (cpp_sources), so the kernel part compiles with nvcc alone.
The op and the per-output reduction are __host__ __device__, so their arithmetic can be checked
against PyTorch on a machine without a GPU.
"""
import argparse
import ast
import os
import re
import sys

LEVEL = 1
PROBLEM_FILE = re.compile(r"(\d+)_\w+\.py")

# The elementwise problems: Model.forward's return expression (the kernel is used only when the
# problem computes exactly this), the op as a float device expression of x and two parameters a and
# b, and the Python expressions ModelNew passes as a and b (the constructor's values, or the
# constants the forward names). Each follows PyTorch's own formula for the op.
ELEMENTWISE = {
    5: ("A * s", "x * a", ("s", "0.0")),
    19: ("torch.relu(x)", "x < 0.f ? 0.f : x", ("0.0", "0.0")),
    20: ("torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)", "x > 0.f ? x : x * a",
         ("self.negative_slope", "0.0")),
    21: ("torch.sigmoid(x)", "1.f / (1.f + expf(-x))", ("0.0", "0.0")),
    22: ("torch.tanh(x)", "tanhf(x)", ("0.0", "0.0")),
    25: ("x * torch.sigmoid(x)", "x * (1.f / (1.f + expf(-x)))", ("0.0", "0.0")),
    # The default GELU is the erf form.
    26: ("torch.nn.functional.gelu(x)", "0.5f * x * (1.f + erff(x * 0.70710678118654752f))", ("0.0", "0.0")),
    27: ("torch.selu(x)",
         "x > 0.f ? 1.0507009873554804934f * x : 1.0507009873554804934f * 1.6732632423543772848f * expm1f(x)",
         ("0.0", "0.0")),
    # clamp(x / 6 + 1/2, 0, 1), as PyTorch computes it: clamp(x + 3, 0, 6) / 6. The clamps are
    # comparisons rather than fminf/fmaxf so that NaN passes through, as it does in PyTorch.
    28: ("torch.nn.functional.hardsigmoid(x)", "(x + 3.f < 0.f ? 0.f : x + 3.f > 6.f ? 6.f : x + 3.f) * (1.f / 6.f)",
         ("0.0", "0.0")),
    # beta 1, threshold 20: above it softplus is x itself.
    29: ("torch.nn.functional.softplus(x)", "x > 20.f ? x : log1pf(expf(x))", ("0.0", "0.0")),
    30: ("x / (1 + torch.abs(x))", "x / (1.f + fabsf(x))", ("0.0", "0.0")),
    31: ("F.elu(x, alpha=self.alpha)", "x > 0.f ? x : a * expm1f(x)", ("self.alpha", "0.0")),
    32: ("F.hardtanh(x, min_val=-1.0, max_val=1.0)", "x < a ? a : x > b ? b : x", ("-1.0", "1.0")),
    88: ("0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))",
         "0.5f * x * (1.f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)))", ("0.0", "0.0")),
}

# The reductions over self.dim: Model.forward's return expression, the op and whether the reduced
# dimension stays (as size 1).
REDUCTIONS = {
    47: ("torch.sum(x, dim=self.dim, keepdim=True)", "sum", True),
    48: ("torch.mean(x, dim=self.dim)", "mean", False),
    49: ("torch.max(x, dim=self.dim)[0]", "max", False),
    51: ("torch.argmax(x, dim=self.dim)", "argmax", False),
    52: ("torch.argmin(x, dim=self.dim)", "argmin", False),
    53: ("torch.min(x, dim=self.dim)[0]", "min", False),
}

# Per op: the output's C type and torch dtype, and the per-output code: its state, one step over the
# element v at index r of the reduced dimension, the result. Float accumulation in the order of the
# dimension; max and min let NaN through and argmax and argmin take the first NaN, as PyTorch does;
# the strict comparisons keep the first index of equal values, as PyTorch does.
REDUCTION_OPS = {
    "sum": ("float", "torch::kFloat", "float acc = 0.f;", "acc += v;", "acc"),
    "mean": ("float", "torch::kFloat", "float acc = 0.f;", "acc += v;", "acc / (float)reduced"),
    "max": ("float", "torch::kFloat", "float acc = -INFINITY;", "if (v > acc || isnan(v)) acc = v;", "acc"),
    "min": ("float", "torch::kFloat", "float acc = INFINITY;", "if (v < acc || isnan(v)) acc = v;", "acc"),
    "argmax": ("int64_t", "torch::kLong", "float best = -INFINITY;\n  int64_t arg = 0;",
               "if (v > best || (isnan(v) && !isnan(best))) {\n      best = v;\n      arg = r;\n    }", "arg"),
    "argmin": ("int64_t", "torch::kLong", "float best = INFINITY;\n  int64_t arg = 0;",
               "if (v < best || (isnan(v) && !isnan(best))) {\n      best = v;\n      arg = r;\n    }", "arg"),
}

LAUNCH_CHECK = """  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);"""

# 256 threads a block, at most 65536 blocks: 16.7M threads, about 60 times what an H100's 132 SMs
# hold at once, so every SM stays busy; the grid-stride loop covers the rest of a larger tensor.
GRID = """  constexpr int threads = 256;
  const int64_t blocks = std::min<int64_t>((count + threads - 1) / threads, 65536);"""

ELEMENTWISE_CUDA = r"""// {title}: y = op(x) element by element, float32, one grid-stride loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>

// __host__ too, so that the arithmetic can be checked against PyTorch without a GPU.
__host__ __device__ inline float op(float x, [[maybe_unused]] float a, [[maybe_unused]] float b) {{
  return {expr};
}}

__global__ void elementwise_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, float a, float b) {{
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = op(x[i], a, b);
}}

// nullptr, or what the launch failed with.
const char* elementwise(const float* x, float* y, int64_t n, float a, float b, cudaStream_t stream) {{
  if (n == 0) return nullptr;
  const int64_t count = n;
{grid}
  elementwise_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n, a, b);
{check}
}}
"""

ELEMENTWISE_CPP = r"""#include <torch/extension.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

const char* elementwise(const float* x, float* y, int64_t n, float a, float b, cudaStream_t stream);

torch::Tensor forward(torch::Tensor x, double a, double b) {{
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.is_contiguous(),
              "{name}: a contiguous float32 CUDA tensor expected");
  const c10::cuda::CUDAGuard guard(x.device());
  torch::Tensor y = torch::empty_like(x);
  const char* error = elementwise(x.data_ptr<float>(), y.data_ptr<float>(), x.numel(), (float)a, (float)b,
                                  c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(error == nullptr, "{name}: ", error);
  return y;
}}
"""

REDUCTION_CUDA = r"""// {title}: {op} over one dimension of a contiguous float32 tensor seen as (outer, reduced, inner).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>

// One output: the reduced dimension at p, its elements `inner` apart. __host__ too, so that the
// arithmetic can be checked against PyTorch without a GPU.
__host__ __device__ inline {out} reduce_one(const float* p, int64_t reduced, int64_t inner) {{
  {init}
  for (int64_t r = 0; r < reduced; ++r) {{
    const float v = p[r * inner];
    {step}
  }}
  return {result};
}}

// One thread per output: neighbouring threads take neighbouring inner positions, so each step over
// the reduced dimension is one coalesced read a warp whenever inner is 32 or more.
__global__ void reduce_dim_kernel(const float* __restrict__ x, {out}* __restrict__ y, int64_t outer, int64_t reduced,
                                  int64_t inner) {{
  const int64_t outputs = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < outputs; o += stride) {{
    const int64_t b = o / inner, i = o - b * inner;
    y[o] = reduce_one(x + b * reduced * inner + i, reduced, inner);
  }}
}}

// nullptr, or what the launch failed with.
const char* reduce_dim(const float* x, {out}* y, int64_t outer, int64_t reduced, int64_t inner, cudaStream_t stream) {{
  const int64_t count = outer * inner;
  if (count == 0) return nullptr;
{grid}
  reduce_dim_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, outer, reduced, inner);
{check}
}}
"""

REDUCTION_CPP = r"""#include <vector>

#include <torch/extension.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

const char* reduce_dim(const float* x, {out}* y, int64_t outer, int64_t reduced, int64_t inner, cudaStream_t stream);

torch::Tensor forward(torch::Tensor x, int64_t dim) {{
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.is_contiguous(),
              "{name}: a contiguous float32 CUDA tensor expected");
  TORCH_CHECK(x.dim() > 0, "{name}: a tensor of one dimension or more expected");
  if (dim < 0) dim += x.dim();
  TORCH_CHECK(dim >= 0 && dim < x.dim(), "{name}: dimension out of range");
  constexpr bool keepdim = {keepdim};
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < x.dim(); ++d) {{
    if (d < dim) outer *= x.size(d);
    if (d > dim) inner *= x.size(d);
    if (d != dim) shape.push_back(x.size(d));
    else if (keepdim) shape.push_back(1);
  }}
  const int64_t reduced = x.size(dim);
  {empty_check}
  const c10::cuda::CUDAGuard guard(x.device());
  torch::Tensor y = torch::empty(shape, x.options().dtype({dtype}));
  const char* error = reduce_dim(x.data_ptr<float>(), y.data_ptr<{out}>(), outer, reduced, inner,
                                 c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(error == nullptr, "{name}: ", error);
  return y;
}}
"""

CUDA_LOAD = '''
import torch
from torch.utils.cpp_extension import load_inline

_KB_CUDA_SOURCE = r"""
{cuda}"""

_KB_CPP_SOURCE = r"""
{cpp}"""

# Built at import, so that headroom eval's compile phase builds it once, before the evaluation.
_kb_ext = load_inline(name="{name}", cpp_sources=_KB_CPP_SOURCE, cuda_sources=_KB_CUDA_SOURCE,
                      functions=["forward"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(Model):
    """The problem's forward as the CUDA kernel above."""

    def forward(self, {args}):
        return _kb_ext.forward({call})
'''


class ProblemError(Exception):
    pass


class Problem:
    """A problem file: its number, text, and Model.forward's parameter names and return expression."""

    def __init__(self, path):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.number = int(PROBLEM_FILE.fullmatch(os.path.basename(path)).group(1))
        with open(path) as f:
            self.text = f.read()
        try:
            tree = ast.parse(self.text, filename=path)
        except SyntaxError as e:
            raise ProblemError(f"{path}: not Python ({e.msg}, line {e.lineno})")
        model = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
        if model is None:
            raise ProblemError(f"{path}: no `class Model` at the top level (not a KernelBench problem)")
        forward = next((n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
        if forward is None:
            raise ProblemError(f"{path}: Model has no forward")
        a = forward.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or len(a.args) < 2:
            raise ProblemError(f"{path}: Model.forward takes other than plain positional arguments")
        self.args = [x.arg for x in a.args[1:]]
        returns = [n for n in ast.walk(forward) if isinstance(n, ast.Return) and n.value is not None]
        self.returns = ast.unparse(returns[0].value) if len(returns) == 1 else None
        self.top_names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                          if isinstance(t, ast.Name)}
        self.top_names |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}

    def computes(self, expression):
        return self.returns == ast.unparse(ast.parse(expression, mode="eval").body)


def each_argument(problem, wrap):
    return ", ".join(wrap.format(a) for a in problem.args)


def no_grad(problem):
    args = ", ".join(problem.args)
    return f'''
import torch


class ModelNew(Model):
    """The problem's own forward under torch.no_grad()."""

    def forward(self, {args}):
        with torch.no_grad():
            return super().forward({args})
'''


def tensor_arguments(problem, method, description):
    """A ModelNew that calls the parent's forward on each tensor argument's `.method()`."""
    return f'''
import torch


def _kb_{method}(value):
    return value.{method}() if isinstance(value, torch.Tensor) else value


class ModelNew(Model):
    """The problem's own forward on its tensor arguments {description} (others unchanged)."""

    def forward(self, {", ".join(problem.args)}):
        return super().forward({each_argument(problem, "_kb_" + method + "({})")})
'''


def contiguous(problem):
    return tensor_arguments(problem, "contiguous", "made contiguous")


def clone_out(problem):
    return f'''
import torch


def _kb_clone(value):
    return value.clone() if isinstance(value, torch.Tensor) else value


class ModelNew(Model):
    """The problem's own forward, its result cloned (a tuple or list element by element)."""

    def forward(self, {", ".join(problem.args)}):
        out = super().forward({", ".join(problem.args)})
        if isinstance(out, (tuple, list)):
            return type(out)(_kb_clone(o) for o in out)
        return _kb_clone(out)
'''


def detached(problem):
    return tensor_arguments(problem, "detach", "detached from autograd")


def extension_name(problem):
    return f"kb_{problem.number}_cuda"


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def elementwise_cuda(problem):
    _, expr, (a, b) = ELEMENTWISE[problem.number]
    name = extension_name(problem)
    cuda = ELEMENTWISE_CUDA.format(title=problem.stem, expr=expr, grid=GRID, check=LAUNCH_CHECK)
    cpp = ELEMENTWISE_CPP.format(name=name)
    tensor, rest = problem.args[0], problem.args[1:]
    if set(rest) - {a, b}:
        raise ProblemError(f"{problem.path}: forward arguments {rest} are not the kernel's parameters")
    call = ", ".join([f"{tensor}.contiguous()"] + [p if is_number(p) else f"float({p})" for p in (a, b)])
    return CUDA_LOAD.format(cuda=cuda, cpp=cpp, name=name, args=", ".join(problem.args), call=call)


def reduction_cuda(problem):
    _, op, keepdim = REDUCTIONS[problem.number]
    out, dtype, init, step, result = REDUCTION_OPS[op]
    name = extension_name(problem)
    cuda = REDUCTION_CUDA.format(title=problem.stem, op=op, out=out, init=init, step=step, result=result,
                                 grid=GRID, check=LAUNCH_CHECK)
    empty_check = "" if op in ("sum", "mean") else \
        f'TORCH_CHECK(reduced > 0, "{name}: {op} of an empty dimension");'
    cpp = REDUCTION_CPP.format(name=name, out=out, dtype=dtype, keepdim="true" if keepdim else "false",
                               empty_check=empty_check)
    (tensor,) = problem.args
    return CUDA_LOAD.format(cuda=cuda, cpp=cpp, name=name, args=tensor, call=f"{tensor}.contiguous(), self.dim")


def cuda_kind(problem):
    """S=3: the CUDA kernel when the problem computes what the kernel does, else `detached`; the
    kind's name, its code, and why there is no kernel when it has one of our ops but not its forward."""
    for table, write in ((ELEMENTWISE, elementwise_cuda), (REDUCTIONS, reduction_cuda)):
        if problem.number in table:
            if problem.computes(table[problem.number][0]):
                return "cuda", write(problem), None
            return "detached", detached(problem), f"forward returns {problem.returns!r}, not the kernel's op"
    return "detached", detached(problem), None


# Module-level names the candidates add after the problem's text.
OUR_NAMES = {"ModelNew", "_kb_contiguous", "_kb_clone", "_kb_detached", "_KB_CUDA_SOURCE", "_KB_CPP_SOURCE", "_kb_ext",
             "load_inline"}


def candidates(problem):
    """[(sample, kind, code)] and a note for the S=3 fallback, if any."""
    clash = problem.top_names & OUR_NAMES
    if clash:
        raise ProblemError(f"{problem.path}: defines {sorted(clash)}, which the candidates define too")
    kind, code, note = cuda_kind(problem)
    return [(0, "no_grad", no_grad(problem)), (1, "contiguous", contiguous(problem)),
            (2, "clone_out", clone_out(problem)), (3, kind, code)], note


def candidate_text(problem, kind, code):
    header = f"\n\n# headroom candidate `{kind}` for the problem above, written by bench/kb_candidates.py.\n"
    return problem.text.rstrip("\n") + "\n" + header + code


def write(path, text):
    with open(path + ".partial", "w") as f:
        f.write(text)
    os.replace(path + ".partial", path)


def problem_files(folder, only):
    if not os.path.isdir(folder):
        raise ProblemError(f"{folder}: no such folder")
    found = {}
    for name in sorted(os.listdir(folder)):
        m = PROBLEM_FILE.fullmatch(name)
        if m:
            found.setdefault(int(m.group(1)), []).append(os.path.join(folder, name))
    for number, paths in found.items():
        if len(paths) > 1:
            raise ProblemError(f"{folder}: problem {number} has {len(paths)} files: {', '.join(paths)}")
    if only is not None:
        missing = sorted(only - found.keys())
        if missing:
            raise ProblemError(f"{folder}: no problem file numbered {', '.join(map(str, missing))}")
        found = {n: p for n, p in found.items() if n in only}
    if not found:
        raise ProblemError(f"{folder}: no problem files (N_Name.py)")
    return [found[n][0] for n in sorted(found)]


def parse_only(text):
    try:
        numbers = {int(t) for t in text.split(",") if t.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected problem numbers separated by commas, e.g. 19,47")
    if not numbers:
        raise argparse.ArgumentTypeError("no problem numbers given")
    return numbers


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problems", metavar="PROBLEMS_DIR", help="KernelBench's level1 folder")
    ap.add_argument("out", metavar="OUT_DIR", help="where the candidate files go (created if missing)")
    ap.add_argument("--only", type=parse_only, metavar="N,N,...", help="only these problem numbers")
    a = ap.parse_args()
    try:
        paths = problem_files(a.problems, a.only)
        problems = [Problem(p) for p in paths]
        written = [(p, *candidates(p)) for p in problems]
    except ProblemError as e:
        sys.exit(f"kb_candidates: {e}")
    os.makedirs(a.out, exist_ok=True)
    with_cuda = 0
    for problem, samples, note in written:
        for sample, kind, code in samples:
            name = f"level_{LEVEL}_problem_{problem.number}_sample_{sample}_kernel.py"
            write(os.path.join(a.out, name), candidate_text(problem, kind, code))
        kinds = [kind for _, kind, _ in samples]
        with_cuda += "cuda" in kinds
        print(f"{problem.stem}: {' '.join(kinds)}" + (f" (no kernel: {note})" if note else ""))
    print(f"{4 * len(written)} candidates for {len(written)} problem(s) in {a.out}, "
          f"{with_cuda} with a CUDA kernel (sample 3)")


if __name__ == "__main__":
    main()
