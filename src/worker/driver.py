# The Python half of headroom's evaluation worker (docs/eval.md, "Processes"). The C++ worker
# embeds the interpreter, imports this module before any candidate code runs and keeps references
# to these functions, so a candidate that rebinds names here does not change what the worker calls.
# Everything that must not be patchable (copies, poisoning, timing, comparison) is C++; this file
# only does what needs the Python object model.
import hashlib
import importlib.util
import inspect
import json
import os
import sys
import time
import traceback

import torch

_device = None
_module_count = 0


def setup(device, poison_allocator):
    """Chooses the device; installs the pluggable poisoning CUDA allocator before any CUDA allocation
    when one is named, else initialises CUDA with PyTorch's own caching allocator, which the worker's
    tracker then watches (src/cuda/allocation_hooks.hpp)."""
    global _device
    _device = torch.device(device)
    if _device.type == "cuda":
        if poison_allocator:
            alloc = torch.cuda.memory.CUDAPluggableAllocator(poison_allocator, "headroom_alloc", "headroom_free")
            torch.cuda.memory.change_current_allocator(alloc)
        torch.cuda.set_device(_device)
        torch.cuda.init()
        # The reference is strict float32 (as GPU MODE's checkers are): TF32 would put the reference
        # itself 1e-3 away from exact, which is larger than the float32 threshold.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    torch.set_grad_enabled(False)
    return json.dumps(environment())


def record_probe():
    """The operator the C++ record must see before the worker trusts it (op_record_loader.hpp): add."""
    torch.ones(2, device=_device).add(1)
    synchronize()
    return True


def record_switches():
    """The functions through which Python code switches PyTorch's RecordFunction off: on the calling
    thread (_enable_record_function), or for every thread by removing every callback
    (_clear_callbacks). The worker replaces them (python_record_switches.hpp)."""
    from torch._C import _autograd
    return [getattr(_autograd, n) for n in ("_enable_record_function", "_clear_callbacks") if hasattr(_autograd, n)]


def replace_everywhere(old, new):
    """Rebinds every module attribute that is `old` to `new` (torch re-exports its private functions
    from several modules); returns how many there were."""
    count = 0
    for module in list(sys.modules.values()):
        names = getattr(module, "__dict__", None)
        if not isinstance(names, dict):
            continue
        for name, value in list(names.items()):
            if value is old:
                names[name] = new
                count += 1
    return count


def warm_up_operator_record():
    """One small operation under the Python operator record (the worker's record when the C++ one is
    unavailable), at start-up. On torch 2.11 the first forward
    call under it returned after 6-7 s while its operators took 15-30 ms (H200 logs), in
    every worker of a KernelBench problem; PyTorch without a dispatch mode does not show it. If it is
    the first Python dispatch mode's one-time cost, it is paid here instead, where an early-started
    worker hides it and no trial or measurement waits on it."""
    global _call_began
    if _DispatchMode is None:
        return None
    _call_began = time.perf_counter()
    with _OperatorRecord():
        torch.ones(2, device=_device).add(1)
    synchronize()
    return None


def environment():
    env = {"torch": torch.__version__, "python": sys.version.split()[0]}
    if _device is not None and _device.type == "cuda":
        p = torch.cuda.get_device_properties(_device)
        env.update(gpu=p.name, cuda=str(torch.version.cuda), sms=p.multi_processor_count,
                   capability="%d.%d" % (p.major, p.minor))
    else:
        env.update(gpu="cpu", cuda="")
    return env


