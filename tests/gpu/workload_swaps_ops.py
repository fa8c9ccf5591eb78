"""The workloads' swapped operators on the GPU (workloads/swap.py): each `headroom_swap::` operator's
CUDA implementation (DLRM-Bench 01, 04 and 06's kernels, workloads/kernels/gelu_tanh.cu, behind the
wrappers that adapt the workloads' arguments to them) against the PyTorch reference that the other
arm runs, on the same CUDA inputs. Run by workload_swaps_test.sh.

  python3 workload_swaps_ops.py WORKLOADS_DIR
"""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, sys.argv[1])
import swap  # noqa: E402

failures = []


def close(name, got, want, atol, rtol):
    got, want = got.double(), want.double()
    if got.shape != want.shape:
        failures.append(f"{name}: shape {tuple(got.shape)}, expected {tuple(want.shape)}")
        return
    bad = ~torch.isclose(got, want, atol=atol, rtol=rtol)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        failures.append(f"{name}: {int(bad.sum())} of {got.numel()} elements off, first at {i}: "
                        f"{got[tuple(i)].item():.6g} against {want[tuple(i)].item():.6g}")
    else:
        print(f"ok: {name} {tuple(got.shape)}")


swap.configure(swap.NAMES[:2] + ("cross",))  # embedding, gelu, cross: the CUDA kernels load below
swap._load_cuda(["embedding", "gelu", "cross"])
ops = torch.ops.headroom_swap
g = torch.Generator(device="cuda").manual_seed(7)
dev = "cuda"

# Pooled lookups, bags of fixed and of varying length (offsets of B + 1 entries, the last = nnz).
for rows, dim, lengths in ((1000, 128, [3] * 64), (50000, 64, [1, 5, 9, 2, 100, 7] * 9)):
    weight = torch.randn(rows, dim, device=dev, generator=g)
    offsets = torch.tensor([0] + lengths, device=dev).cumsum(0)
    indices = torch.randint(0, rows, (int(offsets[-1]),), device=dev, generator=g)
    close(f"embedding_bag_sum rows={rows}", ops.embedding_bag_sum(weight, indices, offsets),
          swap.embedding_bag_sum_reference(weight, indices, offsets), 1e-4, 1e-5)

# The fused row-wise Adagrad backward: the distinct rows, their new weights and momentum, with
# repeated ids inside a bag and across bags (a small table makes many).
for rows, batch, bag, dim in ((40, 256, 3, 128), (100000, 512, 27, 64)):
    weight = torch.randn(rows, dim, device=dev, generator=g)
    momentum = torch.rand(rows, device=dev, generator=g)
    indices = torch.randint(0, rows, (batch, bag), device=dev, generator=g)
    grad_out = torch.randn(batch, dim, device=dev, generator=g)
    table = weight.clone()
    got = ops.rowwise_adagrad_rows(weight, momentum, indices, grad_out, 0.004, 1e-8)
    want = swap.rowwise_adagrad_rows_reference(weight, momentum, indices, grad_out, 0.004, 1e-8)
    if not torch.equal(got[0].long(), want[0].long()):
        failures.append(f"rowwise_adagrad_rows rows={rows}: distinct rows differ ({got[0].numel()} against "
                        f"{want[0].numel()})")
    else:
        close(f"rowwise_adagrad_rows weights rows={rows}", got[1], want[1], 1e-5, 1e-5)
        close(f"rowwise_adagrad_rows momentum rows={rows}", got[2], want[2], 1e-4, 1e-5)
    if not torch.equal(weight, table):
        failures.append(f"rowwise_adagrad_rows rows={rows} wrote its table (the workload writes the rows back)")

# GELU (tanh) forward and backward in bf16 and fp32, once and three times (the control).
for dtype, tol in ((torch.float32, 1e-5), (torch.bfloat16, 1e-2)):
    x = torch.randn(4096, 3072, device=dev, generator=g).to(dtype)
    grad = torch.randn(4096, 3072, device=dev, generator=g).to(dtype)
    want = F.gelu(x.float(), approximate="tanh")
    xr = x.float().requires_grad_(True)
    (want_dx,) = torch.autograd.grad(F.gelu(xr, approximate="tanh"), xr, grad.float())
    for repeat in (1, 3):
        close(f"gelu_tanh {dtype} x{repeat}", ops.gelu_tanh(x, repeat), want, tol, tol)
        close(f"gelu_tanh_backward {dtype} x{repeat}", ops.gelu_tanh_backward(grad, x, repeat), want_dx, tol, tol)

# The low-rank cross network in bf16 (the kernel's type), judged as accurate as the path it replaces:
# against the same network in fp32 from the same bf16 values, its error (normwise and largest) no more
# than twice that of PyTorch's bf16 network (the arm before the swap). Three layers of bf16 rounding
# leave single elements far off on both paths where a sum cancels.
def error(got, want):
    d = (got.double() - want.double())
    return (d.norm() / want.double().norm()).item(), d.abs().max().item()


for batch, n, r, layers in ((2048, 1024, 512, 3), (4096, 512, 256, 3)):
    x0 = torch.randn(batch, n, device=dev, generator=g).bfloat16()
    V = (torch.randn(layers, r, n, device=dev, generator=g) / n ** 0.5).bfloat16()
    W = (torch.randn(layers, n, r, device=dev, generator=g) / r ** 0.5).bfloat16()
    b = (0.1 * torch.randn(layers, n, device=dev, generator=g)).bfloat16()
    want = swap.cross_network_reference(x0.float(), V.float(), W.float(), b.float())
    ours = error(ops.cross_network(x0, V, W, b), want)
    eager = error(swap.cross_network_reference(x0, V, W, b), want)
    name = f"cross_network batch={batch} n={n}"
    if ours[0] > 2 * eager[0] or ours[1] > 2 * eager[1] + 1e-3:
        failures.append(f"{name}: error {ours[0]:.3g} normwise, {ours[1]:.3g} at most; PyTorch's bf16 "
                        f"{eager[0]:.3g}, {eager[1]:.3g}")
    else:
        print(f"ok: {name}: error {ours[0]:.3g} normwise, {ours[1]:.3g} at most (PyTorch's bf16: {eager[0]:.3g}, "
              f"{eager[1]:.3g})")

torch.cuda.synchronize()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
