"""Swappable kernels: kernel families of the reference workloads that `--swap` replaces with our own
CUDA kernels, so that a projection (`headroom project`) can be checked against the program actually
run with the kernels swapped in (`headroom check-swap`, docs/method.md "Checking a swap").

Each swapped kernel is a PyTorch operator registered with torch.library in the namespace
`headroom_swap` (a CPU implementation beside the CUDA one, so the code path runs on a CPU in CI, and
a Meta one for torch.compile's tracing), wrapped in an autograd Function where it needs a backward.
The profiler sees them as the operators `headroom_swap::...`.

Swaps (--swap, comma-separated):
  embedding  recommenders: the EmbeddingBag forward (sum pooling) by DLRM-Bench 01's kernel (one
             warp per bag; suites/dlrm-bench/solutions/01_embedding_bag_zipf.py). In training with
             --table-optimizer rowwise-adagrad, also the backward with its fused row-wise Adagrad
             update by DLRM-Bench 04's kernel (sort, segment, one update per distinct row;
             04_tbe_backward_rowwise_adagrad.py). Both arms run each table's forward inside the NVTX
             range "swap:embedding_bag_forward" and its backward's rows inside
             "swap:rowwise_adagrad_update" (the write-back of the new rows stays outside, the same in
             both), so `headroom check-swap --range` can name the operator whose generic kernels
             (sort, index, elementwise) the swap replaces.
  gelu       transformers: the tanh GELU forward and backward by our kernels (workloads/kernels/
             gelu_tanh.cu): PyTorch's GeluCUDAKernelImpl and GeluBackwardCUDAKernelImpl go.
  gelu-slow  the same kernels with every pass repeated --slow-factor times: a control of known size.
  cross      DLRMv2: the DCNv2 low-rank cross network's forward (3 layers of x0 * (W (V x) + b) + x)
             by DLRM-Bench 06's kernel (two GEMMs a layer, the bias, product and residual fused into
             the second one's epilogue; 06_dcnv2_low_rank_cross.py), slower than cuBLAS's GEMMs:
             a swap that loses. The kernel is bf16, so with `--swap cross` both arms run the cross
             network in bf16 from fp32 master weights (the casts outside the range), the forward
             inside the NVTX range "swap:cross_forward". Its backward is PyTorch's on both arms, from
             the forward recomputed with PyTorch's kernels (the kernel keeps no intermediates: the
             cross network is checkpointed in both arms, outside the range).

--swap-arm off runs a swap's code path with PyTorch's kernels (the program before the swap, with the
same ranges), on (the default) with ours; --swap-ab K alternates blocks of K steps between the two in
one process (common.py).
"""
import contextlib
import importlib.util
import os

import torch
import torch.nn.functional as F

NAMES = ("embedding", "gelu", "gelu-slow", "cross")
_HERE = os.path.dirname(os.path.abspath(__file__))
_SOLUTIONS = os.path.join(_HERE, "..", "suites", "dlrm-bench", "solutions")

# What the process swaps (its --swap) and which arm runs now.
_enabled = set()
_on = False
_slow_factor = 3
_nvtx = False


def configure(names, slow_factor=3, device="cpu"):
    """Enables the swaps named (an iterable of NAMES); the arm starts off."""
    global _slow_factor, _nvtx, _on
    unknown = set(names) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown swap {sorted(unknown)}: one of {', '.join(NAMES)}")
    if "gelu" in names and "gelu-slow" in names:
        raise ValueError("--swap gelu and gelu-slow replace the same kernels: one or the other")
    if slow_factor < 1:
        raise ValueError("--slow-factor must be at least 1")
    _enabled.clear()
    _enabled.update(names)
    _slow_factor = int(slow_factor)
    _nvtx = device == "cuda"
    _on = False
    if device == "cuda":
        _load_cuda(names)


def enabled(name):
    return name in _enabled


