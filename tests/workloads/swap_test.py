"""The workloads' swappable kernels on the CPU (workloads/swap.py): the operators' CPU
implementations against independent references, the swapped arm taking the `headroom_swap::`
operators and the other arm PyTorch's, the fused row-wise Adagrad training the tables, and the
--swap options of the scripts (an in-process A/B, refusals with exit status 2). The CUDA
implementations are DLRM-Bench's solutions and workloads/kernels/gelu_tanh.cu, run on a GPU
(`scripts/gpu swap-check`). Exits 77 (skipped) where PyTorch is missing.

  python3 tests/workloads/swap_test.py workloads/
"""
import ast
import importlib.util
import os
import subprocess
import sys

try:
    import torch
except ImportError:
    print("no PyTorch in this Python: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Harness  # noqa: E402

h = Harness(sys.argv[1], "headroom-swap-")
HERE, TMP, check, run = h.workloads, h.tmp, h.check, h.run
import swap  # noqa: E402


def ops_called(fn):
    """The operator names the CPU profiler saw while fn ran."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        fn()
    return {e.name for e in prof.events()}


torch.manual_seed(0)

# Row-wise Adagrad over a pooled gradient, against a loop over rows written from the definition:
# G[r] = sum of grad_out over r's lookups, m' = m + mean(G^2), w' = w - lr G / (sqrt(m') + eps).
rows, dim, batch, bag = 50, 8, 12, 5
weight = torch.randn(rows, dim, dtype=torch.float64)
momentum = torch.rand(rows, dtype=torch.float64)
indices = torch.randint(0, rows, (batch, bag))
indices[0, :] = 7  # a row repeated within a bag
grad_out = torch.randn(batch, dim, dtype=torch.float64)
unique, new_w, new_m = swap.rowwise_adagrad_rows_reference(weight, momentum, indices, grad_out, 0.1, 1e-8)
expect = {}
for b in range(batch):
    for i in indices[b].tolist():
        expect[i] = expect.get(i, torch.zeros(dim, dtype=torch.float64)) + grad_out[b]
check(unique.tolist() == sorted(expect), "rowwise Adagrad: the distinct rows, ascending")
for k, r in enumerate(unique.tolist()):
    g = expect[r]
    m = momentum[r] + (g * g).mean()
    check(torch.allclose(new_m[k], m), f"rowwise Adagrad: momentum of row {r}")
    check(torch.allclose(new_w[k], weight[r] - 0.1 * g / (m.sqrt() + 1e-8)), f"rowwise Adagrad: weight of row {r}")

# The operators' CPU implementations: the pooled sum and the GELU, slow or not, as PyTorch's.
table = torch.randn(30, 4)
ids = torch.randint(0, 30, (12,))
offsets = torch.tensor([0, 3, 3, 7, 12])
pooled = torch.ops.headroom_swap.embedding_bag_sum(table, ids, offsets)
check(pooled.shape == (4, 4) and torch.allclose(pooled[0], table[ids[:3]].sum(0)) and pooled[1].abs().sum() == 0,
      "embedding_bag_sum: sums per bag, zeros for an empty bag")
x = torch.randn(64, dtype=torch.float64)
g = torch.randn(64, dtype=torch.float64)
ref = torch.nn.functional.gelu(x, approximate="tanh")
for repeat in (1, 3):
    check(torch.allclose(torch.ops.headroom_swap.gelu_tanh(x, repeat), ref), f"gelu_tanh repeat {repeat}")
xr = x.clone().requires_grad_(True)
(dx,) = torch.autograd.grad(torch.nn.functional.gelu(xr, approximate="tanh"), xr, g)
check(torch.allclose(torch.ops.headroom_swap.gelu_tanh_backward(g, x, 3), dx), "gelu_tanh_backward")

# The cross network: the operator's CPU implementation against the layers written out, and the swapped
# forward through the autograd Function giving PyTorch's gradients (its backward recomputes).
x0 = torch.randn(5, 12, dtype=torch.float64)
V, W, b = torch.randn(2, 3, 12, dtype=torch.float64), torch.randn(2, 12, 3, dtype=torch.float64), torch.randn(2, 12, dtype=torch.float64)
x1 = x0 * (x0 @ V[0].T @ W[0].T + b[0]) + x0
check(torch.allclose(torch.ops.headroom_swap.cross_network(x0, V, W, b), x0 * (x1 @ V[1].T @ W[1].T + b[1]) + x1),
      "cross_network: two layers as defined")

# The arms: on, the headroom_swap operators run; off, PyTorch's, on the same code path.
swap.configure(["gelu"])
for on in (True, False):
    swap.set_arm(on)
    xg = torch.randn(16, 8, requires_grad=True)
    names = ops_called(lambda: swap.gelu(xg, "tanh").sum().backward())
    check(("headroom_swap::gelu_tanh" in names) == on and ("headroom_swap::gelu_tanh_backward" in names) == on,
          f"gelu arm {'on' if on else 'off'}: headroom_swap operators {sorted(n for n in names if 'swap' in n)}")
    if not on:  # (on the CPU, our operator's CPU implementation is PyTorch's gelu itself)
        check("aten::gelu" in names, "gelu arm off: aten::gelu")
    check(torch.allclose(xg.grad, torch.autograd.grad(torch.nn.functional.gelu(xg, approximate="tanh").sum(), xg)[0]),
          "gelu swap: the same gradient")
    xn = torch.randn(4, requires_grad=True)
    check(torch.equal(swap.gelu(xn, "none"), torch.nn.functional.gelu(xn)), "gelu swap leaves the erf form alone")

swap.configure(["cross"])
grads = []
for on in (True, False):
    swap.set_arm(on)
    leaves = [t.clone().requires_grad_(True) for t in (x0, V, W, b)]
    names = ops_called(lambda: swap.cross_network(*leaves).pow(2).sum().backward())
    check(("headroom_swap::cross_network" in names) == on, f"cross arm {'on' if on else 'off'}: {sorted(n for n in names if 'swap' in n)}")
    grads.append([t.grad for t in leaves])
plain = [t.clone().requires_grad_(True) for t in (x0, V, W, b)]
swap.cross_network_reference(*plain).pow(2).sum().backward()
for arm, g in zip(("on", "off"), grads):
    check(all(torch.allclose(a, p.grad) for a, p in zip(g, plain)), f"cross arm {arm}: PyTorch's gradients for x0, V, W, b")

# The fused update trains the table in both arms the same way, and only through our operators when on.
swap.configure(["embedding"])
results = []
for on in (False, True):
    swap.set_arm(on)
    torch.manual_seed(1)
    w = torch.nn.Parameter(torch.randn(40, 8))
    m = torch.zeros(40)
    idx = torch.randint(0, 40, (6 * 3,))
    off = torch.arange(0, 6 * 3 + 1, 3)
    start = w.detach().clone()
    names = ops_called(lambda: (swap.rowwise_adagrad_lookup(w, m, idx, off, 3, 0.05, 1e-8) ** 2).sum().backward())
    check(w.grad is None, "fused update: the table gets no .grad")
    touched = set(idx.tolist())
    moved = {r for r in range(40) if not torch.equal(w.detach()[r], start[r])}
    check(moved == touched, f"fused update: rows looked up move, the rest do not ({sorted(moved ^ touched)})")
    check(("headroom_swap::embedding_bag_sum" in names) == on and ("headroom_swap::rowwise_adagrad_rows" in names) == on,
          f"embedding arm {'on' if on else 'off'}: {sorted(n for n in names if 'swap' in n)}")
    results.append((w.detach().clone(), m.clone()))
check(torch.allclose(results[0][0], results[1][0]) and torch.allclose(results[0][1], results[1][1]),
      "fused update: both arms give the same table and momentum")
swap.configure([])

# The scripts: an in-process A/B of every swap, and the arms one at a time.
for script, args in (("dlrm.py", ["--mode", "train", "--table-optimizer", "rowwise-adagrad", "--swap", "embedding"]),
                     ("dlrm.py", ["--mode", "infer", "--swap", "embedding"]),
                     ("dlrmv2.py", ["--mode", "train", "--table-optimizer", "rowwise-adagrad", "--swap", "embedding"]),
                     ("dlrmv2.py", ["--mode", "train", "--table-optimizer", "rowwise-adagrad", "--swap", "cross"]),
                     ("dlrmv2.py", ["--mode", "infer", "--swap", "cross"]),
                     ("gpt.py", ["--swap", "gelu"]),
                     ("gpt.py", ["--swap", "gelu-slow", "--slow-factor", "2"])):
    what = f"{script} {' '.join(args)}"
    s = run(script, *args, "--swap-ab", "2", "--steps", "8", "--warmup", "1")
    if "exit" in s:
        check(False, f"{what} --swap-ab 2: exited {s['exit']}: {s['stderr'][-2000:]}")
        continue
    check(s["profile"] == "ab-swap" and s["ab_block"] == 2 and s["swap"] == [args[args.index("--swap") + 1]],
          f"{what}: the A/B's summary")
    check(len(s["step_seconds"]) == 8 and s["recorded"].count(True) == 4, f"{what}: 4 blocks of 2 steps, 2 on")
    check(s["ab_off_median_seconds"] > 0 and s["ab_on_median_seconds"] > 0, f"{what}: both arms timed")
    s = run(script, *args, "--swap-arm", "off", "--steps", "2", "--warmup", "0")
    check(s.get("swap_arm") == "off", f"{what} --swap-arm off: {s.get('swap_arm', s)}")

# Refused, exit status 2: a swap the workload does not have, the training swap without the fused
# optimizer, an A/B without a swap or with one step per block.
for script, args, message in (
        ("gpt.py", ["--swap", "embedding"], "this workload swaps gelu, gelu-slow"),
        ("dlrm.py", ["--swap", "cross"], "this workload swaps embedding"),
        ("resnet50.py", ["--swap", "gelu"], "this workload swaps nothing"),
        ("dlrm.py", ["--mode", "train", "--swap", "embedding"], "give --table-optimizer rowwise-adagrad"),
        ("gpt.py", ["--swap-ab", "2"], "--swap-ab K needs"),
        ("gpt.py", ["--swap", "gelu", "--swap-ab", "1"], "--swap-ab K needs K >= 2"),
        ("gpt.py", ["--swap", "gelu,gelu-slow"], "one or the other")):
    r = run(script, *args)
    check(r.get("exit") == 2 and message in r.get("stderr", ""),
          f"{script} {' '.join(args)}: exit {r.get('exit')}, stderr {r.get('stderr', '')[-300:]!r}")

# The swap problems (suites/swap): each CPU-sized Model runs, the backward's reference is the
# workload's own arithmetic, and make_candidates.py writes candidates that parse.
suite = os.path.join(HERE, "..", "suites", "swap")
os.environ["DLRM_BENCH_PRESET"] = "cpu"
problems = {}
for name in ("dlrm_embedding_forward", "dlrm_embedding_backward", "gpt_gelu_forward", "gpt_gelu_backward",
             "dlrmv2_cross_forward"):
    spec = importlib.util.spec_from_file_location("swap_problem_" + name, os.path.join(suite, "problems", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(3)
    model = module.Model(*module.get_init_inputs())
    inputs = module.get_inputs()
    problems[name] = (model, inputs, model(*inputs))
model, (values, grad_out), out = problems["dlrm_embedding_backward"]
check(len(out) == 78, f"dlrm_embedding_backward: 3 outputs per table, {len(out)}")
at = 0
for t, hot in enumerate(model.multi_hot):
    ids = values[at:at + grad_out.shape[1] * hot].view(-1, hot)
    at += ids.numel()
    ref = swap.rowwise_adagrad_rows_reference(model.weights[t], getattr(model, f"momentum{t}"), ids, grad_out[t],
                                              model.lr, model.eps)
    check(all(torch.equal(a, b) for a, b in zip(ref, out[3 * t:3 * t + 3])), f"dlrm_embedding_backward table {t}")
model, (values, offsets), out = problems["dlrm_embedding_forward"]
check(len(out) == 26 and torch.allclose(out[20][0], model.weights[20][values[sum(8 * h for h in model.multi_hot[:20]):][:100]].sum(0)),
      "dlrm_embedding_forward: table 20's first bag is its 100 rows summed")
model, (x0,), out = problems["dlrmv2_cross_forward"]
check(torch.allclose(out, swap.cross_network_reference(x0, model.V, model.W, model.b)),
      "dlrmv2_cross_forward: the workload's cross network")
cands = os.path.join(TMP, "candidates")
p = subprocess.run([sys.executable, os.path.join(suite, "make_candidates.py"), cands], capture_output=True, text=True)
check(p.returncode == 0, f"make_candidates.py: {p.stderr[-500:]}")
written = sorted(os.path.relpath(os.path.join(d, f), cands) for d, _, fs in os.walk(cands) for f in fs)
check(written == ["swap-slow3/gpt_gelu_backward.py", "swap-slow3/gpt_gelu_forward.py", "swap/dlrm_embedding_backward.py",
                  "swap/dlrm_embedding_forward.py", "swap/dlrmv2_cross_forward.py", "swap/gpt_gelu_backward.py", "swap/gpt_gelu_forward.py"],
      f"make_candidates.py wrote {written}")
for f in written:
    with open(os.path.join(cands, f)) as src:
        tree = ast.parse(src.read())
    models = [n.name for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"]
    check(models, f"{f}: no ModelNew")

h.finish()