def _install_build_cache():
    """load_inline rebuilds in every new process (torch 1.13 rewrites the source file, so ninja sees
    it as changed). A candidate is built once, in the compile phase, in a folder private to its hash;
    the loads after that import the built library when the sources and options are unchanged."""
    from torch.utils import cpp_extension as ce
    original = ce.load_inline
    if getattr(original, "_headroom_cached", False):
        return

    # Bound by the original's own signature: torch 2.x put sycl_sources after cuda_sources, so a
    # positional forwarding of our own would hand `functions` to the wrong parameter.
    signature = inspect.signature(original)

    def load_inline(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
        name = arguments["name"]
        key = repr((sorted(arguments.items(), key=lambda kv: kv[0]), torch.__version__,
                    os.environ.get("TORCH_CUDA_ARCH_LIST", "")))
        digest = hashlib.sha256(key.encode()).hexdigest()
        root = os.environ.get("TORCH_EXTENSIONS_DIR", "")
        folder = os.path.join(root, name)
        stamp = os.path.join(folder, "headroom-build-stamp")
        library = os.path.join(folder, name + ".so")
        python_module = arguments.get("is_python_module", True)
        if root and python_module and os.path.exists(library) and os.path.exists(stamp):
            with open(stamp) as f:
                if f.read() == digest:
                    return ce._import_module_from_library(name, folder, True)
        module = original(*args, **kwargs)
        if root and python_module and os.path.exists(library):
            with open(stamp, "w") as f:
                f.write(digest)
        return module

    load_inline._headroom_cached = True
    ce.load_inline = load_inline


def import_file(path, build_dir):
    """Imports a problem or candidate file under a unique module name. Extensions it builds with
    load_inline go to `build_dir`: a private folder per candidate (KernelBench candidates reuse
    extension names)."""
    global _module_count
    _module_count += 1
    if build_dir:
        os.makedirs(build_dir, exist_ok=True)
        os.environ["TORCH_EXTENSIONS_DIR"] = build_dir
        _install_build_cache()
    name = "headroom_eval_module_%d" % _module_count
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _plain(value):
    """Constructor arguments cross to the candidate's process as JSON: numbers, strings, lists."""
    if isinstance(value, torch.Tensor):
        if value.numel() == 1:
            return value.item()
        raise TypeError("get_init_inputs() returned a tensor with %d elements" % value.numel())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError("get_init_inputs() returned a %s, which cannot be passed on" % type(value).__name__)


def init_inputs(module):
    return json.dumps([_plain(v) for v in module.get_init_inputs()])


def build_model(module, class_name, init_json, seed):
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ImportError("the file defines no class %s" % class_name)
    torch.manual_seed(seed)
    if _device.type == "cuda":
        torch.cuda.manual_seed_all(seed)
    model = cls(*json.loads(init_json))
    if isinstance(model, torch.nn.Module):
        model = model.to(_device)
    return model


def compile_model(model):
    if not hasattr(torch, "compile"):
        return None
    return torch.compile(model)


def _redraw(t, distribution, gen):
    """Floating inputs redrawn in place (KernelBench inputs reach gigabytes: no float64 copies)."""
    if not t.is_floating_point():
        return t  # indices and offsets keep their integer values
    if distribution == 1:
        s = 0.5 + 3.5 * torch.rand((), generator=gen, device=t.device).item()
        o = -2.0 + 4.0 * torch.rand((), generator=gen, device=t.device).item()
        return t.mul_(s).add_(o)
    if distribution == 2:
        if t.dtype in (torch.float32, torch.float64):
            return torch.randn(t.shape, generator=gen, dtype=t.dtype, device=t.device)
        return torch.randn(t.shape, generator=gen, device=t.device).to(t.dtype)
    if distribution == 3:
        mask = torch.rand(t.shape, generator=gen, device=t.device) < 0.001
        t[mask] *= 100.0
        return t
    return t


def _problem_inputs(module, seed):
    """get_inputs() under the seed. On a GPU its tensors are made there (torch's device context):
    KernelBench inputs reach gigabytes, which the CPU's generator takes many seconds to draw."""
    torch.manual_seed(seed)
    if _device is not None and _device.type == "cuda" and hasattr(torch.device, "__enter__"):
        try:
            with _device:
                return module.get_inputs()
        except Exception:
            torch.manual_seed(seed)  # a problem that only works on the CPU: draw there
    return module.get_inputs()


def _constant(value, at):
    """A get_inputs() argument that is not a tensor (KernelBench's 5_Matrix_scalar_multiplication
    passes a float): numbers, strings, None and lists of them travel as JSON to the candidate."""
    if isinstance(value, (list, tuple)):
        return [_constant(v, at) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError("get_inputs() argument %d is a %s; tensors, numbers, strings, None and lists of them "
                    "are supported" % (at, type(value).__name__))


def make_inputs(module, seed, distribution):
    """(tensors, constants): the tensors of get_inputs() redrawn under the distribution, and its other
    arguments as JSON [[position, value], ...], passed unchanged."""
    inputs = _problem_inputs(module, seed)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("get_inputs() must return a list")
    gens = {}
    out = []
    constants = []
    for at, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            x = x.detach().contiguous()
            if x.device not in gens:
                gens[x.device] = torch.Generator(device=x.device).manual_seed(seed ^ 0x5EED)
            out.append(_redraw(x, distribution, gens[x.device]))
        else:
            constants.append([at, _constant(x, at)])
    return out, json.dumps(constants, allow_nan=False)


def parse_constants(text):
    """The constants of make_inputs as [(position, value)], positions checked."""
    constants = [(int(at), value) for at, value in json.loads(text)]
    positions = [at for at, _ in constants]
    if len(set(positions)) != len(positions) or any(at < 0 for at in positions):
        raise ValueError("constant arguments at positions %s" % positions)
    return constants


def to_capsules(tensors):
    """Outputs for the C++ side: (dtype name, capsule) per tensor, contiguous. bool travels as uint8."""
    result = []
    for t in tensors:
        t = t.detach().contiguous()
        name = str(t.dtype).replace("torch.", "")
        if t.dtype == torch.bool:
            t = t.view(torch.uint8)
        result.append((name, torch.utils.dlpack.to_dlpack(t), t))
    return result


def from_capsule(capsule, dtype_name):
    t = torch.utils.dlpack.from_dlpack(capsule)
    if dtype_name == "bool":
        t = t.view(torch.bool)
    return t


def outputs_of(value):
    """forward's result as a list of tensors, or a string saying why it is not one."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if type(v) is not torch.Tensor:
            return "forward returned a %s, not a torch.Tensor" % type(v).__name__
    return values


def output_capsules(value):
    """forward's result as DLPack capsules of its tensors as they are (views, strides and all: no
    copy), for the check of where they live; or a string saying why it is not a list of tensors.
    bool travels as a uint8 view of the same memory."""
    values = outputs_of(value)
    if isinstance(values, str):
        return values
    out = []
    for t in values:
        t = t.detach()
        if t.dtype == torch.bool:
            t = t.view(torch.uint8)
        out.append(torch.utils.dlpack.to_dlpack(t))
    return out


# Output memory a candidate keeps from one call to the next (docs/eval.md, "Outputs the candidate
# keeps"): the worker holds a weak reference to each output's storage, which keeps nothing alive, and
# before the next call fills the memory of those still alive with its pattern. PyTorch's own
# functions, looked up now, before any candidate code runs.
_tensor_untyped_storage = getattr(torch.Tensor, "untyped_storage", None)  # torch >= 2.0
_tensor_storage = torch.Tensor.storage
_storage_weak_ref = torch.UntypedStorage._weak_ref
_storage_from_weak = torch.UntypedStorage._new_with_weak_ptr
_storage_free_weak = torch.UntypedStorage._free_weak_ref
_storage_data_ptr = torch.UntypedStorage.data_ptr
_storage_nbytes = torch.UntypedStorage.nbytes


def _untyped_storage_of(t):
    if _tensor_untyped_storage is not None:
        return _tensor_untyped_storage(t)
    return _tensor_storage(t).untyped()  # torch 1.13


def storage_handles(value):
    """For each output tensor of forward's result, a weak handle of its storage (an int; None for an
    output whose storage cannot be had). [] when the result is not tensors."""
    values = outputs_of(value)
    if isinstance(values, str):
        return []
    handles = []
    for t in values:
        try:
            handles.append(_storage_weak_ref(_untyped_storage_of(t)))
        except Exception:
            handles.append(None)
    return handles


def hold_storage(handle):
    """(the storage, its data pointer, its bytes) while the storage a weak handle names is alive, else
    None. The caller holds the tuple, and with it the storage, while it fills the memory."""
    storage = _storage_from_weak(handle)
    if storage is None:
        return None
    return storage, _storage_data_ptr(storage), _storage_nbytes(storage)


def drop_storage_handle(handle):
    _storage_free_weak(handle)


try:
    from torch.utils._python_dispatch import TorchDispatchMode as _DispatchMode
except ImportError:  # very old torch: no Python operator record, so no torch_fallback flag without the C++ one
    _DispatchMode = None

def _elements_read(t):
    """How many elements of a tensor an operator reads: a dimension broadcast by a zero stride counts
    once (as the C++ record counts, op_record.cpp)."""
    try:
        if 0 in t.shape:
            return 0
        n = 1
        for size, stride in zip(t.shape, t.stride()):
            if stride != 0:
                n *= size
        return n
    except (RuntimeError, NotImplementedError):  # no strides (sparse, nested)
        return t.numel()


def _operand_sizes(name, args, kwargs):
    """"name(n1,n2,...)": the operator with the elements each tensor operand reads, in argument order
    (a list's tensors in their order), as the C++ record names it (op_record.h)."""
    sizes = []
    for a in list(args) + list((kwargs or {}).values()):
        for x in (a if isinstance(a, (list, tuple)) else [a]):
            if isinstance(x, torch.Tensor):
                sizes.append(str(_elements_read(x)))
    return "%s(%s)" % (name, ",".join(sizes))


if _DispatchMode is not None:
    class _OperatorRecord(_DispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func.__name__ if hasattr(func, "__name__") else str(func)
            self.ops.add(_operand_sizes(name.split(".")[0], args, kwargs))
            if not _TRACE:
                return func(*args, **(kwargs or {}))
            _trace(f"operator {name} dispatched", _call_began)
            began = time.perf_counter()
            value = func(*args, **(kwargs or {}))
            _trace(f"operator {name} ran", began)
            return value


# HEADROOM_EVAL_TRACE: the steps of a forward call on the host, to stderr (the worker's log). The first
# call of a worker on a 6 GiB KernelBench problem returned after 4-5 s (later ones: 0.4 ms) and
# PyTorch alone does not show it (docs/device.md: the first operation under a dispatch mode).
_TRACE = bool(os.environ.get("HEADROOM_EVAL_TRACE"))


def _trace(what, began):
    print(f"headroom-worker: {what} after {1e3 * (time.perf_counter() - began):.1f} ms", file=sys.stderr, flush=True)


_call_began = 0.0  # when the current call() began (the trace's operator lines count from it)


def call(model, inputs, record_ops):
    """One forward call. Returns (outputs or error text, the operators it dispatched, each with its
    operands' sizes, or None).
    record_ops: under the Python operator record, which the worker asks for only when its C++
    record (op_record.h) is unavailable; the parent tells compute operators from the others."""
    global _call_began
    began = _call_began = time.perf_counter()
    if record_ops and _DispatchMode is not None:
        record = _OperatorRecord()
        with record:
            if _TRACE:
                _trace("operator record entered", began)
            value = model(*inputs)
            if _TRACE:
                _trace("forward returned", began)
        if _TRACE:
            _trace("operator record left", began)
        result = outputs_of(value), sorted(record.ops)
    else:
        result = outputs_of(model(*inputs)), None
    if _TRACE:
        _trace("outputs collected", began)
    return result


def noop(*args):
    return None


def current_stream():
    if _device is not None and _device.type == "cuda":
        return torch.cuda.current_stream(_device).cuda_stream
    return 0


def synchronize():
    if _device is not None and _device.type == "cuda":
        torch.cuda.synchronize(_device)


def count_flops(model, inputs):
    """FLOPs of one reference forward, from PyTorch's FLOP counter (torch >= 2.1); -1 when unknown."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return -1
    counter = FlopCounterMode(display=False)
    with counter:
        model(*inputs)
    return int(counter.get_total_flops())


def matmul_rate():
    """Dense bf16 matmul rate (FLOP/s) measured here: the compute ceiling of the speed-of-light floor."""
    if _device is None or _device.type != "cuda":
        return -1.0
    n = 8192
    a = torch.randn(n, n, device=_device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=_device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(5):
        start.record()
        for _ in range(10):
            a @ b
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 10.0)
    return 2.0 * n ** 3 / (best * 1e-3)


def replaced_input(args, at, seed):
    """forward's arguments (a tuple) with tensor number `at` (counting tensors only) given other
    values, for the test of which inputs the outputs depend on (docs/eval.md, "The speed-of-light
    floor"): a floating tensor redrawn from a standard normal, an integer one reversed (its own values
    at other places, so that indices stay in range), a bool one negated. None when there is no such
    tensor."""
    out, seen = list(args), 0
    for i, x in enumerate(out):
        if not isinstance(x, torch.Tensor):
            continue
        if seen == at:
            if x.is_floating_point():
                gen = torch.Generator(device=x.device).manual_seed(seed)
                out[i] = torch.randn(x.shape, generator=gen, device=x.device).to(x.dtype)
            elif x.dtype == torch.bool:
                out[i] = ~x
            else:
                out[i] = x.reshape(-1).flip(0).reshape(x.shape)
            return tuple(out)
        seen += 1
    return None


def _formula_functions():
    """The functions a problem's declared floor may call (docs/eval.md, "The speed-of-light floor";
    the metadata of suites/dlrm-bench uses them)."""
    def tensor(x):
        return x if isinstance(x, torch.Tensor) else torch.tensor(x)

    def distinct(*ts):
        return int(torch.unique(torch.cat([tensor(t).reshape(-1) for t in ts])).numel())

    def distinct_segments(t, sizes):
        flat, at, total = tensor(t).reshape(-1), 0, 0
        for n in sizes:
            total += int(torch.unique(flat[at:at + int(n)]).numel())
            at += int(n)
        return total

    def total(x):
        if isinstance(x, torch.Tensor):
            return float(x.sum()) if x.is_floating_point() else int(x.sum())
        return sum(x)

    return {
        "numel": lambda t: int(tensor(t).numel()),
        "size": lambda t, d: int(tensor(t).shape[int(d)]),
        "count": len,
        "sum": total,
        "distinct": distinct,
        "distinct_rows": lambda t: sum(int(torch.unique(row).numel()) for row in tensor(t)),
        "distinct_segments": distinct_segments,
        "lengths": lambda offsets: tensor(offsets)[1:] - tensor(offsets)[:-1],
        "minimum": lambda t, k: torch.clamp(tensor(t), max=int(k)),
        "square": lambda t: tensor(t).double() ** 2,
        "mod": lambda t, k: torch.remainder(tensor(t), int(k)),
        "mul": lambda xs, k: [x * k for x in xs],
    }


def _evaluate(expression, lookup, functions):
    """Arithmetic (+ - * / // ** and parentheses), names, calls of `functions` and constant subscripts;
    nothing else parses."""
    import ast
    arithmetic = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                  ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Pow: lambda a, b: a ** b}

    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            return lookup(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in arithmetic:
            return arithmetic[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                and not node.keywords:
            return functions[node.func.id](*[value(a) for a in node.args])
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            return value(node.value)[node.slice.value]
        raise ValueError("%r: %s is not allowed in a formula" % (expression, type(node).__name__))
    return value(ast.parse(expression, mode="eval"))


def declared_bytes(model, init_json, args, variables_json, formula):
    """A problem's declared floor in bytes: `formula` over the constructor's arguments and forward's
    (by their parameter names) and the declared variables (each evaluated when first named)."""
    cls = type(model)
    names = dict(zip(list(inspect.signature(cls.__init__).parameters)[1:], json.loads(init_json)))
    names.update(zip(list(inspect.signature(cls.forward).parameters)[1:], args))
    variables = json.loads(variables_json)
    functions = _formula_functions()
    pending = set()

    def lookup(name):
        if name in names:
            return names[name]
        if name not in variables or name in pending:
            raise ValueError("%s is not a name the formula knows (or it is defined through itself)" % name)
        pending.add(name)
        names[name] = _evaluate(variables[name], lookup, functions)
        pending.discard(name)
        return names[name]
    return int(_evaluate(formula, lookup, functions))


def guarded_functions():
    """What a timer or checker could be patched through; the worker compares identities after
    every call (reason `tampering`)."""
    import time
    found = []
    def add(name, owner, attr):
        if owner is not None and hasattr(owner, attr):
            found.append((name, getattr(owner, attr)))
    add("time.perf_counter", time, "perf_counter")
    add("time.time", time, "time")
    add("time.monotonic", time, "monotonic")
    add("torch.cuda.synchronize", torch.cuda, "synchronize")
    add("torch.cuda.Event", torch.cuda, "Event")
    event = getattr(torch.cuda, "Event", None)
    add("torch.cuda.Event.record", event, "record")
    add("torch.cuda.Event.elapsed_time", event, "elapsed_time")
    add("torch.cuda.Event.synchronize", event, "synchronize")
    add("torch.allclose", torch, "allclose")
    add("torch.equal", torch, "equal")
    add("torch.Tensor.__eq__", torch.Tensor, "__eq__")
    add("torch.utils.dlpack.to_dlpack", torch.utils.dlpack, "to_dlpack")
    add("torch.utils.dlpack.from_dlpack", torch.utils.dlpack, "from_dlpack")
    add("torch.Tensor.contiguous", torch.Tensor, "contiguous")
    add("torch.Tensor.detach", torch.Tensor, "detach")
    add("torch.Tensor.view", torch.Tensor, "view")
    add("torch.nn.Module.__call__", torch.nn.Module, "__call__")
    return found


def changed_functions(snapshot):
    now = dict(guarded_functions())
    return [name for name, fn in snapshot if now.get(name) is not fn]


def describe_exception(exc):
    """(kind, message, traceback) for a Python exception raised by candidate code."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    message = "%s: %s" % (type(exc).__name__, exc)
    lowered = message.lower()
    kind = ""
    if isinstance(exc, MemoryError) or "out of memory" in lowered or "not enough memory" in lowered \
            or type(exc).__name__ == "OutOfMemoryError" or "failed to allocate" in lowered \
            or "allocate memory" in lowered:
        kind = "out_of_memory"
    elif "illegal memory access" in lowered or "illegal address" in lowered or "misaligned address" in lowered:
        kind = "illegal_address"
    return kind, message, text[-8000:]