def set_arm(on):
    """on: our kernels run; off: PyTorch's, on the same code path."""
    global _on
    _on = bool(on)


def active(name):
    return _on and name in _enabled


@contextlib.contextmanager
def nvtx(name):
    """An NVTX range on CUDA (what `headroom profile` records and `check-swap --range` selects by)."""
    if _nvtx:
        torch.cuda.nvtx.range_push(name)
    try:
        yield
    finally:
        if _nvtx:
            torch.cuda.nvtx.range_pop()


# ---------------------------------------------------------------------------------------------
# The operators.

_lib = torch.library.Library("headroom_swap", "DEF")
_lib.define("embedding_bag_sum(Tensor weight, Tensor indices, Tensor offsets) -> Tensor")
_lib.define("rowwise_adagrad_rows(Tensor weight, Tensor momentum, Tensor indices, Tensor grad_out, float lr, float eps)"
            " -> (Tensor, Tensor, Tensor)")
_lib.define("gelu_tanh(Tensor x, int repeat) -> Tensor")
_lib.define("gelu_tanh_backward(Tensor grad, Tensor x, int repeat) -> Tensor")
_lib.define("cross_network(Tensor x0, Tensor V, Tensor W, Tensor b) -> Tensor")


def embedding_bag_sum_reference(weight, indices, offsets):
    """Sum pooling with offsets of B + 1 entries: what nn.EmbeddingBag(mode="sum", include_last_offset=True) computes."""
    return F.embedding_bag(indices, weight, offsets, mode="sum", include_last_offset=True)


def rowwise_adagrad_rows_reference(weight, momentum, indices, grad_out, lr, eps):
    """Row-wise Adagrad over one table's pooled gradient, as DLRM-Bench 04's Model states it, for
    bags of a fixed length: indices [B, L] (table-local ids), grad_out [B, D]. Returns the distinct
    rows (ascending), their new weights and their new momentum; the table is not written."""
    batch, bag = indices.shape
    dim = weight.shape[1]
    per_lookup = grad_out.unsqueeze(1).expand(batch, bag, dim).reshape(-1, dim)
    unique, inverse = torch.unique(indices.reshape(-1), sorted=True, return_inverse=True)
    grad = torch.zeros(unique.numel(), dim, device=grad_out.device, dtype=grad_out.dtype).index_add_(0, inverse, per_lookup)
    new_momentum = momentum[unique] + grad.pow(2).mean(1)
    new_weight = weight[unique] - lr * grad / (new_momentum.sqrt() + eps).unsqueeze(1)
    return unique, new_weight, new_momentum


def cross_network_reference(x0, V, W, b):
    """DCNv2's low-rank cross network as eager PyTorch runs it (DLRM-Bench 06's Model): for each layer
    l, x <- x0 * (W_l (V_l x) + b_l) + x, from x = x0; V [L, r, N], W [L, N, r], b [L, N]."""
    x = x0
    for layer in range(V.shape[0]):
        x = x0 * F.linear(F.linear(x, V[layer]), W[layer], b[layer]) + x
    return x


def _gelu_cpu(x, repeat):
    y = None
    for _ in range(repeat):  # the control's factor on the CPU too: the same pass, again
        y = F.gelu(x, approximate="tanh")
    return y


def _gelu_backward_cpu(grad, x, repeat):
    dx = None
    for _ in range(repeat):
        with torch.enable_grad():  # the dispatcher runs this with grad mode off
            xr = x.detach().float().requires_grad_(True)
            (g,) = torch.autograd.grad(F.gelu(xr, approximate="tanh"), xr, grad.float())
        dx = g.to(x.dtype)
    return dx


_lib.impl("embedding_bag_sum", embedding_bag_sum_reference, "CPU")
_lib.impl("rowwise_adagrad_rows", rowwise_adagrad_rows_reference, "CPU")
_lib.impl("gelu_tanh", _gelu_cpu, "CPU")
_lib.impl("gelu_tanh_backward", _gelu_backward_cpu, "CPU")
_lib.impl("cross_network", cross_network_reference, "CPU")
_lib.impl("cross_network", lambda x0, V, W, b: torch.empty_like(x0), "Meta")
_lib.impl("gelu_tanh", lambda x, repeat: torch.empty_like(x), "Meta")
_lib.impl("gelu_tanh_backward", lambda grad, x, repeat: torch.empty_like(x), "Meta")
_lib.impl("embedding_bag_sum",
          lambda weight, indices, offsets: weight.new_empty((offsets.numel() - 1, weight.shape[1])), "Meta")



def gelu_sources():
    """The GELU kernels' C++ edge and CUDA source (workloads/kernels/)."""
    with open(os.path.join(_HERE, "kernels", "gelu_tanh.cpp")) as f:
        cpp_src = f.read()
    with open(os.path.join(_HERE, "kernels", "gelu_tanh.cu")) as f:
        return cpp_src, f.read()


def _import_solution(stem):
    """A DLRM-Bench solution module (it compiles its kernel with load_inline when imported)."""
    path = os.path.join(_SOLUTIONS, stem + ".py")
    spec = importlib.util.spec_from_file_location("dlrm_bench_solution_" + stem[:2], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_cuda_loaded = set()


def build_all():
    """Compiles every swap's CUDA kernels into torch's extension cache (a GPU machine's first run
    can do it while other work runs: `python3 -c 'import swap; swap.build_all()'` in workloads/)."""
    _load_cuda(NAMES)


def _load_cuda(names):
    """Builds (or finds in torch's extension cache) the CUDA kernels of the swaps named and
    registers them as the operators' CUDA implementations."""
    if "embedding" in names and "embedding" not in _cuda_loaded:
        forward = _import_solution("01_embedding_bag_zipf")._ext
        backward = _import_solution("04_tbe_backward_rowwise_adagrad")._ext
        _lib.impl("embedding_bag_sum", lambda w, i, o: forward.embedding_bag_sum(w, i, o), "CUDA")

        def rows(weight, momentum, indices, grad_out, lr, eps):
            batch, bag = indices.shape
            return backward.rowwise_adagrad_backward(weight, momentum, indices.view(1, batch, bag), grad_out,
                                                     weight.shape[0], lr, eps)
        _lib.impl("rowwise_adagrad_rows", rows, "CUDA")
        _cuda_loaded.add("embedding")
    if ({"gelu", "gelu-slow"} & set(names)) and "gelu" not in _cuda_loaded:
        from torch.utils.cpp_extension import load_inline
        cpp_src, cuda_src = gelu_sources()
        ext = load_inline(name="headroom_swap_gelu_tanh", cpp_sources=[cpp_src], cuda_sources=[cuda_src],
                          functions=["gelu_tanh_forward", "gelu_tanh_backward"],
                          extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"], verbose=False)
        _lib.impl("gelu_tanh", lambda x, repeat: ext.gelu_tanh_forward(x, repeat), "CUDA")
        _lib.impl("gelu_tanh_backward", lambda grad, x, repeat: ext.gelu_tanh_backward(grad, x, repeat), "CUDA")
        _cuda_loaded.add("gelu")
    if "cross" in names and "cross" not in _cuda_loaded:
        cross = _import_solution("06_dcnv2_low_rank_cross")._ext
        _lib.impl("cross_network", lambda x0, V, W, b: cross.cross_network(x0, V, W, b), "CUDA")
        _cuda_loaded.add("cross")


# ---------------------------------------------------------------------------------------------
# What the workloads call.

def embedding_bag(bag, indices, offsets):
    """One table's pooled lookup without a backward of ours (inference, or training with the
    table's own sparse optimizer): nn.EmbeddingBag's forward, or ours when the arm is on."""
    with nvtx("swap:embedding_bag_forward"):
        if active("embedding"):
            return torch.ops.headroom_swap.embedding_bag_sum(bag.weight, indices, offsets)
        return bag(indices, offsets)


class _RowwiseAdagradLookup(torch.autograd.Function):
    """A pooled lookup whose backward applies row-wise Adagrad to the table in place, as FBGEMM's
    table-batched embeddings do (the optimizer fused into the backward; the table gets no .grad)."""

    @staticmethod
    def forward(ctx, weight, momentum, indices, offsets, bag, lr, eps):
        ctx.state = (weight, momentum, indices.view(-1, bag), lr, eps)
        with nvtx("swap:embedding_bag_forward"):
            if active("embedding"):
                return torch.ops.headroom_swap.embedding_bag_sum(weight, indices, offsets)
            return embedding_bag_sum_reference(weight, indices, offsets)

    @staticmethod
    def backward(ctx, grad_out):
        weight, momentum, indices, lr, eps = ctx.state
        # The pooled gradient is a strided view of the interaction's; both arms take it contiguous,
        # outside the range, so the range holds only what the swap replaces.
        grad_out = grad_out.contiguous()
        with nvtx("swap:rowwise_adagrad_update"):
            if active("embedding"):
                rows, new_weight, new_momentum = torch.ops.headroom_swap.rowwise_adagrad_rows(
                    weight, momentum, indices, grad_out, lr, eps)
            else:
                rows, new_weight, new_momentum = rowwise_adagrad_rows_reference(
                    weight, momentum, indices, grad_out, lr, eps)
        with torch.no_grad():
            weight.index_copy_(0, rows, new_weight)
            momentum.index_copy_(0, rows, new_momentum)
        return None, None, None, None, None, None, None


def rowwise_adagrad_lookup(weight, momentum, indices, offsets, bag, lr, eps):
    """Bags of `bag` ids each (indices [B * bag], offsets [B + 1]); the update happens in backward."""
    return _RowwiseAdagradLookup.apply(weight, momentum, indices, offsets, bag, lr, eps)


class _GeluTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, repeat):
        ctx.save_for_backward(x)
        ctx.repeat = repeat
        return torch.ops.headroom_swap.gelu_tanh(x, repeat)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return torch.ops.headroom_swap.gelu_tanh_backward(grad.contiguous(), x, ctx.repeat), None


def gelu(x, approximate):
    """F.gelu, or with a gelu swap's arm on and the tanh form, our kernels (repeated for gelu-slow)."""
    if approximate == "tanh" and (active("gelu") or active("gelu-slow")):
        return _GeluTanh.apply(x, _slow_factor if active("gelu-slow") else 1)
    return F.gelu(x, approximate=approximate)


def _cross_forward(x0, V, W, b):
    with nvtx("swap:cross_forward"):
        if active("cross"):
            return torch.ops.headroom_swap.cross_network(x0, V, W, b)
        return cross_network_reference(x0, V, W, b)


class _CrossNetwork(torch.autograd.Function):
    """The cross network's forward by our kernel (arm on) or PyTorch's (off), inside the range; the
    backward recomputes the forward with PyTorch's kernels and differentiates it, the same in both
    arms (our kernel keeps no per-layer intermediates to differentiate)."""

    @staticmethod
    def forward(ctx, x0, V, W, b):
        ctx.save_for_backward(x0, V, W, b)
        return _cross_forward(x0, V, W, b)

    @staticmethod
    def backward(ctx, grad):
        inputs = [t.detach().requires_grad_(True) for t in ctx.saved_tensors]
        with torch.enable_grad():
            out = cross_network_reference(*inputs)
        return torch.autograd.grad(out, inputs, grad)


def cross_network(x0, V, W, b):
    """The low-rank cross network over x0 [B, N] (V [L, r, N], W [L, N, r], b [L, N], one dtype)."""
    if not torch.is_grad_enabled():
        return _cross_forward(x0, V, W, b)
    return _CrossNetwork.apply(x0, V, W, b)
