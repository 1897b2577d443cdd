"""Every public name of nnref has a device test: run on 'cuda' (the strict stand-in for CuPy in
CI, the GPU with ``./dev.sh gpu``) and compared with the same code on the CPU.

HOW TO ADD A NAME.  ``public_api()`` lists every public name of ``nnref``, ``nnref.nn``,
``nnref.nn.functional``, ``nnref.nn.init``, ``nnref.optim``, ``nnref.optim.lr_scheduler``,
``nnref.utils.data`` and ``nnref.distributions``; ``test_every_public_name_has_a_device_case``
fails for a name missing from ``CASES`` below (and for an entry whose name is gone).  Add one
line, keyed by the full name::

    "nnref.nn.GELU": layer(lambda: nn.GELU(), (4, 5)),            # a module: forward + backward
    "nnref.nn.functional.gelu": op(F.gelu, (4, 5)),               # a function of float tensors
    "nnref.erf": op(nnref.erf, (3, 4)),
    "nnref.nn.HuberLoss": loss(lambda: nn.HuberLoss(), (4, 5)),   # (input, target) -> loss
    "nnref.optim.RMSprop": optimizer(lambda ps: optim.RMSprop(ps, lr=0.01)),
    "nnref.optim.lr_scheduler.CosineAnnealingLR": scheduler(lambda o: lr_scheduler.CosineAnnealingLR(o, 4)),
    "nnref.randperm": seeded_draw(lambda d: nnref.randperm(10, device=d)),  # values differ per device
    "nnref.utils.data.DataLoader": case(lambda d: ...),           # any code; returns what to compare
    "nnref.get_default_dtype": HOST_ONLY("a dtype, no tensor values"),
    "nnref.manual_seed": ELSEWHERE("test_on_device.py::test_manual_seed_reproduces_the_devices_random_numbers"),

The builders: ``op(f, *shapes, values=normal)`` makes float leaf tensors of those shapes on the
device, applies ``f``, backpropagates fixed weights, and compares the outputs and every input's
gradient; ``case(f)`` runs ``f(device)`` and compares whatever it returns (tensors, numbers,
dtypes, nested lists of them; ``leaf(d, shape)`` and ``labels(d, values)`` make inputs);
``random_draw`` compares shape, dtype and device only; ``seeded_draw(f, holds)`` adds whether
``holds`` (a range, a support) is true of every value and whether ``manual_seed`` reproduces the
draw; ``layer``, ``loss``, ``optimizer`` and ``scheduler`` build, train or step the object on
each device.  ``HOST_ONLY(why)`` is for names
that never touch tensor values (dtypes, grad-mode queries), ``ELSEWHERE(test)`` for names a
named test of tests/device runs on the device (checked to exist).
"""
import copy
import pathlib

import numpy as np
import pytest

import nnref
from nnref import distributions, nn, optim
from nnref.nn import functional as F
from nnref.nn import init
from nnref.optim import lr_scheduler
from nnref.utils import data

FLOAT32 = dict(rtol=1e-4, atol=1e-5)
HERE = pathlib.Path(__file__).parent
# Tensor's dunder attributes that are Python plumbing, not operations on values
PLUMBING = {"__dict__", "__module__", "__slots__", "__weakref__", "__doc__", "__init__", "__repr__",
            "__hash__", "__array_priority__", "__setstate__", "__getstate__", "__reduce_ex__",
            "__new__", "__init_subclass__", "__format__", "__str__", "__class_getitem__"}
SUBMODULES = {"autograd", "cuda", "nn", "optim", "serialization", "utils", "viz", "functional", "init", "linalg",
              "modules", "parameter", "lr_scheduler", "compiler", "amp", "backends",
              "distributions", "rnn", "testing", "parametrize", "parametrizations",
              "distributed", "parallel", "onnx", "profiler", "core"}


def public_api():
    """Every public name, as 'module.name', of the namespaces a PyTorch user imports, and every
    method, property and operator of Tensor."""
    names = {f"nnref.{n}" for n in dir(nnref) if not n.startswith("_") and n not in SUBMODULES}
    namespaces = {"nnref.nn": nn, "nnref.nn.functional": F, "nnref.nn.init": init,
                  "nnref.optim": optim, "nnref.optim.lr_scheduler": lr_scheduler,
                  "nnref.linalg": nnref.linalg, "nnref.distributions": nnref.distributions,
                  "nnref.nn.utils": nn.utils, "nnref.nn.utils.rnn": nn.utils.rnn,
                  "nnref.nn.utils.parametrize": nn.utils.parametrize,
                  "nnref.nn.utils.parametrizations": nn.utils.parametrizations,
                  "nnref.testing": nnref.testing, "nnref.autograd.functional": nnref.autograd.functional}
    try:
        from nnref.utils import data
        namespaces["nnref.utils.data"] = data
    except ImportError:
        pass
    for prefix, module in namespaces.items():
        exported = getattr(module, "__all__", None)
        if exported is None:
            exported = [n for n in dir(module) if not n.startswith("_")
                        and getattr(getattr(module, n), "__module__", "").startswith("nnref")]
        names |= {f"{prefix}.{n}" for n in exported if n not in SUBMODULES}
    names |= {f"nnref.Tensor.{n}" for n in dir(nnref.Tensor)
              if not n.startswith("_") or (n.startswith("__") and n in vars(nnref.Tensor)
                                           and n not in PLUMBING)}
    return names


SEEDING = "test_on_device.py::test_manual_seed_reproduces_the_devices_random_numbers"


# -- the builders of the table -----------------------------------------------------------------------
class HOST_ONLY(str):
    """A name that computes nothing on tensor values, so there is nothing to run on a device."""


class ELSEWHERE(str):
    """A name exercised on the device by the named test of tests/device ('file.py::test')."""


def case(f):
    """``f(device)`` returns what to compare: tensors, numbers, dtypes, lists and tuples of them."""
    return f


def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def leaf(d, shape, seed=0, values=normal, grad=True, dtype=nnref.float32):
    """A tensor of fixed values on ``d``; a leaf that wants its gradient when ``grad``."""
    data = values(np.random.default_rng(seed), shape)
    return nnref.tensor(data, dtype=dtype, device=d, requires_grad=grad and dtype.is_floating_point)


def labels(d, values):
    return nnref.tensor(values, device=d)


def _tensors(out):
    if isinstance(out, nnref.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return []


def with_grads(out, inputs):
    """``out`` and each input's gradient after backpropagating fixed weights through every output."""
    outs = _tensors(out)
    differentiable = [o for o in outs if o.requires_grad]
    if differentiable:
        total = None
        for o in differentiable:
            weights = np.linspace(-1.0, 1.0, o.numel()).reshape(o.shape)
            term = (o * nnref.tensor(weights, dtype=o.dtype, device=o.device)).sum()
            total = term if total is None else total + term
        total.backward()
    return [out, [x.grad for x in inputs]]


def op(f, *shapes, values=normal):
    """``f`` on float leaf tensors of ``shapes``: the outputs and every input's gradient."""
    def run(d):
        inputs = [leaf(d, shape, seed=i, values=values) for i, shape in enumerate(shapes)]
        return with_grads(f(*inputs), inputs)
    return run


def random_draw(f):
    """Random numbers differ between devices' generators: compare shape, dtype and device."""
    def run(d):
        out = f(d)
        return [out.shape, out.dtype, out.device == d]
    return run


def seeded_draw(f, holds=lambda t: True):
    """A draw's properties on each device: shape, dtype, device, whether ``holds(t)`` (a range,
    a support) is true of every value, and that ``manual_seed`` reproduces it."""
    def run(d):
        nnref.manual_seed(3)
        first = f(d)
        nnref.manual_seed(3)
        again = f(d)
        return [first.shape, first.dtype, first.device == d, bool(holds(first)), nnref.equal(first, again)]
    return run


def layer(build, shape, values=normal):
    """A module built on the CPU (same seed for both runs), moved to the device, run forward and
    backward: output, input gradient, parameter gradients and buffers."""
    def run(d):
        nnref.manual_seed(0)
        module = build().to(d)
        x = leaf(d, shape, values=values)
        out = with_grads(module(x), [x])
        return [out, [p.grad for p in module.parameters()], list(module.buffers())]
    return run


def loss(build, shape, target=None):
    """A loss module or function on (input, target); the target is float values of ``shape``
    unless ``target(d)`` gives it."""
    def run(d):
        x = leaf(d, shape)
        y = target(d) if target else leaf(d, shape, seed=1, grad=False)
        return with_grads(build()(x, y), [x])
    return run


def _small_model(d):
    nnref.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(d)


def optimizer(make, steps=3):
    """Three steps on a small model: the losses, the parameters and the optimizer's state."""
    def run(d):
        model = _small_model(d)
        opt = make(model.parameters())
        x, y = leaf(d, (5, 4), grad=False), leaf(d, (5, 3), seed=1, grad=False)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            value = F.mse_loss(model(x), y)
            value.backward()
            opt.step()
            losses.append(value.item())
        # step counts (and NAdam's mu_product) stay on the CPU, as PyTorch keeps them: compare as numbers
        state = [float(t) if key in ("step", "mu_product") else t
                 for s in opt.state.values() for key, t in s.items()]
        return [losses, list(model.parameters()), state]
    return run


def scheduler(make, steps=4, metric=False):
    """SGD stepped by the scheduler on the device: learning rates and the parameters (with
    ``metric``, ``step`` is given the loss, a tensor on the device, as ReduceLROnPlateau takes)."""
    def run(d):
        model = _small_model(d)
        opt = optim.SGD(model.parameters(), lr=0.1)
        sched = make(opt)
        x, y = leaf(d, (5, 4), grad=False), leaf(d, (5, 3), seed=1, grad=False)
        rates = []
        for _ in range(steps):
            opt.zero_grad()
            value = F.mse_loss(model(x), y)
            value.backward()
            opt.step()
            sched.step(value) if metric else sched.step()
            rates.append(opt.param_groups[0]["lr"])
        return [rates, list(model.parameters())]
    return run


class _Pair(nn.Module):
    """Two linear layers held by the container under test."""

    def __init__(self, kind):
        super().__init__()
        if kind == "list":
            self.layers = nn.ModuleList([nn.Linear(3, 4), nn.Linear(4, 2)])
        else:
            self.layers = nn.ModuleDict({"a": nn.Linear(3, 4), "b": nn.Linear(4, 2)})

    def forward(self, x):
        for module in (self.layers if isinstance(self.layers, nn.ModuleList) else self.layers.values()):
            x = module(x)
        return x


class _Affine(nn.Module):
    """A scale and shift held as Parameters in the container under test (or plain attributes)."""

    def __init__(self, kind):
        super().__init__()
        scale, shift = nn.Parameter(nnref.ones(3) * 1.5), nn.Parameter(nnref.zeros(3) + 0.25)
        if kind == "list":
            self.params = nn.ParameterList([scale, shift])
        elif kind == "dict":
            self.params = nn.ParameterDict({"scale": scale, "shift": shift})
        else:
            self.scale, self.shift = scale, shift

    def forward(self, x):
        if hasattr(self, "params"):
            scale, shift = (self.params if isinstance(self.params, nn.ParameterList)
                            else self.params.values())
        else:
            scale, shift = self.scale, self.shift
        return x * scale + shift


def _embedding(d):
    """Indices in, rows out; the weight's gradient sums repeated rows and skips padding_idx."""
    nnref.manual_seed(0)
    embedding = nn.Embedding(6, 3, padding_idx=0).to(d)
    out = with_grads(embedding(labels(d, [[0, 2, 2], [5, 1, 0]])), [])
    return [out, embedding.weight.grad]


def _batch_norm(d):
    """Training mode: the output, the input's gradient and the running statistics it updates."""
    x = leaf(d, (4, 3))
    mean, var = nnref.zeros(3, device=d), nnref.ones(3, device=d)
    return [with_grads(F.batch_norm(x, mean, var, training=True), [x]), mean, var]


def _inside_one(rng, shape):
    return rng.uniform(-0.8, 0.8, shape)


_ELEMENTWISE_VALUES = {"log1p": positive, "log2": positive, "log10": positive, "rsqrt": positive,
                       "asin": _inside_one, "acos": _inside_one, "arcsin": _inside_one, "arccos": _inside_one}


def _elementwise(name, where, suffix):
    """``nnref.NAME(x)``, ``x.NAME()`` or ``x.NAME_()`` (on a non-leaf copy, so gradients flow)."""
    if where == "nnref.":
        return lambda x: getattr(nnref, name)(x)
    if suffix:
        return lambda x: _in_place(x, lambda t: getattr(t, name + "_")())
    return lambda x: getattr(x, name)()


def _order_statistic(x, where, name):
    f = getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name)
    if name == "kthvalue":
        return [*f(x, 2), *f(x, 3, 0, True)]
    if name == "mode":
        return [*f(x.round()), *f(x, 0)]
    return [f(x), *f(x, 1), *f(x * nnref.tensor([[1.0, float("nan"), 1.0, 1.0]], device=x.device), 0, True)]


def _shape_composite(x, where, name):
    f = getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name)
    if name in ("tensor_split", "hsplit", "vsplit", "dsplit"):
        return [*f(x, 2), *(f(x, [1, 3], 1) if name == "tensor_split" else f(x, [1]))]
    if name == "rot90":
        return [f(x), f(x, 3, (2, 0))]
    if name == "diff":
        return [f(x), f(x, 2, 1, prepend=x[:, :1] * 2)]
    return f(x)


_FORMS = (("nnref.", ""), ("nnref.Tensor.", ""), ("nnref.Tensor.", "_"))


def _scaled_product(where, name, suffix, c, a, b):
    if where == "nnref.":
        return [getattr(nnref, name)(c, a, b), getattr(nnref, name)(c, a, b, beta=0.5, alpha=2)]
    if suffix:
        return _in_place(c, lambda t: getattr(t, name + "_")(a, b, alpha=-1))
    return getattr(c, name)(a, b)


def _write_into(where, name, suffix, x, *args):
    if where == "nnref.":
        return getattr(nnref, name)(x, *args)
    if suffix:
        return _in_place(x, lambda t: getattr(t, name + "_")(*args))
    return getattr(x, name)(*args)


def _bitwise(d, where, name, suffix):
    a, b = labels(d, [12, 10, -3]), labels(d, [10, 6, 5])
    args = () if name == "not" else (b,)
    if where == "nnref.":
        return [getattr(nnref, "bitwise_" + name)(a, *args), getattr(nnref, "bitwise_" + name)(a > 10, *(
            () if name == "not" else (b > 5,)))]
    result = getattr(a, "bitwise_" + name + suffix)(*args)
    return [result, a]


def _bitwise_operator(d, kind, name):
    a = labels(d, [12, 10, -3])
    if kind == "r":
        return getattr(a, f"__r{name}__")(6)
    result = getattr(a, f"__i{name}__")(labels(d, [6, 6, 6]))
    return [result, a]


def _inside_unit(rng, shape):
    return rng.uniform(0.1, 0.9, shape)


_MORE_VALUES = {"acosh": lambda rng, shape: rng.uniform(1.2, 3.0, shape), "arccosh": lambda rng, shape: rng.uniform(1.2, 3.0, shape),
                "atanh": _inside_one, "arctanh": _inside_one, "erfinv": _inside_one, "logit": _inside_unit,
                "lgamma": positive, "digamma": positive, "xlogy": positive, "float_power": positive}


def _two(name, where, suffix):
    """``nnref.NAME(x, y)``, ``x.NAME(y)`` or ``x.NAME_(y)`` (on a non-leaf copy of ``x``)."""
    if where == "nnref.":
        return lambda x, y: getattr(nnref, name)(x, y)
    if suffix:
        return lambda x, y: _in_place(x, lambda t: getattr(t, name + "_")(y))
    return lambda x, y: getattr(x, name)(y)


def _seeded(build):
    """``build()`` after ``manual_seed(0)``: the same weights on each device's run."""
    nnref.manual_seed(0)
    return build()


class _SelfAttention(nn.Module):
    """Self-attention with a causal mask and padding, output and head-averaged weights summed."""

    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        causal = nnref.triu(nnref.ones(x.shape[1], x.shape[1], dtype=nnref.bool, device=x.device), 1)
        padding = nnref.zeros(x.shape[0], x.shape[1], dtype=nnref.bool, device=x.device)
        padding[0, -1] = True
        out, weights = self.attention(x, x, x, attn_mask=causal, key_padding_mask=padding)
        return out.sum() + weights.sum()


class _FirstOutput(nn.Module):
    """A recurrent layer whose output sequence and final states are summed into one tensor."""

    def __init__(self, recurrent):
        super().__init__()
        self.recurrent = recurrent

    def forward(self, x):
        out, finals = self.recurrent(x)
        finals = finals if isinstance(finals, tuple) else (finals,)
        return out.sum() + sum(f.sum() for f in finals) * 0.5


_REORDER_ARGS = {
    "flip": lambda x: ((0, 1),), "roll": lambda x: ((1, -1), (0, 1)),
    "index_select": lambda x: (1, labels(x.device, [3, 0, 3])), "broadcast_to": lambda x: ((2, 3, 4),),
    "movedim": lambda x: (0, 1), "moveaxis": lambda x: (1, 0), "swapaxes": lambda x: (0, 1),
    "swapdims": lambda x: (1, 0), "unflatten": lambda x: (1, (2, 2)), "ravel": lambda x: (),
    "tile": lambda x: ((2, 1),), "negative": lambda x: ()}


_BLEND_ARGS = {
    "atan2": lambda x, y: (y,), "arctan2": lambda x, y: (y,), "hypot": lambda x, y: (y,),
    "lerp": lambda x, y: (y, 0.3), "addcmul": lambda x, y: (x, y), "addcdiv": lambda x, y: (y, x),
    "nan_to_num": lambda x, y: (), "trace": lambda x, y: (),
    "take_along_dim": lambda x, y: (labels(x.device, [[0], [3], [1]]), 1),
    "repeat_interleave": lambda x, y: (labels(x.device, [2, 0, 1, 1]), 1)}


def _logical(d, name, where):
    a, b = labels(d, [0, 1, 2, 0]), leaf(d, (4,), grad=False)
    if name == "count_nonzero":
        return [nnref.count_nonzero(a), a.reshape(2, 2).count_nonzero(dim=0)] if where == "nnref." else \
            [a.count_nonzero(), a.reshape(2, 2).count_nonzero(0)]
    args = (a,) if name == "logical_not" else (a, b)
    return getattr(nnref, name)(*args) if where == "nnref." else getattr(args[0], name)(*args[1:])


def _logical_in_place(d, name):
    a = labels(d, [0, 1, 2, 0]).bool()
    others = () if name == "logical_not" else (labels(d, [1, 1, 0, 0]).bool(),)
    return getattr(a, name + "_")(*others)


def _grad_mode(enter):
    def run(d):
        x = leaf(d, (3,))
        with enter():
            y = x * 2
        return [y, y.requires_grad]
    return run


# -- the table: every public name -> its device case ------------------------------------------------
CASES = {
    # tensors
    "nnref.Tensor": ELSEWHERE("test_on_device.py::test_every_op_on_the_gpu_matches_the_cpu_path"),
    "nnref.Size": HOST_ONLY("a tuple of sizes"),
    "nnref.FloatTensor": case(lambda d: nnref.FloatTensor([1.0, 2.0]).to(d) * 2),
    "nnref.DoubleTensor": case(lambda d: nnref.DoubleTensor([1.0, 2.0]).to(d) * 2),
    "nnref.HalfTensor": case(lambda d: nnref.HalfTensor([1.0, 2.0]).to(d) * 2),
    "nnref.IntTensor": case(lambda d: nnref.IntTensor([1, 2]).to(d) * 2),
    "nnref.LongTensor": case(lambda d: nnref.LongTensor([1, 2]).to(d) * 2),
    "nnref.BoolTensor": case(lambda d: nnref.BoolTensor([True, False]).to(d) | True),
    "nnref.ByteTensor": case(lambda d: nnref.ByteTensor([1, 2]).to(d) * 2),
    "nnref.CharTensor": case(lambda d: nnref.CharTensor([-1, 2]).to(d) * 2),
    "nnref.ShortTensor": case(lambda d: nnref.ShortTensor([-1, 2]).to(d) * 2),
    "nnref.BFloat16Tensor": HOST_ONLY("CuPy has no bfloat16: the 'cuda' device refuses the dtype"),
    "nnref.is_tensor": case(lambda d: nnref.is_tensor(nnref.ones(1, device=d))),
    "nnref.numel": case(lambda d: nnref.numel(nnref.ones(2, 3, device=d))),
    # creation
    "nnref.tensor": case(lambda d: nnref.tensor([[1, 2], [3, 4]], device=d)),
    "nnref.as_tensor": case(lambda d: nnref.as_tensor(np.arange(4.0), device=d)),
    "nnref.from_numpy": case(lambda d: nnref.from_numpy(np.arange(4.0)).to(d)),
    "nnref.zeros": case(lambda d: nnref.zeros(2, 3, device=d)),
    "nnref.ones": case(lambda d: nnref.ones(2, 3, dtype=nnref.float64, device=d)),
    "nnref.full": case(lambda d: nnref.full((2, 2), 7.5, device=d)),
    "nnref.Tensor.new": case(lambda d: [leaf(d, (2,)).new(2, 3).shape, leaf(d, (2,)).new([1.5, 2.5]),
                                        leaf(d, (2,)).new().shape]),
    "nnref.Tensor.new_zeros": case(lambda d: [leaf(d, (2,)).new_zeros(2, 3), leaf(d, (2,)).new_zeros((1,))]),
    "nnref.Tensor.new_ones": case(lambda d: leaf(d, (2,)).new_ones(2, dtype=nnref.int64)),
    "nnref.Tensor.new_empty": case(lambda d: leaf(d, (2,)).new_empty(3).shape),
    "nnref.Tensor.new_full": case(lambda d: labels(d, [1, 2]).new_full((2, 2), 7.5)),
    "nnref.Tensor.new_tensor": case(lambda d: [leaf(d, (2,)).new_tensor([1, 2]), labels(d, [1]).new_tensor([[2.5]])]),
    "nnref.eye": case(lambda d: nnref.eye(3, 2, device=d)),
    "nnref.arange": case(lambda d: [nnref.arange(5, device=d), nnref.arange(0, 1, 0.25, device=d)]),
    "nnref.linspace": case(lambda d: nnref.linspace(-1, 1, 7, device=d)),
    "nnref.empty": random_draw(lambda d: nnref.empty(2, 3, device=d)),
    "nnref.zeros_like": case(lambda d: nnref.zeros_like(leaf(d, (2, 3)))),
    "nnref.ones_like": case(lambda d: nnref.ones_like(leaf(d, (2, 3)))),
    "nnref.full_like": case(lambda d: nnref.full_like(leaf(d, (2, 3)), 3.0)),
    "nnref.empty_like": random_draw(lambda d: nnref.empty_like(leaf(d, (2, 3)))),
    "nnref.rand": random_draw(lambda d: nnref.rand(50, device=d)),
    "nnref.randn": random_draw(lambda d: nnref.randn(50, device=d)),
    "nnref.randint": random_draw(lambda d: nnref.randint(0, 10, (50,), device=d)),
    "nnref.rand_like": random_draw(lambda d: nnref.rand_like(leaf(d, (4, 5)))),
    "nnref.randn_like": random_draw(lambda d: nnref.randn_like(leaf(d, (4, 5)))),
    # pointwise
    "nnref.abs": op(nnref.abs, (3, 4)),
    "nnref.neg": op(nnref.neg, (3, 4)),
    "nnref.exp": op(nnref.exp, (3, 4)),
    # reordering, picking, one-sided clamps and other names for views: function and method forms
    **{f"{where}{name}": op(lambda x, name=name, args=args, where=where:
                            (getattr(nnref, name)(x, *args(x)) if where == "nnref." else getattr(x, name)(*args(x))),
                            (3, 4), values=positive)
       for name, args in _REORDER_ARGS.items() for where in ("nnref.", "nnref.Tensor.")},
    "nnref.masked_select": op(lambda x: nnref.masked_select(x, x > 1.0), (3, 4), values=positive),
    "nnref.Tensor.masked_select": op(lambda x: x.masked_select(x > 1.0), (3, 4), values=positive),
    "nnref.outer": op(lambda a, b: nnref.outer(a, b), (3,), (4,)),
    "nnref.Tensor.outer": op(lambda a, b: a.outer(b), (3,), (4,)),
    "nnref.ger": op(lambda a, b: nnref.ger(a, b), (3,), (4,)),
    "nnref.Tensor.ger": op(lambda a, b: a.ger(b), (3,), (4,)),
    "nnref.clamp_min": op(lambda x, b: [nnref.clamp_min(x, 1.0), nnref.clamp_min(x, b)], (3, 4), (4,), values=positive),
    "nnref.clamp_max": op(lambda x, b: [nnref.clamp_max(x, 1.0), nnref.clamp_max(x, b)], (3, 4), (4,), values=positive),
    "nnref.Tensor.clamp_min": op(lambda x, b: [x.clamp_min(1.0), x.clamp_min(b)], (3, 4), (4,), values=positive),
    "nnref.Tensor.clamp_max": op(lambda x, b: [x.clamp_max(1.0), x.clamp_max(b)], (3, 4), (4,), values=positive),
    "nnref.Tensor.clamp_min_": op(lambda x: _in_place(x, lambda t: t.clamp_min_(1.0)), (3, 4), values=positive),
    "nnref.Tensor.clamp_max_": op(lambda x: _in_place(x, lambda t: t.clamp_max_(1.0)), (3, 4), values=positive),
    "nnref.Tensor.negative_": op(lambda x: _in_place(x, lambda t: t.negative_()), (3, 4)),
    "nnref.positive": op(nnref.positive, (3, 4)),
    "nnref.Tensor.positive": op(lambda x: x.positive(), (3, 4)),
    **{f"{where}{name}": case(lambda d, name=name, where=where: _logical(d, name, where))
       for name in ("logical_and", "logical_or", "logical_xor", "logical_not", "count_nonzero")
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"nnref.Tensor.{name}_": case(lambda d, name=name: _logical_in_place(d, name))
       for name in ("logical_and", "logical_or", "logical_xor", "logical_not")},
    "nnref.is_floating_point": HOST_ONLY("a dtype question"),
    "nnref.set_printoptions": HOST_ONLY("how tensors print"),
    "nnref.Tensor.ndimension": HOST_ONLY("a number of dimensions"),
    "nnref.Tensor.itemsize": HOST_ONLY("a size in bytes"),
    "nnref.Tensor.nbytes": HOST_ONLY("a size in bytes"),
    "nnref.Tensor.is_cpu": case(lambda d: leaf(d, (2,)).is_cpu == (d.type == "cpu")),
    # blends of two or three tensors, their in-place forms, and composites
    **{f"{where}{name}": op(lambda x, y, name=name, where=where, args=args:
                            (getattr(nnref, name)(x, *args(x, y)) if where == "nnref." else getattr(x, name)(*args(x, y))),
                            (3, 4), (4,), values=positive)
       for name, args in _BLEND_ARGS.items() for where in ("nnref.", "nnref.Tensor.")},
    **{f"nnref.Tensor.{name}_": op(lambda x, y, name=name, args=args: _in_place(x, lambda t: getattr(t, name + "_")(*args(x, y))),
                                   (3, 4), (4,), values=positive)
       for name, args in _BLEND_ARGS.items() if name not in ("hypot", "trace", "take_along_dim", "repeat_interleave")},
    "nnref.diag": op(lambda v, a: [nnref.diag(v, 1), nnref.diag(a, -1)], (3,), (3, 4)),
    "nnref.Tensor.diag": op(lambda v, a: [v.diag(), a.diag(2)], (3,), (3, 4)),
    "nnref.index_add": op(lambda a, b: nnref.index_add(a, 1, labels(a.device, [3, 0, 3]), b, alpha=2), (3, 4), (3, 3)),
    "nnref.Tensor.index_add": op(lambda a, b: a.index_add(1, labels(a.device, [3, 0, 3]), b), (3, 4), (3, 3)),
    "nnref.Tensor.index_add_": op(lambda a, b: _in_place(a, lambda t: t.index_add_(1, labels(a.device, [3, 0]), b)),
                                  (3, 4), (3, 2)),
    **{f"{where}unique": case(lambda d, where=where: (nnref.unique if where == "nnref." else nnref.Tensor.unique)(
        labels(d, [[3, 1], [3, 2]]), return_inverse=True, return_counts=True)) for where in ("nnref.", "nnref.Tensor.")},
    "nnref.meshgrid": op(lambda a, b: list(nnref.meshgrid(a, b, indexing="ij")) + list(nnref.meshgrid(a, b, indexing="xy")),
                         (3,), (4,)),
    **{f"{where}argwhere": case(lambda d, where=where: nnref.argwhere(labels(d, [[0, 1], [2, 0]])) if where == "nnref."
                                else labels(d, [[0, 1], [2, 0]]).argwhere()) for where in ("nnref.", "nnref.Tensor.")},
    # more elementwise math: the function, the method and its in-place form of each name
    **{f"{where}{name}{suffix}": op(_elementwise(name, where, suffix), (3, 4), values=_ELEMENTWISE_VALUES.get(name, normal))
       for name in ("log1p", "expm1", "log2", "log10", "rsqrt", "square", "tan", "sinh", "cosh", "asin", "acos", "atan",
                    "arcsin", "arccos", "arctan", "erf", "floor", "ceil", "trunc", "fix", "frac")
       for where, suffix in (("nnref.", ""), ("nnref.Tensor.", ""), ("nnref.Tensor.", "_"))},
    **{f"{where}{name}{suffix}": op(_elementwise(name, where, suffix), (3, 4), values=_MORE_VALUES.get(name, normal))
       for name in ("acosh", "asinh", "atanh", "arccosh", "arcsinh", "arctanh", "deg2rad", "rad2deg", "exp2", "sinc",
                    "logit", "erfc", "erfinv", "lgamma", "digamma", "sgn", "absolute")
       for where, suffix in (("nnref.", ""), ("nnref.Tensor.", ""), ("nnref.Tensor.", "_"))},
    **{f"{where}{name}{suffix}": op(_two(name, where, suffix), (3, 4), (4,), values=_MORE_VALUES.get(name, normal))
       for name in ("copysign", "xlogy", "logaddexp", "logaddexp2", "fmax", "fmin", "fmod", "float_power",
                    "true_divide", "divide", "multiply", "subtract")
       for where, suffix in (("nnref.", ""), ("nnref.Tensor.", ""), ("nnref.Tensor.", "_"))
       if not (where == "nnref." and name in ("divide", "multiply", "subtract"))  # (nnref.divide: see div)
       and not (suffix and name in ("logaddexp", "logaddexp2", "fmax", "fmin", "float_power"))},
    "nnref.Tensor.float_power_": op(lambda x: _in_place(x.double(), lambda t: t.float_power_(2)), (3, 4)),
    "nnref.polygamma": op(lambda x: [nnref.polygamma(1, x), nnref.polygamma(2, x)], (3, 4), values=positive),
    "nnref.Tensor.polygamma": op(lambda x: x.polygamma(1), (3, 4), values=positive),
    "nnref.Tensor.polygamma_": op(lambda x: _in_place(x, lambda t: t.polygamma_(0)), (3, 4), values=positive),
    **{f"{where}heaviside{suffix}": case(lambda d, where=where, suffix=suffix: (
        nnref.heaviside if where == "nnref." else getattr(nnref.Tensor, "heaviside" + suffix))(
            nnref.tensor([-1.0, 0.0, 2.0, 0.0], device=d), nnref.tensor([0.5], device=d)))
       for where, suffix in (("nnref.", ""), ("nnref.Tensor.", ""), ("nnref.Tensor.", "_"))},
    **{f"{where}{name}": case(lambda d, where=where, name=name: (
        getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name))(
            nnref.tensor([-1.0, -0.0, 2.0, 0.5], device=d), *(() if name == "signbit" else (0.5,))))
       for name in ("signbit", "greater", "greater_equal", "less", "less_equal", "not_equal")
       for where in ("nnref.", "nnref.Tensor.")},
    "nnref.log": op(nnref.log, (3, 4), values=positive),
    "nnref.sqrt": op(nnref.sqrt, (3, 4), values=positive),
    "nnref.sin": op(nnref.sin, (3, 4)),
    "nnref.cos": op(nnref.cos, (3, 4)),
    "nnref.tanh": op(nnref.tanh, (3, 4)),
    "nnref.sigmoid": op(nnref.sigmoid, (3, 4)),
    "nnref.relu": op(nnref.relu, (3, 4)),
    "nnref.sign": op(nnref.sign, (3, 4)),
    "nnref.round": op(lambda x: [nnref.round(x), nnref.round(x * 10, decimals=1)], (3, 4)),
    "nnref.reciprocal": op(nnref.reciprocal, (3, 4), values=positive),
    "nnref.pow": op(lambda x, y: [nnref.pow(x, 2), nnref.pow(x, y), nnref.pow(2.0, y)], (3, 4), (3, 4),
                    values=positive),
    "nnref.clamp": op(lambda x: [nnref.clamp(x, -0.5, 0.5), nnref.clamp(x, min=0.1)], (3, 4)),
    "nnref.clip": op(lambda x: nnref.clip(x, -0.5, 0.5), (3, 4)),
    "nnref.where": op(lambda x, y: [nnref.where(x > 0, x, y), nnref.where(x > y, x, 0.0)], (3, 4), (4,)),
    "nnref.masked_fill": op(lambda x: nnref.masked_fill(x, x > 0.5, -1.0), (3, 4)),
    # arithmetic
    "nnref.add": op(lambda x, y: [nnref.add(x, y), nnref.add(x, 2, alpha=3)], (3, 4), (4,)),
    "nnref.sub": op(lambda x, y: nnref.sub(x, y, alpha=2), (3, 4), (3, 1)),
    "nnref.subtract": op(nnref.subtract, (3, 4), (4,)),
    "nnref.rsub": op(lambda x, y: [nnref.rsub(x, y), nnref.rsub(x, 2.0)], (3, 4), (4,)),
    "nnref.mul": op(lambda x, y: [nnref.mul(x, y), nnref.mul(x, 2.5)], (3, 4), (4,)),
    "nnref.multiply": op(nnref.multiply, (3, 4), (3, 4)),
    "nnref.div": op(lambda x, y: [nnref.div(x, y), nnref.div(x, y, rounding_mode="floor"),
                                  nnref.div(x, y, rounding_mode="trunc"), nnref.div(3.0, y)],
                    (3, 4), (4,), values=positive),
    "nnref.divide": op(nnref.divide, (3, 4), (3, 4), values=positive),
    "nnref.floor_divide": op(lambda x, y: nnref.floor_divide(x.detach() * 5, y.detach()), (3, 4), (4,),
                             values=positive),
    "nnref.remainder": op(lambda x, y: [nnref.remainder(x * 5, y), nnref.remainder(x * 5, -1.5)],
                          (3, 4), (4,), values=positive),
    "nnref.maximum": op(nnref.maximum, (3, 4), (4,)),
    "nnref.minimum": op(nnref.minimum, (3, 4), (4,)),
    # comparison
    "nnref.eq": op(lambda x, y: [nnref.eq(x, y), nnref.eq(x, x)], (3, 4), (4,)),
    "nnref.ne": op(lambda x, y: nnref.ne(x, y), (3, 4), (4,)),
    "nnref.lt": op(lambda x, y: [nnref.lt(x, y), nnref.lt(x, 0.0)], (3, 4), (4,)),
    "nnref.le": op(lambda x, y: nnref.le(x, y), (3, 4), (4,)),
    "nnref.gt": op(lambda x, y: nnref.gt(x, y), (3, 4), (4,)),
    "nnref.ge": op(lambda x, y: nnref.ge(x, y), (3, 4), (4,)),
    "nnref.equal": op(lambda x, y: [nnref.equal(x, y), nnref.equal(x, x.detach().clone())], (3, 4), (3, 4)),
    "nnref.isclose": op(lambda x, y: nnref.isclose(x, y + 1e-9), (3, 4), (3, 4)),
    "nnref.allclose": op(lambda x, y: [nnref.allclose(x, x + 1e-9), nnref.allclose(x, y)], (3, 4), (3, 4)),
    # reductions
    "nnref.sum": op(lambda x: [nnref.sum(x), nnref.sum(x, dim=1, keepdim=True)], (3, 4)),
    "nnref.mean": op(lambda x: [nnref.mean(x), nnref.mean(x, dim=(0, 1))], (3, 4)),
    "nnref.std": op(lambda x: [nnref.std(x), nnref.std(x, dim=0, unbiased=False)], (3, 4)),
    "nnref.var": op(lambda x: [nnref.var(x), nnref.var(x, dim=1)], (3, 4)),
    "nnref.norm": op(lambda x: [nnref.norm(x), nnref.norm(x, dim=1)], (3, 4)),
    "nnref.max": op(lambda x, y: [nnref.max(x), *nnref.max(x, dim=1), nnref.max(x, y)], (3, 4), (4,)),
    "nnref.min": op(lambda x, y: [nnref.min(x), *nnref.min(x, dim=0), nnref.min(x, y)], (3, 4), (4,)),
    "nnref.amax": op(lambda x: [nnref.amax(x, dim=1), nnref.amax(x, dim=(0, 1))], (3, 4)),
    "nnref.amin": op(lambda x: nnref.amin(x, dim=0), (3, 4)),
    "nnref.argmax": op(lambda x: [nnref.argmax(x), nnref.argmax(x, dim=1)], (3, 4)),
    "nnref.argmin": op(lambda x: [nnref.argmin(x), nnref.argmin(x, dim=0, keepdim=True)], (3, 4)),
    "nnref.nonzero": op(lambda x: nnref.nonzero(x > 0), (3, 4)),
    "nnref.bincount": case(lambda d: [nnref.bincount(labels(d, [0, 2, 2, 5])),
                                      nnref.bincount(labels(d, [0, 1, 1]),
                                                     weights=leaf(d, (3,), grad=False))]),
    # linear algebra
    "nnref.matmul": op(lambda a, b: nnref.matmul(a, b), (2, 3, 4), (4, 5)),
    "nnref.mm": op(nnref.mm, (3, 4), (4, 2)),
    "nnref.bmm": op(nnref.bmm, (2, 3, 4), (2, 4, 2)),
    "nnref.mv": op(nnref.mv, (3, 4), (4,)),
    "nnref.dot": op(nnref.dot, (4,), (4,)),
    "nnref.addmm": op(nnref.addmm, (3, 2), (3, 4), (4, 2)),
    # shapes
    "nnref.reshape": op(lambda x: nnref.reshape(x.t(), (2, 6)), (3, 4)),
    "nnref.flatten": op(lambda x: [nnref.flatten(x), nnref.flatten(x, 1)], (2, 3, 4)),
    "nnref.squeeze": op(lambda x: [nnref.squeeze(x), nnref.squeeze(x, 1)], (3, 1, 4)),
    "nnref.unsqueeze": op(lambda x: nnref.unsqueeze(x, 1), (3, 4)),
    "nnref.permute": op(lambda x: nnref.permute(x, (2, 0, 1)), (2, 3, 4)),
    "nnref.transpose": op(lambda x: nnref.transpose(x, 0, 2), (2, 3, 4)),
    "nnref.t": op(nnref.t, (3, 4)),
    "nnref.narrow": op(lambda x: nnref.narrow(x, 1, 1, 2), (3, 4)),
    "nnref.select": op(lambda x: nnref.select(x, 0, -1), (3, 4)),
    "nnref.unbind": op(lambda x: nnref.unbind(x, 1), (3, 4)),
    "nnref.cat": op(lambda x, y: nnref.cat([x, y], dim=0), (3, 4), (2, 4)),
    "nnref.concat": op(lambda x, y: nnref.concat([x, y], dim=1), (3, 4), (3, 2)),
    "nnref.concatenate": op(lambda x, y: nnref.concatenate((x, y)), (3, 4), (1, 4)),
    "nnref.stack": op(lambda x, y: nnref.stack([x, y], dim=1), (3, 4), (3, 4)),
    "nnref.clone": op(nnref.clone, (3, 4)),
    "nnref.softmax": op(lambda x: nnref.softmax(x, dim=1), (3, 4)),
    "nnref.log_softmax": op(lambda x: nnref.log_softmax(x, dim=0), (3, 4)),
    # dtypes, grad modes, random state and files: no tensor values, or tested elsewhere
    **{f"nnref.{n}": HOST_ONLY("a dtype") for n in (
        "dtype", "bool", "float", "double", "half", "int", "long", "float16", "float32", "float64",
        "bfloat16", "int32", "int64")},
    "nnref.device": ELSEWHERE("test_on_device.py::test_moving_keeps_values_dtype_and_history"),
    "nnref.get_default_dtype": HOST_ONLY("a dtype"),
    "nnref.set_default_dtype": case(lambda d: nnref.zeros(2, device=d).dtype),
    "nnref.promote_types": HOST_ONLY("dtypes in, a dtype out"),
    "nnref.result_type": case(lambda d: [nnref.result_type(labels(d, [1]), leaf(d, (2,))),
                                         nnref.result_type(labels(d, [1]), 2.5)]),
    "nnref.no_grad": case(_grad_mode(nnref.no_grad)),
    "nnref.enable_grad": case(_grad_mode(nnref.enable_grad)),
    "nnref.inference_mode": case(_grad_mode(nnref.inference_mode)),
    "nnref.set_grad_enabled": case(_grad_mode(lambda: nnref.set_grad_enabled(False))),
    "nnref.is_grad_enabled": HOST_ONLY("a flag"),
    "nnref.is_inference_mode_enabled": HOST_ONLY("a flag"),
    "nnref.is_inference": case(lambda d: [nnref.is_inference(leaf(d, (2,))), nnref.is_inference(_inference_tensor(d))]),
    "nnref.manual_seed": ELSEWHERE(SEEDING),
    "nnref.seed": ELSEWHERE(SEEDING),
    "nnref.initial_seed": HOST_ONLY("a number"),
    "nnref.save": ELSEWHERE("test_on_device.py::test_checkpoint_moves_between_devices_with_map_location"),
    "nnref.load": ELSEWHERE("test_on_device.py::test_checkpoint_moves_between_devices_with_map_location"),

    # nnref.nn: modules, containers, parameters
    "nnref.nn.Module": layer(lambda: _Affine("attributes"), (4, 3)),
    "nnref.nn.Parameter": layer(lambda: _Affine("attributes"), (4, 3)),
    "nnref.nn.Sequential": layer(lambda: nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)), (5, 3)),
    "nnref.nn.ModuleList": layer(lambda: _Pair("list"), (5, 3)),
    "nnref.nn.ModuleDict": layer(lambda: _Pair("dict"), (5, 3)),
    "nnref.nn.ParameterList": layer(lambda: _Affine("list"), (4, 3)),
    "nnref.nn.ParameterDict": layer(lambda: _Affine("dict"), (4, 3)),
    "nnref.nn.Identity": layer(lambda: nn.Identity(), (4, 3)),
    "nnref.nn.Linear": layer(lambda: nn.Linear(3, 4), (5, 3)),
    "nnref.nn.Conv2d": layer(lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1), (2, 2, 7, 7)),
    "nnref.nn.MaxPool2d": layer(lambda: nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 2, 7, 7)),
    "nnref.nn.ReLU": layer(lambda: nn.ReLU(), (4, 5)),
    "nnref.nn.Sigmoid": layer(lambda: nn.Sigmoid(), (4, 5)),
    "nnref.nn.Tanh": layer(lambda: nn.Tanh(), (4, 5)),
    "nnref.nn.Softmax": layer(lambda: nn.Softmax(dim=1), (4, 5)),
    "nnref.nn.LogSoftmax": layer(lambda: nn.LogSoftmax(dim=1), (4, 5)),
    "nnref.nn.Dropout": layer(lambda: nn.Dropout(0.5).eval(), (4, 5)),
    "nnref.nn.BatchNorm1d": layer(lambda: nn.BatchNorm1d(3), (6, 3)),
    "nnref.nn.BatchNorm2d": layer(lambda: nn.BatchNorm2d(3), (4, 3, 2, 2)),
    "nnref.nn.LayerNorm": layer(lambda: nn.LayerNorm((4, 5)), (3, 4, 5)),
    "nnref.nn.Embedding": case(lambda d: _embedding(d)),
    "nnref.nn.Flatten": layer(lambda: nn.Flatten(), (2, 3, 4)),
    # losses
    "nnref.nn.MSELoss": loss(lambda: nn.MSELoss(), (4, 5)),
    "nnref.nn.CrossEntropyLoss": loss(lambda: nn.CrossEntropyLoss(label_smoothing=0.1), (4, 5),
                                      target=lambda d: labels(d, [0, 4, 2, 2])),
    "nnref.nn.NLLLoss": loss(lambda: nn.NLLLoss(), (4, 5), target=lambda d: labels(d, [0, 4, 2, 2])),
    "nnref.nn.BCEWithLogitsLoss": loss(lambda: nn.BCEWithLogitsLoss(),
                                       (4, 5), target=lambda d: (leaf(d, (4, 5), grad=False) > 0).float()),

    # nnref.nn.functional
    "nnref.nn.functional.linear": op(F.linear, (5, 3), (4, 3), (4,)),
    "nnref.nn.functional.relu": op(F.relu, (4, 5)),
    "nnref.nn.functional.sigmoid": op(F.sigmoid, (4, 5)),
    "nnref.nn.functional.tanh": op(F.tanh, (4, 5)),
    "nnref.nn.functional.softmax": op(lambda x: F.softmax(x, dim=0), (4, 5)),
    "nnref.nn.functional.log_softmax": op(lambda x: F.log_softmax(x, dim=-1), (4, 5)),
    "nnref.nn.functional.dropout": case(lambda d: [F.dropout(leaf(d, (4, 5)), 0.5, training=False),
                                                   random_draw(lambda d: F.dropout(leaf(d, (50,)), 0.5))(d)]),
    "nnref.nn.functional.conv2d": op(lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding="valid",
                                                              dilation=2), (2, 2, 7, 8), (3, 2, 2, 2), (3,)),
    "nnref.nn.functional.max_pool2d": op(lambda x: F.max_pool2d(x, 2), (2, 3, 6, 6)),
    "nnref.nn.functional.max_pool2d_with_indices": op(lambda x: F.max_pool2d_with_indices(x, 3, 2, 1),
                                                      (2, 3, 7, 7)),
    "nnref.nn.functional.batch_norm": case(lambda d: _batch_norm(d)),
    "nnref.nn.functional.layer_norm": op(lambda x, w, b: F.layer_norm(x, (5,), w, b), (3, 5), (5,), (5,)),
    "nnref.nn.functional.embedding": op(lambda w: F.embedding(labels(w.device, [[1, 3], [3, 0]]), w), (4, 3)),
    "nnref.nn.functional.mse_loss": loss(lambda: F.mse_loss, (4, 5)),
    "nnref.nn.functional.nll_loss": loss(lambda: lambda x, y: F.nll_loss(x, y, reduction="sum"), (4, 5),
                                         target=lambda d: labels(d, [1, 0, 4, 4])),
    "nnref.nn.functional.cross_entropy": loss(lambda: lambda x, y: F.cross_entropy(x, y, reduction="none"),
                                              (4, 5), target=lambda d: labels(d, [1, 0, 4, 4])),
    "nnref.nn.functional.binary_cross_entropy_with_logits": loss(
        lambda: lambda x, y: F.binary_cross_entropy_with_logits(x, y.sigmoid()), (4, 5)),

    # nnref.nn.init: constant fills compare values; random fills shape, dtype and device
    "nnref.nn.init.calculate_gain": HOST_ONLY("a number"),
    "nnref.nn.init.constant_": case(lambda d: init.constant_(nnref.empty(2, 3, device=d), 0.5)),
    "nnref.nn.init.ones_": case(lambda d: init.ones_(nnref.empty(2, 3, device=d))),
    "nnref.nn.init.zeros_": case(lambda d: init.zeros_(nnref.empty(2, 3, device=d))),
    **{f"nnref.nn.init.{name}": random_draw(lambda d, name=name: getattr(init, name)(
        nnref.empty(20, 30, device=d))) for name in ("uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                    "kaiming_normal_")},
    **{f"nnref.nn.init.{name}": random_draw(lambda d, name=name: _deprecated_init(name, nnref.empty(20, 30, device=d)))
       for name in ("uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal")},
    "nnref.nn.init.constant": case(lambda d: _deprecated_init("constant", nnref.empty(2, 3, device=d), 0.5)),
    "nnref.nn.init.trunc_normal_": seeded_draw(
        lambda d: init.trunc_normal_(nnref.empty(40, 30, device=d), std=0.5, a=-0.4, b=0.6),
        holds=lambda t: bool(((t >= -0.4) & (t <= 0.6)).all())),
    "nnref.nn.init.orthogonal_": seeded_draw(
        lambda d: init.orthogonal_(nnref.empty(3, 5, device=d)),
        holds=lambda t: nnref.allclose(t @ t.T, nnref.eye(3, device=t.device), atol=1e-5)),
    "nnref.nn.init.sparse_": seeded_draw(lambda d: init.sparse_(nnref.empty(10, 4, device=d), 0.3),
                                         holds=lambda t: bool(((t == 0).sum(0) >= 3).all())),
    "nnref.nn.init.eye_": case(lambda d: init.eye_(nnref.empty(3, 5, device=d))),
    "nnref.nn.init.dirac_": case(lambda d: [init.dirac_(nnref.empty(4, 2, 3, 3, device=d), groups=2),
                                            init.dirac_(nnref.empty(3, 3, 5, device=d))]),

    # nnref.optim
    "nnref.optim.Optimizer": ELSEWHERE("test_api_on_device.py::test_each_name_on_the_device_matches_the_cpu"),
    "nnref.optim.SGD": optimizer(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True,
                                                      weight_decay=1e-2)),
    "nnref.optim.Adam": optimizer(lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=1e-2)),
    "nnref.optim.AdamW": optimizer(lambda ps: optim.AdamW(ps, lr=0.01)),
    "nnref.optim.lr_scheduler.LRScheduler": ELSEWHERE(
        "test_api_on_device.py::test_each_name_on_the_device_matches_the_cpu"),
    "nnref.optim.lr_scheduler.StepLR": scheduler(lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.5)),
}

CASES.update({
    # nnref.Tensor: properties
    **{f"nnref.Tensor.{n}": HOST_ONLY("metadata") for n in (
        "dtype", "shape", "ndim", "is_leaf", "requires_grad", "retains_grad", "grad_fn")},
    "nnref.Tensor.device": case(lambda d: [leaf(d, (2,)).device == d, (labels(d, [1]) + 1).device == d]),
    "nnref.Tensor.is_cuda": case(lambda d: leaf(d, (2,)).is_cuda == (d.type == "cuda")),
    "nnref.Tensor.is_meta": case(lambda d: [leaf(d, (2,)).is_meta, leaf(d, (2,)).to("meta").is_meta]),
    "nnref.Tensor.data": op(lambda x: [x.data * 2, x.data.requires_grad], (3,)),
    "nnref.Tensor.grad": op(lambda x: (x * x).sum(), (3,)),
    "nnref.Tensor.T": op(lambda x: x.T, (3, 4)),
    "nnref.Tensor.mT": op(lambda x: x.mT, (2, 3, 4)),
    # sizes and conversions
    **{f"nnref.Tensor.{n}": case(lambda d, n=n: getattr(leaf(d, (2, 3)), n)()) for n in (
        "dim", "numel", "nelement", "size", "element_size", "is_contiguous", "is_floating_point")},
    "nnref.Tensor.data_ptr": case(lambda d: leaf(d, (2, 3)).data_ptr() != 0),
    "nnref.Tensor.item": case(lambda d: leaf(d, (1,)).item()),
    "nnref.Tensor.tolist": case(lambda d: leaf(d, (2, 2)).tolist()),
    "nnref.Tensor.numpy": case(lambda d: leaf(d, (2,)).detach().cpu().numpy().tolist()),
    "nnref.Tensor.__array__": case(lambda d: np.asarray(leaf(d, (2,)).detach().cpu()).tolist()),
    "nnref.Tensor.type": case(lambda d: [leaf(d, (2,)).type().replace("cuda.", ""),
                                         leaf(d, (2,)).type(nnref.float64)]),
    "nnref.Tensor.type_as": op(lambda x: x.type_as(labels(x.device, [1, 2])), (2,)),
    "nnref.Tensor.to": op(lambda x: [x.to(nnref.float64), x.to("cpu").to(x.device),
                                     x.to(x.device, nnref.float16)], (3,)),
    "nnref.Tensor.cpu": op(lambda x: [(x.cpu() * 2).to(x.device), x.cpu().device.type], (3,)),
    "nnref.Tensor.cuda": case(lambda d: _cuda_method(d)),
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: getattr(x, n)(), (3,)) for n in (
        "float", "double", "half", "int", "long", "bool")},
    "nnref.Tensor.bfloat16": ELSEWHERE("test_on_device.py::test_bfloat16_is_refused_on_a_gpu"),
    "nnref.Tensor.clone": op(lambda x: x.clone(), (3, 4)),
    "nnref.Tensor.contiguous": op(lambda x: x.t().contiguous(), (3, 4)),
    "nnref.Tensor.detach": op(lambda x: x.detach() * 2, (3,)),
    "nnref.Tensor.detach_": op(lambda x: (x * 2).detach_(), (3,)),
    "nnref.Tensor.is_inference": case(lambda d: [leaf(d, (2,)).is_inference(), _inference_tensor(d).is_inference()]),
    "nnref.Tensor.output_nr": case(lambda d: [part.output_nr for part in leaf(d, (4,)).unbind()]),
    "nnref.Tensor.requires_grad_": case(lambda d: leaf(d, (3,), grad=False).requires_grad_()),
    # autograd
    "nnref.Tensor.backward": op(lambda x: (x.exp() * 2).sum(), (3,)),
    "nnref.Tensor.register_hook": op(lambda x: _hooked(x), (3,)),
    "nnref.Tensor.retain_grad": op(lambda x: _retained(x), (3,)),
    # the methods that mirror functions of nnref
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: getattr(x, n)(), (3, 4)) for n in (
        "abs", "neg", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "sign", "round", "sum", "mean",
        "std", "var", "norm", "max", "min", "argmax", "argmin", "amax", "amin", "flatten", "t",
        "nonzero", "all", "any", "unbind", "squeeze")},
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: getattr(x, n)(), (3, 4), values=positive) for n in (
        "log", "sqrt", "reciprocal")},
    **{f"nnref.Tensor.{n}": op(lambda x, y, n=n: [getattr(x, n)(y), getattr(x, n)(1.5)], (3, 4), (4,),
                               values=positive) for n in (
        "add", "sub", "mul", "div", "pow", "remainder", "eq", "ne", "lt", "le", "gt", "ge")},
    "nnref.Tensor.maximum": op(lambda x, y: x.maximum(y), (3, 4), (4,)),
    "nnref.Tensor.floor_divide": op(lambda x, y: x.detach().floor_divide(y.detach()), (3, 4), (4,),
                                    values=positive),
    "nnref.Tensor.minimum": op(lambda x, y: x.minimum(y), (3, 4), (4,)),
    "nnref.Tensor.clamp": op(lambda x: x.clamp(-0.5, 0.5), (3, 4)),
    "nnref.Tensor.clip": op(lambda x: x.clip(max=0.5), (3, 4)),
    "nnref.Tensor.where": op(lambda x, y: x.where(x > 0, y), (3, 4), (4,)),
    "nnref.Tensor.masked_fill": op(lambda x: x.masked_fill(x < 0, 0.5), (3, 4)),
    "nnref.Tensor.isclose": op(lambda x, y: x.isclose(y), (3, 4), (3, 4)),
    "nnref.Tensor.allclose": op(lambda x, y: [x.allclose(y), x.allclose(x)], (3, 4), (3, 4)),
    "nnref.Tensor.equal": op(lambda x, y: x.equal(y), (3, 4), (3, 4)),
    "nnref.Tensor.softmax": op(lambda x: x.softmax(1), (3, 4)),
    "nnref.Tensor.log_softmax": op(lambda x: x.log_softmax(0), (3, 4)),
    "nnref.Tensor.matmul": op(lambda a, b: a.matmul(b), (3, 4), (4,)),
    "nnref.Tensor.mm": op(lambda a, b: a.mm(b), (3, 4), (4, 2)),
    "nnref.Tensor.mv": op(lambda a, b: a.mv(b), (3, 4), (4,)),
    "nnref.Tensor.bmm": op(lambda a, b: a.bmm(b), (2, 3, 4), (2, 4, 1)),
    "nnref.Tensor.dot": op(lambda a, b: a.dot(b), (4,), (4,)),
    "nnref.Tensor.addmm": op(lambda c, a, b: c.addmm(a, b), (3, 2), (3, 4), (4, 2)),
    "nnref.Tensor.bincount": case(lambda d: labels(d, [1, 1, 3]).bincount()),
    "nnref.Tensor.reshape": op(lambda x: x.reshape(4, 3), (3, 4)),
    "nnref.Tensor.reshape_as": op(lambda x, y: x.reshape_as(y), (3, 4), (12,)),
    "nnref.Tensor.view": op(lambda x: x.view(2, 6), (3, 4)),
    "nnref.Tensor.view_as": op(lambda x, y: x.view_as(y), (3, 4), (6, 2)),
    "nnref.Tensor.expand": op(lambda x: x.expand(2, 3, 4), (3, 1)),
    "nnref.Tensor.expand_as": op(lambda x, y: x.expand_as(y), (4,), (3, 4)),
    "nnref.Tensor.sum_to_size": op(lambda x: x.sum_to_size(1, 4), (3, 4)),
    "nnref.Tensor.permute": op(lambda x: x.permute(1, 0), (3, 4)),
    "nnref.Tensor.transpose": op(lambda x: x.transpose(0, 1), (3, 4)),
    "nnref.Tensor.unsqueeze": op(lambda x: x.unsqueeze(-1), (3, 4)),
    "nnref.Tensor.narrow": op(lambda x: x.narrow(0, 1, 2), (3, 4)),
    "nnref.Tensor.select": op(lambda x: x.select(1, 2), (3, 4)),
    # in place
    **{f"nnref.Tensor.{n}": op(lambda x, y, n=n: _in_place(x, lambda t: getattr(t, n)(y)), (3, 4), (4,),
                               values=positive) for n in ("add_", "sub_", "mul_", "div_", "remainder_")},
    "nnref.Tensor.floor_divide_": case(lambda d: leaf(d, (3,), grad=False).floor_divide_(0.5)),
    "nnref.Tensor.clamp_": op(lambda x: _in_place(x, lambda t: t.clamp_(-0.5, 0.5)), (3, 4)),
    "nnref.Tensor.masked_fill_": op(lambda x: _in_place(x, lambda t: t.masked_fill_(t > 0, 1.0)), (3, 4)),
    "nnref.Tensor.copy_": op(lambda x, y: _in_place(x, lambda t: t.copy_(y)), (3, 4), (4,)),
    "nnref.Tensor.fill_": op(lambda x, v: _in_place(x, lambda t: t.fill_(v.sum())), (3, 4), ()),
    "nnref.Tensor.zero_": op(lambda x: _in_place(x, lambda t: t.zero_()), (3, 4)),
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: _in_place(x, lambda t: getattr(t, n)()), (3, 4))
       for n in ("abs_", "cos_", "exp_", "neg_", "sigmoid_", "sin_", "tanh_")},
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: _in_place(x, lambda t: getattr(t, n)()), (3, 4), values=positive)
       for n in ("log_", "reciprocal_", "sqrt_")},
    "nnref.Tensor.pow_": op(lambda x: _in_place(x, lambda t: t.pow_(3)), (3, 4)),
    "nnref.Tensor.uniform_": random_draw(lambda d: nnref.empty(50, device=d).uniform_(-1, 1)),
    "nnref.Tensor.normal_": random_draw(lambda d: nnref.empty(50, device=d).normal_(0, 2)),
    # Python's protocols
    **{f"nnref.Tensor.{n}": op(lambda x, y, n=n: [getattr(x, n)(y), getattr(x, n)(2.0)], (3, 4), (4,),
                               values=positive) for n in (
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
        "__rtruediv__", "__pow__", "__rpow__", "__mod__", "__eq__", "__ne__", "__lt__", "__le__",
        "__gt__", "__ge__")},
    **{f"nnref.Tensor.{n}": op(lambda x, y, n=n: getattr(x.detach(), n)(y.detach()), (3, 4), (4,),
                               values=positive) for n in ("__floordiv__", "__rfloordiv__", "__rmod__")},
    "nnref.Tensor.__matmul__": op(lambda a, b: a @ b, (3, 4), (4, 2)),
    "nnref.Tensor.__rmatmul__": op(lambda a, b: b.__rmatmul__(a), (3, 4), (4, 2)),
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: getattr(x, n)(), (3, 4))
       for n in ("__neg__", "__pos__", "__abs__")},
    **{f"nnref.Tensor.{n}": case(lambda d, n=n: getattr(labels(d, [True, False]), n)(labels(d, [True, True])))
       for n in ("__and__", "__or__", "__xor__")},
    "nnref.Tensor.__invert__": case(lambda d: ~labels(d, [True, False])),
    **{f"nnref.Tensor.{n}": op(lambda x, y, n=n: _in_place(x, lambda t: getattr(t, n)(y)), (3, 4), (4,),
                               values=positive) for n in (
        "__iadd__", "__isub__", "__imul__", "__itruediv__", "__imod__")},
    "nnref.Tensor.__ifloordiv__": case(lambda d: leaf(d, (3,), grad=False).__ifloordiv__(0.5)),
    "nnref.Tensor.__getitem__": op(lambda x: [x[1], x[:, 1:3], x[x > 0], x[labels(x.device, [2, 0])],
                                              x[[0, 0]], x[nnref.tensor([1, 2])], x[..., None, -1],
                                              x[labels(x.device, 1)]], (3, 4)),
    "nnref.Tensor.__setitem__": op(lambda x, v: _in_place(x, lambda t: _assignments(t, v)), (3, 4), (4,)),
    "nnref.Tensor.__iter__": op(lambda x: list(x), (3, 4)),
    "nnref.Tensor.__len__": case(lambda d: len(leaf(d, (3, 4)))),
    "nnref.Tensor.__contains__": case(lambda d: [0.5 in leaf(d, (3,)), 1 in labels(d, [0, 1]),
                                                 labels(d, 1) in labels(d, [0, 1])]),
    "nnref.Tensor.__bool__": case(lambda d: bool(leaf(d, (1,)) > 0)),
    "nnref.Tensor.__float__": case(lambda d: float(leaf(d, ()))),
    "nnref.Tensor.__int__": case(lambda d: int(labels(d, 3))),
    "nnref.Tensor.__index__": case(lambda d: [[10, 11, 12, 13][labels(d, 2)], list(range(labels(d, 3)))]),
    "nnref.Tensor.__copy__": op(lambda x: copy.copy(x.detach()), (3,)),
    "nnref.Tensor.__deepcopy__": op(lambda x: copy.deepcopy(x), (3,)),
})


def _cuda_method(d):
    """``t.cuda()`` from the CPU, and on 'cuda' already (the CPU run, with no 'cuda' to go to,
    states what the device run must give)."""
    if d.type == "cpu":
        return [True, True, [1.0, 2.0]]
    t = nnref.tensor([1.0, 2.0]).cuda()
    return [t.device == d, t.cuda() is t, t.tolist()]


def _hooked(x):
    y = x * 2
    y.register_hook(lambda grad: grad * 3)
    return y.sum()


def _retained(x):
    y = x.exp()
    y.retain_grad()
    (y * 2).sum().backward()
    return [y.grad, x.grad.clone()]


def _deprecated_init(name, tensor, *args):
    with pytest.warns(FutureWarning, match=f"nn.init.{name}` is now deprecated"):
        return getattr(init, name)(tensor, *args)


def _inference_tensor(device):
    with nnref.inference_mode():
        return nnref.ones(2, device=device) * 2


def _signs(d, n):
    """``n`` targets of 1 and -1 on ``d`` (for the ranking and embedding losses)."""
    return nnref.tensor([1.0, -1.0] * (n // 2) + [1.0] * (n % 2), device=d)


def _alpha_dropout(d, drop, shape, per_channel):
    """Training-mode alpha dropout of ones: every value is ``a + b`` (kept) or SELU's saturation mapped
    (dropped), whole channels at once when ``per_channel``; the gradient is ``a`` where kept, 0 elsewhere."""
    import math
    p, alpha = 0.3, 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    x = nnref.ones(*shape, device=d, requires_grad=True)
    y = drop(x)
    y.sum().backward()
    kept = (y.detach() - (a + alpha * a * p)).abs() < 1e-5
    dropped = (y.detach() - (-alpha * a + alpha * a * p)).abs() < 1e-5
    flat = kept.float().flatten(2) if per_channel else kept.float()
    return [y.shape, y.device == d, bool((kept | dropped).all()),
            bool((flat.amax(-1) == flat.amin(-1)).all()) if per_channel else True,
            bool(((x.grad - kept.float() * a).abs() < 1e-6).all())]


def _embedding_bag(d, mode):
    """An EmbeddingBag (same seed on each device) over three bags, one empty: output and weight gradient."""
    bag = _seeded(lambda: nn.EmbeddingBag(10, 3, mode=mode, padding_idx=2)).to(d)
    out = bag(labels(d, [1, 2, 4, 5, 4, 2, 9]), labels(d, [0, 3, 3]))
    return with_grads(out, [bag.weight])


def _rrelu(d, activation):
    """Training-mode RReLU: positives kept, each negative scaled by a slope in [0.1, 0.3], gradient the slope."""
    x = leaf(d, (6, 5))
    y = activation(x)
    y.sum().backward()
    slope = y.detach() / x.detach()
    negative = x.detach() <= 0
    return [y.shape, y.device == d, bool((slope[~negative] == 1).all()),
            bool(((slope[negative] >= 0.1 - 1e-6) & (slope[negative] <= 0.3 + 1e-6)).all()),
            bool(((x.grad - slope).abs() < 1e-6).all())]


def _gumbel(d):
    """Gumbel-softmax samples (random on each device): rows of probabilities, and one-hot rows when hard."""
    x = leaf(d, (4, 5))
    soft, hard = F.gumbel_softmax(x, tau=0.5), F.gumbel_softmax(x, hard=True)
    (soft.sum() + (hard * hard.detach().cumsum(1)).sum()).backward()
    return [soft.shape, soft.device == d, bool(((soft.sum(1) - 1).abs() < 1e-5).all()), bool((soft >= 0).all()),
            bool((hard.detach().sum(1) == 1).all()), bool(((hard.detach() == 0) | (hard.detach() == 1)).all()),
            x.grad is not None and x.grad.shape == x.shape]


def _quiet(make):
    """``make()`` with its deprecation warning silenced (the deprecated names' device cases)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def _buffers(d):
    """A module holding ``nn.Buffer`` attributes, moved to ``d``: its buffers and state_dict keys."""
    module = nn.Module()
    module.kept = nn.Buffer(nnref.arange(3.0))
    module.scratch = nn.Buffer(nnref.ones(2), persistent=False)
    module.to(d)
    return [list(module.buffers()), list(module.state_dict()), module.kept.device == d]


def _in_place(x, change):
    """``change`` applied to a non-leaf copy of ``x``, so the gradient flows back through it."""
    y = x * 1
    result = change(y)
    return [result, y]


def _assignments(t, v):
    t[0] = v
    t[1, 1:3] = 7.0
    t[t < -1] = 0.0
    t[labels(t.device, [2])] = v * 2
    t[:, labels(t.device, 0)] = nnref.tensor(3.0)
    return t


_SPECIAL = [1.0, float("inf"), -float("inf"), float("nan"), -2.0]


def _special(d):
    return nnref.tensor(_SPECIAL, device=d)


def _index(d, values):
    return labels(d, values)


CASES.update({
    # random numbers: CUDA tensors draw from CuPy's generator, so the values differ between the
    # devices; compare the properties of each draw and that manual_seed reproduces it
    "nnref.Generator": case(lambda d: nnref.rand(5, generator=nnref.Generator().manual_seed(1)).to(d)),
    "nnref.default_generator": case(lambda d: _default_generator(d)),
    "nnref.random": case(lambda d: _random_module(d)),
    "nnref.get_rng_state": HOST_ONLY("the CPU generator's state, a CPU uint8 tensor; CUDA tensors draw "
                                     "from CuPy's generator, which manual_seed resets"),
    "nnref.set_rng_state": HOST_ONLY("restores the CPU generator only (as PyTorch's); CUDA draws are "
                                     "reproduced by manual_seed, see " + SEEDING),
    "nnref.normal": seeded_draw(lambda d: nnref.normal(2.0, 0.5, size=(400,), device=d),
                                lambda t: (t.mean() - 2.0).abs() < 0.2),
    "nnref.bernoulli": seeded_draw(lambda d: nnref.bernoulli(nnref.full((50,), 0.3, device=d)),
                                   lambda t: ((t == 0) | (t == 1)).all()),
    "nnref.multinomial": seeded_draw(
        lambda d: nnref.multinomial(nnref.tensor([0.2, 0.0, 0.8], device=d), 20, replacement=True),
        lambda t: (t != 1).all() & (t >= 0).all() & (t < 3).all()),
    "nnref.randperm": seeded_draw(lambda d: nnref.randperm(10, device=d),
                                  lambda t: nnref.equal(t.sort()[0], nnref.arange(10, device=t.device))),
    "nnref.randint_like": seeded_draw(lambda d: nnref.randint_like(labels(d, [[0, 0, 0]] * 4), 3, 7),
                                      lambda t: ((t >= 3) & (t < 7)).all()),
    "nnref.Tensor.bernoulli": seeded_draw(lambda d: nnref.full((50,), 0.3, device=d).bernoulli(),
                                          lambda t: ((t == 0) | (t == 1)).all()),
    "nnref.Tensor.bernoulli_": seeded_draw(lambda d: nnref.empty(50, device=d).bernoulli_(0.3),
                                           lambda t: ((t == 0) | (t == 1)).all()),
    "nnref.Tensor.exponential_": seeded_draw(lambda d: nnref.empty(50, device=d).exponential_(2.0),
                                             lambda t: (t >= 0).all()),
    "nnref.Tensor.random_": seeded_draw(lambda d: nnref.empty(50, device=d).random_(2, 5),
                                        lambda t: ((t >= 2) & (t < 5) & (t == t.round())).all()),
    "nnref.Tensor.multinomial": seeded_draw(
        lambda d: nnref.tensor([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]], device=d).multinomial(2),
        lambda t: (t[0] != 1).all() & (t[1, 0] == 1)),
    # the default device and the accelerator API
    "nnref.get_default_device": case(lambda d: _default_device(d)),
    "nnref.set_default_device": case(lambda d: _default_device(d)),
    "nnref.accelerator": case(lambda d: _accelerator(d)),
    # constants and dtypes
    **{f"nnref.{n}": HOST_ONLY("a Python float") for n in ("e", "inf", "nan", "pi")},
    **{f"nnref.{n}": HOST_ONLY("a dtype") for n in ("int8", "int16", "short", "uint8")},
    # ops
    "nnref.argsort": op(lambda x: [nnref.argsort(x), nnref.argsort(x, dim=0, descending=True)], (3, 4)),
    "nnref.sort": op(lambda x: [*nnref.sort(x), *nnref.sort(x, dim=0, descending=True, stable=True)], (3, 4)),
    "nnref.topk": op(lambda x: [*nnref.topk(x, 2), *nnref.topk(x, 2, dim=0, largest=False)], (3, 4)),
    "nnref.chunk": op(lambda x: nnref.chunk(x, 3, dim=1), (3, 5)),
    "nnref.split": op(lambda x: [nnref.split(x, 2, dim=1), nnref.split(x, [1, 2], dim=0)], (3, 5)),
    "nnref.cumsum": op(lambda x: [nnref.cumsum(x, 1), nnref.cumsum(x, dim=0, dtype=nnref.float64)], (3, 4)),
    "nnref.prod": op(lambda x: [nnref.prod(x), nnref.prod(x, 1, keepdim=True)], (3, 4)),
    "nnref.logsumexp": op(lambda x: [nnref.logsumexp(x, 1), nnref.logsumexp(x, (0, 1), keepdim=True)], (3, 4)),
    "nnref.diagonal": op(lambda x: [nnref.diagonal(x), nnref.diagonal(x, 1), nnref.diagonal(x, -1, 1, 0)], (3, 4)),
    "nnref.tril": op(lambda x: [nnref.tril(x), nnref.tril(x, -1)], (3, 4)),
    "nnref.triu": op(lambda x: [nnref.triu(x), nnref.triu(x, 1)], (2, 3, 4)),
    "nnref.einsum": op(lambda a, b: [nnref.einsum("ij,jk->ik", a, b), nnref.einsum("ij->j", a),
                                     nnref.einsum("ij,ij->i", a, a)], (3, 4), (4, 2)),
    "nnref.gather": op(lambda x: nnref.gather(x, 1, _index(x.device, [[0, 0], [3, 1], [2, 2]])), (3, 4)),
    "nnref.scatter": op(lambda x, src: [nnref.scatter(x, 1, _index(x.device, [[0, 2], [3, 1], [1, 0]]), src),
                                        nnref.scatter(x, 0, _index(x.device, [[2, 0, 1, 1]]), value=0.5)],
                        (3, 4), (3, 2)),
    "nnref.scatter_add": op(lambda x, src: nnref.scatter_add(x, 1, _index(x.device, [[0, 0], [3, 1], [1, 1]]),
                                                             src), (3, 4), (3, 2)),
    "nnref.isfinite": case(lambda d: nnref.isfinite(_special(d))),
    "nnref.isinf": case(lambda d: nnref.isinf(_special(d))),
    "nnref.isnan": case(lambda d: nnref.isnan(_special(d))),
    "nnref.relu_": op(lambda x: _in_place(x, nnref.relu_), (3, 4)),
    # Tensor's methods of the same ops
    "nnref.Tensor.argsort": op(lambda x: x.argsort(1, descending=True), (3, 4)),
    "nnref.Tensor.sort": op(lambda x: list(x.sort(0)), (3, 4)),
    "nnref.Tensor.topk": op(lambda x: list(x.topk(3, sorted=True)), (3, 4)),
    "nnref.Tensor.chunk": op(lambda x: x.chunk(2), (5, 3)),
    "nnref.Tensor.split": op(lambda x: x.split([3, 2]), (5, 3)),
    "nnref.Tensor.cumsum": op(lambda x: x.cumsum(-1), (3, 4)),
    # order statistics (distinct values, so that every index is determined)
    **{f"{where}{name}": op(lambda x, where=where, name=name: _order_statistic(x, where, name), (3, 4))
       for name in ("median", "nanmedian", "kthvalue", "mode") for where in ("nnref.", "nnref.Tensor.")},
    # pairs from one node, NaN-skipping sums
    "nnref.var_mean": op(lambda x: [*nnref.var_mean(x, 1), *nnref.var_mean(x, (0, 1), keepdim=True, correction=0)], (3, 4)),
    "nnref.std_mean": op(lambda x: [*nnref.std_mean(x, 0), *nnref.std_mean(x)], (3, 4)),
    **{f"{where}aminmax": op(lambda x, where=where: [*(nnref.aminmax if where == "nnref." else nnref.Tensor.aminmax)(x),
                                                     *nnref.aminmax(x, dim=1, keepdim=True)], (3, 4))
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}{name}": op(lambda x, where=where, name=name: [
        (getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name))(x),
        getattr(nnref, name)(x * nnref.tensor([[1.0, float("nan"), 1.0, 1.0]], device=x.device), 0, keepdim=True)], (3, 4))
       for name in ("nansum", "nanmean") for where in ("nnref.", "nnref.Tensor.")},
    # shape composites
    **{f"{where}{name}": op(lambda x, where=where, name=name: _shape_composite(x, where, name), (2, 4, 4))
       for name in ("tensor_split", "hsplit", "vsplit", "dsplit", "fliplr", "flipud", "rot90", "diff")
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"nnref.{name}": op(lambda v, x, name=name: getattr(nnref, name)([v, x, v * 2]), (3,), (2, 3))
       for name in ("vstack", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors")},
    "nnref.hstack": op(lambda v, x: [nnref.hstack([v, v * 2]), nnref.hstack([x, x])], (3,), (2, 3)),
    "nnref.dstack": op(lambda v, x: [nnref.dstack([v, v * 2]), nnref.dstack([x, x])], (3,), (2, 3)),
    "nnref.column_stack": op(lambda v, x: nnref.column_stack([v[:2], x, v[1:]]), (3,), (2, 3)),
    # beta * input + alpha * product, vdot, kron, cross
    **{f"{where}addmv{suffix}": op(lambda c, a, b, where=where, suffix=suffix: _scaled_product(
        where, "addmv", suffix, c, a, b), (3,), (3, 4), (4,)) for where, suffix in _FORMS},
    **{f"{where}addr{suffix}": op(lambda c, a, b, where=where, suffix=suffix: _scaled_product(
        where, "addr", suffix, c, a, b), (3, 4), (3,), (4,)) for where, suffix in _FORMS},
    **{f"{where}baddbmm{suffix}": op(lambda c, a, b, where=where, suffix=suffix: _scaled_product(
        where, "baddbmm", suffix, c, a, b), (2, 3, 4), (2, 3, 5), (2, 5, 4)) for where, suffix in _FORMS},
    **{f"{where}addbmm{suffix}": op(lambda c, a, b, where=where, suffix=suffix: _scaled_product(
        where, "addbmm", suffix, c, a, b), (3, 4), (2, 3, 5), (2, 5, 4)) for where, suffix in _FORMS},
    **{f"{where}{name}": op(lambda a, b, where=where, name=name: (
        getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name))(a, b), (4,), (4,))
       for name in ("vdot", "kron") for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}cross": op(lambda a, b, where=where: (nnref.cross if where == "nnref." else nnref.Tensor.cross)(
        a, b, dim=1), (2, 3, 4), (1, 3, 4)) for where in ("nnref.", "nnref.Tensor.")},
    "nnref.tensordot": op(lambda a, b: [nnref.tensordot(a, b, dims=([1, 2], [0, 1])),
                                        nnref.tensordot(a[0, 0], b[0, :, 0], dims=1)], (2, 3, 4), (3, 4, 5)),
    **{f"{where}inner": op(lambda a, b, where=where: (nnref.inner if where == "nnref." else nnref.Tensor.inner)(
        a, b), (2, 3, 4), (5, 4)) for where in ("nnref.", "nnref.Tensor.")},
    # writing into picked places, and take
    **{f"{where}take": op(lambda x, where=where: (nnref.take if where == "nnref." else nnref.Tensor.take)(
        x, labels(x.device, [[0, 5], [-1, 11]])), (3, 4)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}index_copy{suffix}": op(lambda x, s, where=where, suffix=suffix: _write_into(
        where, "index_copy", suffix, x, 1, labels(x.device, [3, 0]), s), (3, 4), (3, 2)) for where, suffix in _FORMS},
    **{f"{where}index_fill{suffix}": op(lambda x, v, where=where, suffix=suffix: _write_into(
        where, "index_fill", suffix, x, 0, labels(x.device, [2, 0]), v.sum()), (3, 4), (2,)) for where, suffix in _FORMS},
    **{f"{where}masked_scatter{suffix}": op(lambda x, s, where=where, suffix=suffix: _write_into(
        where, "masked_scatter", suffix, x, x.detach() > 0, s), (3, 4), (3, 5)) for where, suffix in _FORMS},
    "nnref.select_scatter": op(lambda x, s: nnref.select_scatter(x, s, 1, -1), (3, 4), (3,)),
    "nnref.Tensor.select_scatter": op(lambda x, s: x.select_scatter(s, 0, 1), (3, 4), (4,)),
    "nnref.slice_scatter": op(lambda x, s: nnref.slice_scatter(x, s, 1, 0, 4, 2), (3, 4), (3, 2)),
    "nnref.Tensor.slice_scatter": op(lambda x, s: x.slice_scatter(s, start=1), (3, 4), (2, 4)),
    **{f"{where}scatter_reduce{suffix}": op(lambda x, s, where=where, suffix=suffix: [_write_into(
        where, "scatter_reduce", suffix, x, 0, labels(x.device, [[0, 2, 0, 1], [2, 2, 0, 1]]), s, r) for r in (
            "sum", "prod", "mean", "amax", "amin")], (3, 4), (2, 4)) for where, suffix in _FORMS},
    # searching, index factories, bitwise ops
    "nnref.searchsorted": case(lambda d: [nnref.searchsorted(labels(d, [[1, 3, 5], [2, 4, 6]]), labels(d, [[3, 9], [0, 4]])),
                                          nnref.searchsorted(labels(d, [1.0, 2.0, float("nan")]), labels(d, [2.0, float("nan")]),
                                                             right=True, out_int32=True),
                                          nnref.searchsorted(labels(d, [3, 1, 2]), 2, sorter=labels(d, [1, 2, 0]))]),
    "nnref.bucketize": case(lambda d: [nnref.bucketize(labels(d, [[3, 6], [1, 10]]), labels(d, [1, 3, 5]), right=True),
                                       nnref.bucketize(5, labels(d, [1, 3, 5]))]),
    "nnref.isin": case(lambda d: [nnref.isin(labels(d, [[1, 2], [3, 4]]), labels(d, [2, 5])), nnref.isin(labels(d, [1.0, 2.0]), 2),
                                  nnref.isin(2, labels(d, [1, 2]), invert=True)]),
    **{f"nnref.{name}": case(lambda d, name=name: [getattr(nnref, name)(3, 4, device=d), getattr(nnref, name)(
        4, 3, -1, dtype=nnref.int32, device=d)]) for name in ("tril_indices", "triu_indices")},
    **{f"{where}bitwise_{name}{suffix}": case(lambda d, where=where, name=name, suffix=suffix: _bitwise(
        d, where, name, suffix)) for name in ("and", "or", "xor", "not") for where, suffix in _FORMS},
    **{f"nnref.Tensor.__{kind}{name}__": case(lambda d, kind=kind, name=name: _bitwise_operator(d, kind, name))
       for name in ("and", "or", "xor") for kind in ("r", "i")},
    **{f"nnref.Tensor.{name}": op(lambda x, y, name=name: [_in_place(x, lambda t: getattr(t, name)(y)),
                                                        _in_place(x, lambda t: getattr(t, name)(0.25))], (3, 4), (4,))
       for name in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
                    "not_equal_")},
    # matrices from diagonals and blocks, msort, logspace
    **{f"{where}diag_embed": op(lambda x, where=where: [(nnref.diag_embed if where == "nnref." else nnref.Tensor.diag_embed)(x),
                                                        nnref.diag_embed(x, -1, 2, 0)], (2, 3)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}diagflat": op(lambda x, where=where: (nnref.diagflat if where == "nnref." else nnref.Tensor.diagflat)(x, 1),
                              (2, 3)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}msort": op(lambda x, where=where: (nnref.msort if where == "nnref." else nnref.Tensor.msort)(x), (4, 3))
       for where in ("nnref.", "nnref.Tensor.")},
    "nnref.block_diag": op(lambda a, b, c: nnref.block_diag(a, b, c.sum()), (2, 3), (4,), (2,)),
    "nnref.logspace": case(lambda d: [nnref.logspace(0, 2, 5, device=d), nnref.logspace(-1, 1, 3, base=2, dtype=nnref.int64,
                                                                                         device=d)]),
    # gcd, lcm, cartesian_prod, unique_consecutive, top-level cosine_similarity and pairwise_distance
    **{f"{where}{name}{suffix}": case(lambda d, where=where, name=name, suffix=suffix: _write_into(
        where, name, suffix, labels(d, [12, -18, 0, 7]), labels(d, [8, 12, 0, 3]))) for name in ("gcd", "lcm")
       for where, suffix in _FORMS},
    "nnref.cartesian_prod": op(lambda a, b: nnref.cartesian_prod(a, b, a), (2,), (3,)),
    **{f"{where}unique_consecutive": case(lambda d, where=where: [
        (nnref.unique_consecutive if where == "nnref." else nnref.Tensor.unique_consecutive)(
            labels(d, [1, 1, 2, 2, 3, 1]), return_inverse=True, return_counts=True),
        nnref.unique_consecutive(labels(d, [[1, 1], [1, 1], [2, 3]]), dim=0, return_counts=True)])
       for where in ("nnref.", "nnref.Tensor.")},
    "nnref.cosine_similarity": op(lambda a, b: nnref.cosine_similarity(a, b), (3, 4), (3, 4)),
    "nnref.pairwise_distance": op(lambda a, b: nnref.pairwise_distance(a, b), (3, 4), (3, 4)),
    **{f"{where}dist": op(lambda a, b, where=where: [(nnref.dist if where == "nnref." else nnref.Tensor.dist)(a, b),
                                                     nnref.dist(a, b, 1), nnref.dist(a, b, float("inf")), nnref.dist(a, b, 3)],
                          (3, 4), (4,)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"nnref.{name}": op(lambda y, x, name=name: [getattr(nnref, name)(y), getattr(nnref, name)(y, dx=0.5, dim=0),
                                                    getattr(nnref, name)(y, x.sort().values)], (3, 4), (4,))
       for name in ("trapezoid", "trapz", "cumulative_trapezoid")},
    **{f"{where}histogram": case(lambda d, where=where: [
        *(nnref.histogram if where == "nnref." else nnref.Tensor.histogram)(leaf(d, (50,), grad=False), 7),
        *nnref.histogram(leaf(d, (40,), grad=False, dtype=nnref.float64), 4, range=(-1.0, 1.0),
                         weight=leaf(d, (40,), seed=1, grad=False, dtype=nnref.float64).abs(), density=True),
        *nnref.histogram(leaf(d, (30,), grad=False), nnref.tensor([-2.0, -0.5, 0.0, 1.5], device=d))])
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}histc": case(lambda d, where=where: [(nnref.histc if where == "nnref." else nnref.Tensor.histc)(
        leaf(d, (50,), grad=False), 7), nnref.histc(leaf(d, (50,), grad=False, dtype=nnref.float64), 4, -1, 1)])
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}frexp": op(lambda x, where=where: list((nnref.frexp if where == "nnref." else nnref.Tensor.frexp)(x * 10)),
                           (3, 4)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}ldexp{suffix}": op(lambda x, e, where=where, suffix=suffix: _write_into(where, "ldexp", suffix, x, e),
                                   (3, 4), (4,)) for where, suffix in _FORMS},
    **{f"{where}{name}": op(lambda x, where=where, name=name: (getattr(nnref, name) if where == "nnref." else getattr(
        nnref.Tensor, name))(x), (3, 5)) for name in ("cov", "corrcoef") for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}diagonal_scatter": op(lambda x, s, where=where: [(nnref.diagonal_scatter if where == "nnref." else
                                                                   nnref.Tensor.diagonal_scatter)(x, s[:3]),
                                                                  nnref.diagonal_scatter(x, s[:2], 2)], (3, 4), (4,))
       for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}renorm{suffix}": op(lambda x, where=where, suffix=suffix: _write_into(where, "renorm", suffix, x, 2, 0, 1.0),
                                    (3, 4)) for where, suffix in _FORMS},
    **{f"{where}narrow_copy": op(lambda x, where=where: (nnref.narrow_copy if where == "nnref." else nnref.Tensor.narrow_copy)(
        x, -1, 1, 2), (3, 4)) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}is_nonzero": case(lambda d, where=where: [(nnref.is_nonzero if where == "nnref." else nnref.Tensor.is_nonzero)(
        labels(d, [[v]])) for v in (0.0, 2.5)]) for where in ("nnref.", "nnref.Tensor.")},
    **{f"{where}is_same_size": case(lambda d, where=where: [(nnref.is_same_size if where == "nnref." else nnref.Tensor.is_same_size)(
        leaf(d, (2, 3)), leaf(d, shape)) for shape in ((2, 3), (3, 2))]) for where in ("nnref.", "nnref.Tensor.")},
    "nnref.can_cast": HOST_ONLY("dtypes, no tensor values"),
    **{f"{where}{name}": case(lambda d, where=where, name=name: [
        getattr(nnref if where == "nnref." else nnref.Tensor, name)(nnref.zeros(2, dtype=dtype, device=d))
        for dtype in (nnref.float32, nnref.uint8, nnref.int64, nnref.bool)])
       for where in ("nnref.", "nnref.Tensor.") for name in ("is_signed", "is_complex")},
    # -1 on the CPU, the GPU's index (0) on the GPU
    **{f"{where}get_device": case(lambda d, where=where: (nnref.get_device if where == "nnref." else nnref.Tensor.get_device)(
        leaf(d, (2,))) == (0 if d.type == "cuda" else -1)) for where in ("nnref.", "nnref.Tensor.")},
    "nnref.all": case(lambda d: [nnref.all(labels(d, [[1.0, 0.0], [2.0, 3.0]]), dim=dim) for dim in (None, 0, 1, ())]
                      + [nnref.all(labels(d, [[1, 0], [2, 3]]).to(nnref.uint8), 1, keepdim=True)]),
    "nnref.any": case(lambda d: [nnref.any(labels(d, [[1.0, 0.0], [0.0, 0.0]]), dim=dim) for dim in (None, 0, 1, ())]
                      + [nnref.any(labels(d, [[1, 0], [0, 0]]).to(nnref.uint8), (0, 1))]),
    "nnref.scalar_tensor": case(lambda d: [nnref.scalar_tensor(2.5, device=d),
                                           nnref.scalar_tensor(3, dtype=nnref.int64, device=d)]),
    "nnref.compile": layer(lambda: nnref.compile(nn.Sequential(nn.Linear(5, 3), nn.Tanh())), (4, 5)),
    **{f"nnref.{name}": HOST_ONLY("the anomaly-detection switch, no tensor values") for name in (
        "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled")},
    "nnref.autocast": HOST_ONLY("only its disabled form exists: a no-op context, no tensor values"),
    "nnref.Tensor.H": op(lambda x: x.H, (3, 4)),
    "nnref.Tensor.mH": op(lambda x: x.mH, (2, 3, 4)),
    **{f"{where}adjoint": op(lambda x, where=where: (nnref.adjoint if where == "nnref." else nnref.Tensor.adjoint)(x),
                             (2, 3, 4)) for where in ("nnref.", "nnref.Tensor.")},
    # a real tensor is its own conjugate: the same object comes back
    **{f"{where}{name}": case(lambda d, where=where, name=name: [
        getattr(nnref if where == "nnref." else nnref.Tensor, name)(t) is t for t in [leaf(d, (2, 3))]])
       for where in ("nnref.", "nnref.Tensor.") for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg")},
    **{f"{where}{name}": case(lambda d, where=where, name=name: getattr(nnref if where == "nnref." else nnref.Tensor, name)(
        leaf(d, (2,)))) for where in ("nnref.", "nnref.Tensor.") for name in ("is_conj", "is_neg")},
    "nnref.Tensor.is_pinned": case(lambda d: leaf(d, (2,)).is_pinned()),
    # the in-place methods beside an out-of-place one (a non-leaf copy, so gradients flow)
    "nnref.Tensor.sign_": op(lambda x: _in_place(x, lambda t: t.sign_()), (3, 4)),
    "nnref.Tensor.round_": op(lambda x: _in_place(x, lambda t: t.round_(decimals=1)), (3, 4)),
    "nnref.Tensor.clip_": op(lambda x: _in_place(x, lambda t: t.clip_(-0.5, 0.5)), (3, 4)),
    "nnref.Tensor.cumsum_": op(lambda x: _in_place(x, lambda t: t.cumsum_(1)), (3, 4)),
    "nnref.Tensor.hypot_": op(lambda x, y: _in_place(x, lambda t: t.hypot_(y)), (3, 4), (3, 4)),
    "nnref.Tensor.addmm_": op(lambda x, a, b: _in_place(x, lambda t: t.addmm_(a, b, beta=0.5)), (3, 4), (3, 2), (2, 4)),
    # in-place shape changes: on a tensor outside any graph (inside one nnref refuses)
    **{f"nnref.Tensor.{call.split('(')[0]}": case(lambda d, call=call: eval(f"t.{call}", {"t": leaf(d, (2, 3), grad=False)}))
       for call in ("unsqueeze_(0)", "squeeze_()", "t_()", "transpose_(0, 1)", "swapaxes_(0, 1)", "swapdims_(1, 0)")},
    "nnref.Tensor.layout": case(lambda d: [repr(leaf(d, (2,)).layout)]),
    "nnref.layout": HOST_ONLY("a layout descriptor, no tensor values"),
    "nnref.strided": HOST_ONLY("a layout descriptor, no tensor values"),
    **{f"nnref.{name}": HOST_ONLY("a memory format descriptor, no tensor values")
       for name in ("memory_format", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d")},
    "nnref.nn.DataParallel": HOST_ONLY("wraps a module on the CPU only, as PyTorch without GPUs "
                                       "(tests/distributed/test_single_process.py)"),
    "nnref.utils.data.DistributedSampler": HOST_ONLY("indices of a dataset drawn from the CPU generator "
                                                     "(tests/distributed/test_single_process.py)"),
    # with a GPU the tensor comes back as it is; without one PyTorch and nnref refuse
    "nnref.Tensor.pin_memory": case(lambda d: leaf(d, (2,)).pin_memory() if nnref.accelerator.is_available() else None),
    "nnref.broadcast_shapes": HOST_ONLY("shapes, no tensor values"),
    "nnref.finfo": HOST_ONLY("a dtype's limits, no tensor values"),
    "nnref.iinfo": HOST_ONLY("a dtype's limits, no tensor values"),
    **{f"nnref.{name}": HOST_ONLY("a process-wide switch, no tensor values") for name in (
        "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode", "get_float32_matmul_precision",
        "get_num_interop_threads", "get_num_threads", "is_deterministic_algorithms_warn_only_enabled",
        "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_num_interop_threads",
        "set_num_threads", "use_deterministic_algorithms")},
    # running ops
    "nnref.cumprod": op(lambda x: [nnref.cumprod(x, 1), nnref.cumprod(x.detach() * (x.detach() > 0), 0)], (3, 4)),
    "nnref.Tensor.cumprod": op(lambda x: x.cumprod(0), (3, 4)),
    "nnref.Tensor.cumprod_": op(lambda x: _in_place(x, lambda t: t.cumprod_(1)), (3, 4)),
    "nnref.logcumsumexp": op(lambda x: [nnref.logcumsumexp(x, 1), nnref.logcumsumexp(x * 50, 0)], (3, 4)),
    "nnref.Tensor.logcumsumexp": op(lambda x: x.logcumsumexp(-1), (3, 4)),
    **{f"{where}{name}": op(lambda x, where=where, name=name: [
        *(getattr(nnref, name) if where == "nnref." else getattr(nnref.Tensor, name))(x, 1),
        *getattr(nnref, name)(x.round(), 0)], (3, 5)) for name in ("cummax", "cummin")
       for where in ("nnref.", "nnref.Tensor.")},
    "nnref.Tensor.prod": op(lambda x: [x.prod(), x.prod(0)], (3, 4)),
    "nnref.Tensor.logsumexp": op(lambda x: x.logsumexp(0), (3, 4)),
    "nnref.Tensor.diagonal": op(lambda x: x.diagonal(offset=-1), (4, 3)),
    "nnref.Tensor.tril": op(lambda x: x.tril(1), (3, 4)),
    "nnref.Tensor.triu": op(lambda x: x.triu(-1), (3, 4)),
    "nnref.Tensor.tril_": op(lambda x: _in_place(x, lambda t: t.tril_()), (3, 4)),
    "nnref.Tensor.triu_": op(lambda x: _in_place(x, lambda t: t.triu_(1)), (3, 4)),
    "nnref.Tensor.repeat": op(lambda x: [x.repeat(2, 3), x.repeat(2, 1, 1)], (3, 4)),
    "nnref.Tensor.gather": op(lambda x: x.gather(0, _index(x.device, [[2, 0, 1, 1]])), (3, 4)),
    "nnref.Tensor.scatter": op(lambda x, src: x.scatter(0, _index(x.device, [[2, 0], [1, 2]]), src),
                               (3, 4), (2, 2)),
    "nnref.Tensor.scatter_": op(lambda x, src: _in_place(x, lambda t: t.scatter_(
        1, _index(x.device, [[0, 2], [3, 1], [1, 0]]), src)), (3, 4), (3, 2)),
    "nnref.Tensor.scatter_add": op(lambda x, src: x.scatter_add(0, _index(x.device, [[2, 0], [2, 2]]), src),
                                   (3, 4), (2, 2)),
    "nnref.Tensor.scatter_add_": op(lambda x, src: _in_place(x, lambda t: t.scatter_add_(
        1, _index(x.device, [[0, 0], [3, 1], [1, 1]]), src)), (3, 4), (3, 2)),
    "nnref.Tensor.isfinite": case(lambda d: _special(d).isfinite()),
    "nnref.Tensor.isinf": case(lambda d: _special(d).isinf()),
    "nnref.Tensor.isnan": case(lambda d: _special(d).isnan()),
    "nnref.Tensor.relu_": op(lambda x: _in_place(x, lambda t: t.relu_()), (3, 4)),
    **{f"nnref.Tensor.{n}": op(lambda x, n=n: getattr(x * 10, n)(), (3, 4), values=positive)
       for n in ("byte", "char", "short")},

    # nnref.nn: layers
    "nnref.nn.AdaptiveAvgPool2d": layer(lambda: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    "nnref.nn.AdaptiveMaxPool2d": layer(lambda: nn.AdaptiveMaxPool2d(2), (2, 3, 5, 5)),
    "nnref.nn.AvgPool2d": layer(lambda: nn.AvgPool2d(3, 2, 1), (2, 3, 7, 7)),
    "nnref.nn.Conv1d": layer(lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9)),
    "nnref.nn.ConvTranspose2d": layer(lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1,
                                                                 output_padding=1), (2, 3, 4, 4)),
    "nnref.nn.LazyLinear": case(lambda d: _lazy(d, lambda: nn.LazyLinear(4), (5, 3))),
    "nnref.nn.LazyConv2d": case(lambda d: _lazy(d, lambda: nn.LazyConv2d(4, 3, padding=1), (2, 3, 5, 5))),
    "nnref.nn.UninitializedParameter": case(lambda d: _uninitialized(d, nn.UninitializedParameter)),
    "nnref.nn.UninitializedBuffer": case(lambda d: _uninitialized(d, nn.UninitializedBuffer)),
    "nnref.nn.Dropout1d": case(lambda d: [_channel_dropout(d, nn.Dropout1d(0.5), (4, 6, 5)),
                                          layer(lambda: nn.Dropout1d(0.5).eval(), (4, 6, 5))(d)]),
    "nnref.nn.Dropout2d": case(lambda d: [_channel_dropout(d, nn.Dropout2d(0.5), (4, 6, 3, 3)),
                                          layer(lambda: nn.Dropout2d(0.5).eval(), (4, 6, 3, 3))(d)]),
    "nnref.nn.ELU": layer(lambda: nn.ELU(alpha=0.5), (4, 5)),
    "nnref.nn.GELU": layer(lambda: nn.GELU(approximate="tanh"), (4, 5)),
    "nnref.nn.Hardtanh": layer(lambda: nn.Hardtanh(-0.5, 0.5), (4, 5)),
    "nnref.nn.LeakyReLU": layer(lambda: nn.LeakyReLU(0.2), (4, 5)),
    "nnref.nn.ReLU6": layer(lambda: nn.ReLU6(), (4, 5), values=lambda rng, shape: rng.uniform(-8, 8, shape)),
    "nnref.nn.SiLU": layer(lambda: nn.SiLU(), (4, 5)),
    "nnref.nn.Softmax2d": layer(lambda: nn.Softmax2d(), (2, 3, 4, 4)),
    "nnref.nn.Softplus": layer(lambda: nn.Softplus(beta=2, threshold=1), (4, 5)),
    # losses
    "nnref.nn.BCELoss": loss(lambda: lambda x, y: nn.BCELoss()(x.sigmoid(), y.sigmoid()), (4, 5)),
    "nnref.nn.HuberLoss": loss(lambda: nn.HuberLoss(delta=0.5), (4, 5)),
    "nnref.nn.KLDivLoss": loss(lambda: lambda x, y: nn.KLDivLoss(reduction="batchmean", log_target=True)(
        x.log_softmax(1), y.log_softmax(1)), (4, 5)),
    "nnref.nn.L1Loss": loss(lambda: nn.L1Loss(reduction="sum"), (4, 5)),
    "nnref.nn.SmoothL1Loss": loss(lambda: nn.SmoothL1Loss(beta=0.5), (4, 5)),

    # nnref.nn.functional
    "nnref.nn.functional.adaptive_avg_pool2d": op(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (2, 3, 7, 5)),
    "nnref.nn.functional.adaptive_max_pool2d": op(lambda x: F.adaptive_max_pool2d(x, (2, 3)), (2, 3, 5, 7)),
    "nnref.nn.functional.adaptive_max_pool2d_with_indices": op(
        lambda x: list(F.adaptive_max_pool2d_with_indices(x, 3)), (2, 3, 7, 7)),
    "nnref.nn.functional.avg_pool2d": op(lambda x: [F.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                                                 count_include_pad=False),
                                                    F.avg_pool2d(x, 2)], (2, 3, 7, 7)),
    "nnref.nn.functional.conv1d": op(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (2, 3, 9),
                                     (4, 3, 3), (4,)),
    "nnref.nn.functional.conv_transpose2d": op(lambda x, w, b: F.conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1), (2, 3, 4, 4), (3, 2, 3, 3), (2,)),
    "nnref.nn.functional.dropout1d": case(lambda d: _channel_dropout(
        d, lambda x: F.dropout1d(x, 0.5, training=True), (4, 6, 5))),
    "nnref.nn.functional.dropout2d": case(lambda d: _channel_dropout(
        d, lambda x: F.dropout2d(x, 0.5), (4, 6, 3, 3))),
    "nnref.nn.functional.elu": op(lambda x: [F.elu(x), F.elu(x, alpha=0.5)], (4, 5)),
    # the exact form needs cupyx.scipy.special.erf, which the stand-in does not provide
    "nnref.nn.functional.relu6": op(lambda x: F.relu6(x * 4), (4, 5)),
    "nnref.nn.functional.logsigmoid": op(F.logsigmoid, (4, 5)),
    "nnref.nn.functional.softsign": op(F.softsign, (4, 5)),
    "nnref.nn.functional.mish": op(F.mish, (4, 5)),
    "nnref.nn.functional.hardswish": op(lambda x: F.hardswish(x * 3), (4, 5)),
    "nnref.nn.functional.hardsigmoid": op(lambda x: F.hardsigmoid(x * 3), (4, 5)),
    "nnref.nn.functional.glu": op(lambda x: [F.glu(x), F.glu(x, 0)], (4, 6)),
    "nnref.nn.functional.pad": op(lambda x: [F.pad(x, (1, 2)), F.pad(x, (0, -1, 2, 1), value=0.5)], (4, 5)),
    "nnref.nn.functional.normalize": op(lambda x: [F.normalize(x), F.normalize(x, p=1, dim=0)], (4, 5)),
    "nnref.nn.RNN": layer(lambda: _FirstOutput(nn.RNN(5, 3, num_layers=2, bidirectional=True)), (4, 2, 5)),
    "nnref.nn.LSTM": layer(lambda: _FirstOutput(nn.LSTM(5, 3, batch_first=True)), (2, 4, 5)),
    "nnref.nn.GRU": layer(lambda: _FirstOutput(nn.GRU(5, 3, num_layers=2)), (4, 2, 5)),
    "nnref.nn.MultiheadAttention": layer(lambda: _SelfAttention(nn.MultiheadAttention(6, 2, batch_first=True)), (2, 4, 6)),
    "nnref.nn.TransformerEncoderLayer": layer(lambda: nn.TransformerEncoderLayer(6, 2, dim_feedforward=8, dropout=0.0),
                                              (4, 2, 6)),
    "nnref.nn.TransformerEncoder": layer(lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(6, 2, dim_feedforward=8, dropout=0.0, batch_first=True), 2,
        enable_nested_tensor=False), (2, 4, 6)),
    "nnref.nn.functional.cosine_similarity": op(lambda a, b: [F.cosine_similarity(a, b), F.cosine_similarity(a, b[0], dim=1)],
                                                (3, 4), (3, 4)),
    "nnref.nn.functional.pairwise_distance": op(lambda a, b: [F.pairwise_distance(a, b), F.pairwise_distance(a, b, p=1)],
                                                (3, 4), (3, 4)),
    "nnref.nn.CosineSimilarity": op(lambda a, b: nn.CosineSimilarity(dim=0)(a, b), (3, 4), (3, 4)),
    "nnref.nn.PairwiseDistance": op(lambda a, b: nn.PairwiseDistance(keepdim=True)(a, b), (3, 4), (3, 4)),
    "nnref.nn.functional.interpolate": op(lambda x: [F.interpolate(x, scale_factor=2), F.interpolate(x, size=(3, 5)),
                                                     F.interpolate(x[:, :, 0], scale_factor=1.5),
                                                     F.interpolate(x, scale_factor=1.5, mode="bilinear"),
                                                     F.interpolate(x[:, :, 0], size=9, mode="linear",
                                                                   align_corners=True),
                                                     F.interpolate(x[:, :, None], scale_factor=(2, 0.7, 1.3),
                                                                   mode="trilinear"),
                                                     F.interpolate(x, size=(5, 4), mode="nearest-exact")],
                                          (2, 3, 4, 6)),
    "nnref.nn.Upsample": layer(lambda: nn.Upsample(scale_factor=2), (2, 3, 4, 6)),
    "nnref.nn.GroupNorm": layer(lambda: nn.GroupNorm(2, 4), (3, 4, 5)),
    "nnref.nn.functional.group_norm": op(lambda x, w: F.group_norm(x, 2, w, w * 0.5), (3, 4, 5), (4,)),
    "nnref.nn.functional.scaled_dot_product_attention": op(
        lambda q, k: [F.scaled_dot_product_attention(q, k, k, is_causal=True),
                      F.scaled_dot_product_attention(q, k, k, attn_mask=nnref.ones(4, 4, dtype=nnref.bool,
                                                                                    device=q.device).tril())],
        (2, 4, 3), (2, 4, 3)),
    "nnref.nn.TransformerDecoderLayer": op(lambda tgt, memory: _seeded(lambda: nn.TransformerDecoderLayer(
        6, 2, dim_feedforward=8, dropout=0.0)).to(tgt.device)(tgt, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3, device=tgt.device)),
        (3, 2, 6), (4, 2, 6)),
    "nnref.nn.TransformerDecoder": op(lambda tgt, memory: _seeded(lambda: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(6, 2, dim_feedforward=8, dropout=0.0), 2)).to(tgt.device)(tgt, memory),
        (3, 2, 6), (4, 2, 6)),
    "nnref.nn.Transformer": op(lambda src, tgt: _seeded(lambda: nn.Transformer(6, 2, 1, 1, 8, dropout=0.0,
                                                                         batch_first=True)).to(src.device)(
        src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3, device=src.device)), (2, 4, 6), (2, 3, 6)),
    "nnref.nn.RNNBase": ELSEWHERE("test_api_on_device.py::test_each_name_on_the_device_matches_the_cpu"),
    "nnref.nn.LogSigmoid": layer(lambda: nn.LogSigmoid(), (4, 5)),
    "nnref.nn.Softsign": layer(lambda: nn.Softsign(), (4, 5)),
    "nnref.nn.Mish": layer(lambda: nn.Mish(), (4, 5)),
    "nnref.nn.Hardswish": layer(lambda: nn.Hardswish(), (4, 5)),
    "nnref.nn.Hardsigmoid": layer(lambda: nn.Hardsigmoid(), (4, 5)),
    "nnref.nn.GLU": layer(lambda: nn.GLU(), (4, 6)),
    "nnref.nn.Unflatten": layer(lambda: nn.Unflatten(1, (2, 3)), (4, 6)),
    "nnref.nn.functional.gelu": op(lambda x: [F.gelu(x), F.gelu(x, approximate="tanh")], (4, 5)),
    "nnref.nn.functional.hardtanh": op(lambda x: F.hardtanh(x, -0.5, 0.5), (4, 5)),
    "nnref.nn.functional.leaky_relu": op(lambda x: [F.leaky_relu(x), F.leaky_relu(x, 0.2)], (4, 5)),
    "nnref.nn.functional.silu": op(F.silu, (4, 5)),
    "nnref.nn.functional.softplus": op(lambda x: [F.softplus(x), F.softplus(x, beta=2, threshold=1)], (4, 5)),
    "nnref.nn.functional.elu_": op(lambda x: _in_place(x, F.elu_), (4, 5)),
    "nnref.nn.functional.hardtanh_": op(lambda x: _in_place(x, lambda t: F.hardtanh_(t, -0.5, 0.5)), (4, 5)),
    "nnref.nn.functional.leaky_relu_": op(lambda x: _in_place(x, lambda t: F.leaky_relu_(t, 0.2)), (4, 5)),
    "nnref.nn.functional.relu_": op(lambda x: _in_place(x, F.relu_), (4, 5)),
    "nnref.nn.functional.one_hot": case(lambda d: [F.one_hot(labels(d, [0, 2, 1])),
                                                   F.one_hot(labels(d, [[0, 2], [1, 1]]), 4)]),
    "nnref.nn.functional.binary_cross_entropy": loss(
        lambda: lambda x, y: F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), weight=y.abs()), (4, 5)),
    "nnref.nn.functional.huber_loss": loss(lambda: lambda x, y: F.huber_loss(x, y, delta=0.5), (4, 5)),
    "nnref.nn.functional.kl_div": loss(lambda: lambda x, y: F.kl_div(x.log_softmax(1), y.softmax(1),
                                                                     reduction="batchmean"), (4, 5)),
    "nnref.nn.functional.l1_loss": loss(lambda: lambda x, y: F.l1_loss(x, y, reduction="none"), (4, 5)),
    "nnref.nn.functional.smooth_l1_loss": loss(lambda: lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), (4, 5)),
    # more activations (tests/nn/test_more_modules.py compares them with PyTorch)
    "nnref.nn.PReLU": layer(lambda: nn.PReLU(3, init=0.1), (2, 3, 4)),
    "nnref.nn.SELU": layer(lambda: nn.SELU(), (4, 5)),
    "nnref.nn.CELU": layer(lambda: nn.CELU(0.5), (4, 5)),
    "nnref.nn.Threshold": layer(lambda: nn.Threshold(0.1, 2.0), (4, 5)),
    "nnref.nn.Hardshrink": layer(lambda: nn.Hardshrink(0.3), (4, 5)),
    "nnref.nn.Softshrink": layer(lambda: nn.Softshrink(0.3), (4, 5)),
    "nnref.nn.Tanhshrink": layer(lambda: nn.Tanhshrink(), (4, 5)),
    "nnref.nn.Softmin": layer(lambda: nn.Softmin(dim=1), (4, 5)),
    "nnref.nn.functional.prelu": op(lambda x, w: [F.prelu(x, w), F.prelu(x, w[:1])], (2, 3, 4), (3,)),
    "nnref.nn.functional.selu": op(F.selu, (4, 5)),
    "nnref.nn.functional.selu_": op(lambda x: _in_place(x, F.selu_), (4, 5)),
    "nnref.nn.functional.celu": op(lambda x: [F.celu(x), F.celu(x, alpha=0.5)], (4, 5)),
    "nnref.nn.functional.celu_": op(lambda x: _in_place(x, lambda t: F.celu_(t, 0.5)), (4, 5)),
    "nnref.nn.functional.threshold": op(lambda x: F.threshold(x, 0.1, 2.0), (4, 5)),
    "nnref.nn.functional.threshold_": op(lambda x: _in_place(x, lambda t: F.threshold_(t, 0.1, 2.0)), (4, 5)),
    "nnref.nn.functional.hardshrink": op(lambda x: F.hardshrink(x, 0.3), (4, 5)),
    "nnref.nn.functional.softshrink": op(lambda x: F.softshrink(x, 0.3), (4, 5)),
    "nnref.nn.functional.tanhshrink": op(F.tanhshrink, (4, 5)),
    "nnref.nn.functional.softmin": op(lambda x: [F.softmin(x, 1), F.softmin(x, 0, dtype=nnref.float64)], (4, 5)),
    "nnref.nn.MaxPool1d": layer(lambda: nn.MaxPool1d(3, 2, 1, ceil_mode=True), (2, 3, 8)),
    "nnref.nn.AvgPool1d": layer(lambda: nn.AvgPool1d(3, 2, 1, count_include_pad=False), (2, 3, 8)),
    "nnref.nn.AdaptiveAvgPool1d": layer(lambda: nn.AdaptiveAvgPool1d(3), (2, 3, 8)),
    "nnref.nn.AdaptiveMaxPool1d": layer(lambda: nn.AdaptiveMaxPool1d(3), (2, 3, 8)),
    "nnref.nn.functional.max_pool1d": op(lambda x: [F.max_pool1d(x, 2), F.max_pool1d(x[0], 3, 1, 1, dilation=2)], (2, 3, 8)),
    "nnref.nn.functional.max_pool1d_with_indices": op(lambda x: list(F.max_pool1d_with_indices(x, 3, 2)), (2, 3, 8)),
    "nnref.nn.functional.avg_pool1d": op(lambda x: [F.avg_pool1d(x, 2), F.avg_pool1d(x[0], 3, 2, 1, ceil_mode=True)],
                                         (2, 3, 8)),
    "nnref.nn.functional.adaptive_avg_pool1d": op(lambda x: [F.adaptive_avg_pool1d(x, 3), F.adaptive_avg_pool1d(x, 1)],
                                                  (2, 3, 8)),
    "nnref.nn.functional.adaptive_max_pool1d": op(lambda x: F.adaptive_max_pool1d(x, 3), (2, 3, 8)),
    "nnref.nn.functional.adaptive_max_pool1d_with_indices": op(
        lambda x: list(F.adaptive_max_pool1d_with_indices(x, 5)), (2, 3, 8)),
    "nnref.nn.ZeroPad1d": layer(lambda: nn.ZeroPad1d((1, 2)), (2, 3, 4)),
    "nnref.nn.ZeroPad2d": layer(lambda: nn.ZeroPad2d((1, 2, 0, -1)), (2, 3, 4)),
    "nnref.nn.ZeroPad3d": layer(lambda: nn.ZeroPad3d(1), (1, 2, 2, 3)),
    "nnref.nn.ConstantPad1d": layer(lambda: nn.ConstantPad1d(2, 0.5), (2, 3, 4)),
    "nnref.nn.ConstantPad2d": layer(lambda: nn.ConstantPad2d((1, 0, 2, 1), -1.0), (2, 3, 4)),
    "nnref.nn.ConstantPad3d": layer(lambda: nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 3.0), (1, 2, 2, 3)),
    "nnref.nn.PixelShuffle": layer(lambda: nn.PixelShuffle(2), (2, 8, 2, 3)),
    "nnref.nn.PixelUnshuffle": layer(lambda: nn.PixelUnshuffle(2), (2, 2, 4, 6)),
    "nnref.nn.functional.pixel_shuffle": op(lambda x: [F.pixel_shuffle(x, 2), F.pixel_shuffle(x[0], 3)], (2, 36, 2, 3)),
    "nnref.nn.functional.pixel_unshuffle": op(lambda x: [F.pixel_unshuffle(x, 2), F.pixel_unshuffle(x[0], 3)],
                                              (2, 2, 6, 6)),
    "nnref.nn.InstanceNorm1d": layer(lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 5)),
    "nnref.nn.InstanceNorm2d": layer(lambda: nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    "nnref.nn.InstanceNorm3d": layer(lambda: nn.InstanceNorm3d(2, affine=True), (2, 2, 2, 3, 2)),
    "nnref.nn.RMSNorm": layer(lambda: nn.RMSNorm(5), (2, 3, 5)),
    "nnref.nn.functional.instance_norm": op(lambda x, w: [F.instance_norm(x, weight=w, bias=w * 2), F.instance_norm(
        x, w.detach() * 0, w.detach().abs() + 1, use_input_stats=False)], (2, 3, 4), (3,)),
    "nnref.nn.functional.rms_norm": op(lambda x, w: [F.rms_norm(x, (4,), w), F.rms_norm(x, (3, 4), eps=1e-3)],
                                       (2, 3, 4), (4,)),
    "nnref.nn.RNNCell": layer(lambda: nn.RNNCell(5, 3, nonlinearity="relu"), (4, 5)),
    "nnref.nn.LSTMCell": layer(lambda: nn.LSTMCell(5, 3), (4, 5)),
    "nnref.nn.GRUCell": layer(lambda: nn.GRUCell(5, 3), (5,)),
    "nnref.nn.RNNCellBase": ELSEWHERE("test_api_on_device.py::test_each_name_on_the_device_matches_the_cpu"),
    "nnref.nn.MarginRankingLoss": op(lambda a, b: nn.MarginRankingLoss(0.3)(a, b, _signs(a.device, 5)), (5,), (5,)),
    "nnref.nn.SoftMarginLoss": loss(lambda: lambda x, y: nn.SoftMarginLoss()(x, y.sign()), (4, 5)),
    "nnref.nn.CosineEmbeddingLoss": op(lambda a, b: nn.CosineEmbeddingLoss(0.2)(a, b, _signs(a.device, 4)), (4, 5), (4, 5)),
    "nnref.nn.HingeEmbeddingLoss": loss(lambda: lambda x, y: nn.HingeEmbeddingLoss(0.5)(x, y.sign()), (4, 5)),
    "nnref.nn.TripletMarginLoss": op(lambda a, p, n: nn.TripletMarginLoss(swap=True)(a, p, n), (4, 5), (4, 5), (4, 5)),
    "nnref.nn.PoissonNLLLoss": loss(lambda: lambda x, y: nn.PoissonNLLLoss(log_input=False, full=True)(
        x.abs(), (y.abs() * 3).round()), (4, 5)),
    "nnref.nn.GaussianNLLLoss": op(lambda x, y, v: nn.GaussianNLLLoss(full=True)(x, y, v.abs()), (4, 5), (4, 5), (4, 1)),
    "nnref.nn.MultiLabelSoftMarginLoss": loss(lambda: lambda x, y: nn.MultiLabelSoftMarginLoss(
        weight=nnref.linspace(0.5, 2, 5, device=x.device))(x, (y > 0).float()), (4, 5)),
    "nnref.nn.functional.margin_ranking_loss": op(lambda a, b: F.margin_ranking_loss(
        a, b, _signs(a.device, 5), reduction="none"), (5,), (5,)),
    "nnref.nn.functional.soft_margin_loss": loss(lambda: lambda x, y: F.soft_margin_loss(x, y.sign(), reduction="sum"),
                                                 (4, 5)),
    "nnref.nn.functional.cosine_embedding_loss": op(lambda a, b: F.cosine_embedding_loss(
        a, b, _signs(a.device, 4), reduction="none"), (4, 5), (4, 5)),
    "nnref.nn.functional.hinge_embedding_loss": loss(lambda: lambda x, y: F.hinge_embedding_loss(
        x, y.sign(), reduction="none"), (4, 5)),
    "nnref.nn.functional.triplet_margin_loss": op(lambda a, p, n: F.triplet_margin_loss(a, p, n, p=1, reduction="none"),
                                                  (4, 5), (4, 5), (4, 5)),
    "nnref.nn.functional.poisson_nll_loss": loss(lambda: lambda x, y: F.poisson_nll_loss(x, y.abs(), reduction="none"),
                                                 (4, 5)),
    "nnref.nn.functional.gaussian_nll_loss": op(lambda x, y, v: F.gaussian_nll_loss(x, y, v.abs(), reduction="none"),
                                                (4, 5), (4, 5), (4, 5)),
    "nnref.nn.functional.multilabel_soft_margin_loss": loss(lambda: lambda x, y: F.multilabel_soft_margin_loss(
        x, (y > 0).float(), reduction="none"), (4, 5)),
    "nnref.nn.Bilinear": op(lambda a, b: _seeded(lambda: nn.Bilinear(5, 4, 3)).to(a.device)(a, b), (2, 5), (2, 4)),
    "nnref.nn.functional.bilinear": op(lambda a, b, w, bias: [F.bilinear(a, b, w, bias), F.bilinear(a[0], b[0], w)],
                                       (2, 5), (2, 4), (3, 5, 4), (3,)),
    "nnref.nn.UpsamplingNearest2d": layer(lambda: nn.UpsamplingNearest2d(scale_factor=2), (1, 2, 2, 3)),
    "nnref.nn.UpsamplingBilinear2d": layer(lambda: nn.UpsamplingBilinear2d(scale_factor=1.5), (1, 2, 3, 4)),
    "nnref.nn.LocalResponseNorm": layer(lambda: nn.LocalResponseNorm(3, alpha=0.1), (2, 5, 3, 2)),
    "nnref.nn.functional.local_response_norm": op(lambda x: [F.local_response_norm(x, 2, 0.1, 0.5, 2.0),
                                                             F.local_response_norm(x[0], 3)], (2, 5, 3, 2)),
    "nnref.nn.Dropout3d": case(lambda d: [_channel_dropout(d, nn.Dropout3d(0.5), (4, 6, 2, 2, 2)),
                                          layer(lambda: nn.Dropout3d(0.5).eval(), (4, 6, 2, 2, 2))(d)]),
    "nnref.nn.functional.dropout3d": case(lambda d: _channel_dropout(d, lambda x: F.dropout3d(x, 0.5), (4, 6, 2, 2, 2))),
    "nnref.nn.AlphaDropout": case(lambda d: [_alpha_dropout(d, nn.AlphaDropout(0.3), (6, 5), False),
                                             layer(lambda: nn.AlphaDropout(0.3).eval(), (4, 5))(d)]),
    "nnref.nn.FeatureAlphaDropout": case(lambda d: [_alpha_dropout(d, nn.FeatureAlphaDropout(0.3), (6, 5, 4), True),
                                                    layer(lambda: nn.FeatureAlphaDropout(0.3).eval(), (4, 5, 3))(d)]),
    "nnref.nn.functional.alpha_dropout": case(lambda d: _alpha_dropout(
        d, lambda x: F.alpha_dropout(x, 0.3, training=True), (6, 5), False)),
    "nnref.nn.functional.feature_alpha_dropout": case(lambda d: _alpha_dropout(
        d, lambda x: F.feature_alpha_dropout(x, 0.3, training=True), (6, 5, 4), True)),
    "nnref.nn.EmbeddingBag": case(lambda d: [_embedding_bag(d, mode) for mode in ("sum", "mean", "max")]),
    "nnref.nn.functional.embedding_bag": op(lambda w, psw: [
        F.embedding_bag(labels(w.device, [1, 2, 4, 5, 1]), w, labels(w.device, [0, 2, 2]), mode="sum",
                        per_sample_weights=psw, padding_idx=4),
        F.embedding_bag(labels(w.device, [[1, 2], [4, 1]]), w, mode="max")], (10, 3), (5,)),
    **{f"nnref.nn.{name}": layer(lambda name=name, pads=pads: getattr(nn, name)(pads), shape)
       for name, pads, shape in (("ReflectionPad1d", (2, 1), (2, 3, 4)), ("ReflectionPad2d", (1, 0, 2, 1), (2, 3, 4)),
                                 ("ReflectionPad3d", 1, (1, 2, 2, 3, 4)), ("ReplicationPad1d", (2, 1), (2, 3, 4)),
                                 ("ReplicationPad2d", (1, 0, 2, 1), (2, 3, 4)), ("ReplicationPad3d", 1, (1, 2, 2, 3, 4)),
                                 ("CircularPad1d", (2, 1), (2, 3, 4)), ("CircularPad2d", (1, 0, 2, 1), (2, 3, 4)),
                                 ("CircularPad3d", 1, (1, 2, 2, 3, 4)))},
    "nnref.nn.BatchNorm3d": layer(lambda: nn.BatchNorm3d(3), (2, 3, 2, 3, 2)),
    "nnref.nn.MultiMarginLoss": loss(lambda: lambda x, y: nn.MultiMarginLoss(p=2, weight=y[0].abs())(
        x, labels(x.device, [0, 4, 2, 1])), (4, 5)),
    "nnref.nn.MultiLabelMarginLoss": loss(lambda: lambda x, y: nn.MultiLabelMarginLoss()(
        x, labels(x.device, [[0, 3, -1, 1, 1], [4, -1, 0, 0, 0], [-1, 0, 0, 0, 0], [1, 2, 2, 3, 0]])), (4, 5)),
    "nnref.nn.TripletMarginWithDistanceLoss": op(lambda a, p, n: nn.TripletMarginWithDistanceLoss(swap=True)(a, p, n),
                                                 (4, 5), (4, 5), (4, 5)),
    "nnref.nn.LPPool1d": layer(lambda: nn.LPPool1d(2, 3, stride=2), (2, 3, 7)),
    "nnref.nn.LPPool2d": layer(lambda: nn.LPPool2d(3, 2), (2, 3, 4, 6)),
    "nnref.nn.functional.multi_margin_loss": loss(lambda: lambda x, y: F.multi_margin_loss(
        x, labels(x.device, [0, 4, 2, 1]), reduction="none"), (4, 5)),
    "nnref.nn.functional.multilabel_margin_loss": loss(lambda: lambda x, y: F.multilabel_margin_loss(
        x, labels(x.device, [[0, 3, -1, 1, 1], [4, -1, 0, 0, 0], [-1, 0, 0, 0, 0], [1, 2, 2, 3, 0]]), reduction="none"),
        (4, 5)),
    "nnref.nn.functional.triplet_margin_with_distance_loss": op(lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: (u - v).abs().sum(-1), reduction="none"), (4, 5), (4, 5), (4, 5)),
    "nnref.nn.functional.lp_pool1d": op(lambda x: [F.lp_pool1d(x, 2, 3), F.lp_pool1d(x, float("inf"), 2)], (2, 3, 7)),
    "nnref.nn.functional.lp_pool2d": op(lambda x: [F.lp_pool2d(x, 2, (2, 3)), F.lp_pool2d(x, 1.5, 2, 1, True)],
                                        (2, 3, 4, 6)),
    "nnref.nn.Unfold": layer(lambda: nn.Unfold((2, 3), padding=1, stride=2), (2, 3, 5, 6)),
    "nnref.nn.Fold": layer(lambda: nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=1, stride=2), (2, 6, 9)),
    "nnref.nn.functional.unfold": op(lambda x: [F.unfold(x, 2), F.unfold(x[0], 3, dilation=2, padding=1)], (2, 3, 5, 6)),
    "nnref.nn.functional.fold": op(lambda x: [F.fold(x, (4, 5), 2), F.fold(x[0], (5, 4), 2)],
                                   (2, 12, 12)),
    "nnref.nn.MaxUnpool2d": op(lambda x: nn.MaxUnpool2d(3, 2, 1)(*F.max_pool2d(x, 3, 2, 1, return_indices=True),
                                                                 output_size=(5, 7)), (2, 3, 5, 7)),
    "nnref.nn.MaxUnpool1d": op(lambda x: nn.MaxUnpool1d(2)(*F.max_pool1d(x, 2, return_indices=True)), (2, 3, 6)),
    "nnref.nn.functional.max_unpool2d": op(lambda x: F.max_unpool2d(x, labels(x.device, [[[[0, 2, 5], [7, 9, 10]]]]),
                                                                    (1, 2)), (1, 1, 2, 3)),
    "nnref.nn.functional.max_unpool1d": op(lambda x: F.max_unpool1d(x, labels(x.device, [[[0, 3, 5], [1, 2, 4]]]), 2),
                                           (1, 2, 3)),
    "nnref.nn.ChannelShuffle": layer(lambda: nn.ChannelShuffle(3), (2, 6, 2, 2)),
    "nnref.nn.functional.channel_shuffle": op(lambda x: F.channel_shuffle(x, 2), (2, 6, 3)),
    "nnref.nn.functional.native_channel_shuffle": case(lambda d: F.native_channel_shuffle(leaf(d, (2, 6, 3), grad=False), 3)),
    "nnref.nn.RReLU": case(lambda d: [_rrelu(d, nn.RReLU(0.1, 0.3)), layer(lambda: nn.RReLU(0.1, 0.3).eval(), (4, 5))(d)]),
    "nnref.nn.functional.rrelu": case(lambda d: [_rrelu(d, lambda x: F.rrelu(x, 0.1, 0.3, training=True)),
                                                 op(lambda x: F.rrelu(x, 0.1, 0.3), (4, 5))(d)]),
    "nnref.nn.functional.rrelu_": op(lambda x: _in_place(x, lambda t: F.rrelu_(t, 0.1, 0.3)), (4, 5)),
    "nnref.nn.functional.gumbel_softmax": case(lambda d: _gumbel(d)),
    "nnref.nn.LazyConv1d": case(lambda d: _lazy(d, lambda: nn.LazyConv1d(4, 3, padding=1), (2, 3, 5))),
    "nnref.nn.LazyBatchNorm1d": case(lambda d: _lazy(d, lambda: nn.LazyBatchNorm1d(), (4, 3))),
    "nnref.nn.LazyBatchNorm2d": case(lambda d: _lazy(d, lambda: nn.LazyBatchNorm2d(), (2, 3, 2, 2))),
    "nnref.nn.LazyBatchNorm3d": case(lambda d: _lazy(d, lambda: nn.LazyBatchNorm3d(), (2, 3, 2, 2, 2))),
    "nnref.nn.LazyInstanceNorm1d": case(lambda d: _lazy(d, lambda: nn.LazyInstanceNorm1d(), (2, 3, 5))),
    "nnref.nn.LazyInstanceNorm2d": case(lambda d: _lazy(d, lambda: nn.LazyInstanceNorm2d(), (2, 3, 2, 3))),
    "nnref.nn.LazyInstanceNorm3d": case(lambda d: _lazy(d, lambda: nn.LazyInstanceNorm3d(), (2, 3, 2, 2, 2))),
    "nnref.nn.NLLLoss2d": loss(lambda: _quiet(lambda: nn.NLLLoss2d()), (4, 5), target=lambda d: labels(d, [0, 4, 2, 2])),
    "nnref.nn.functional.upsample": op(lambda x: _quiet(lambda: F.upsample(x, scale_factor=2)), (1, 2, 3, 4)),
    "nnref.nn.functional.upsample_nearest": op(lambda x: _quiet(lambda: F.upsample_nearest(x, size=(4, 5))), (1, 2, 3, 4)),
    "nnref.nn.functional.upsample_bilinear": op(lambda x: _quiet(lambda: F.upsample_bilinear(x, size=(5, 3))),
                                                (1, 2, 3, 4)),
    "nnref.nn.Buffer": case(lambda d: _buffers(d)),
    "nnref.nn.ConvTranspose1d": layer(lambda: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                                 groups=2), (2, 4, 5)),
    "nnref.nn.functional.conv_transpose1d": op(lambda x, w, b: [F.conv_transpose1d(x, w, b, stride=2, padding=1),
                                                                F.conv_transpose1d(x[0], w, dilation=2)],
                                               (2, 3, 5), (3, 2, 3), (2,)),
    "nnref.nn.LazyConvTranspose1d": case(lambda d: _lazy(d, lambda: nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5))),
    "nnref.nn.LazyConvTranspose2d": case(lambda d: _lazy(d, lambda: nn.LazyConvTranspose2d(4, 3, stride=2), (2, 3, 4, 4))),
    "nnref.nn.functional.grid_sample": op(lambda x, g, v, w: [F.grid_sample(x, g.tanh() * 1.3, mode=m, padding_mode=p,
                                                                      align_corners=a)
                                                       for m in ("bilinear", "nearest", "bicubic")
                                                       for p in ("zeros", "border", "reflection")
                                                       for a in (False, True)] + [
        F.grid_sample(v, w.tanh() * 1.3, mode=m, padding_mode=p, align_corners=True)
        for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")],
        (2, 3, 4, 5), (2, 3, 6, 2), (2, 2, 3, 4, 2), (2, 2, 3, 2, 3)),
    "nnref.nn.functional.affine_grid": op(lambda t: [F.affine_grid(t, [2, 3, 4, 5], align_corners=False),
                                                     F.affine_grid(t, [2, 1, 3, 2], align_corners=True)], (2, 2, 3)),
    "nnref.cdist": op(lambda a, b, c: [nnref.cdist(a, b), nnref.cdist(a, b, p=1), nnref.cdist(a, b, p=0.5),
                                       nnref.cdist(a, b, p=float("inf")), nnref.cdist(c, b),
                                       nnref.cdist(a, b, compute_mode="use_mm_for_euclid_dist")],
                      (2, 5, 3), (4, 3), (30, 3)),
    "nnref.nn.functional.pdist": op(lambda x: [F.pdist(x), F.pdist(x, 1), F.pdist(x, 3), F.pdist(x, float("inf"))],
                                    (5, 3)),
    # (end of the cases of tests/nn/test_more_modules.py)

    # nnref.optim and its schedulers
    "nnref.optim.Adagrad": optimizer(lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=1e-2)),
    "nnref.optim.RMSprop": optimizer(lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True)),
    # (the cases of tests/nn/test_more_optim.py)
    "nnref.optim.NAdam": optimizer(lambda ps: optim.NAdam(ps, lr=0.01, weight_decay=1e-2), steps=4),
    "nnref.optim.RAdam": optimizer(lambda ps: optim.RAdam(ps, lr=0.01, betas=(0.9, 0.9), weight_decay=1e-2,
                                                          decoupled_weight_decay=True), steps=7),
    "nnref.optim.Adamax": optimizer(lambda ps: optim.Adamax(ps, lr=0.01, weight_decay=1e-2)),
    "nnref.optim.Adadelta": optimizer(lambda ps: optim.Adadelta(ps, rho=0.5, weight_decay=1e-2)),
    "nnref.optim.Rprop": optimizer(lambda ps: optim.Rprop(ps, lr=0.01, step_sizes=(1e-4, 0.1)), steps=4),
    "nnref.optim.ASGD": optimizer(lambda ps: optim.ASGD(ps, lr=0.05, t0=1, weight_decay=1e-2), steps=4),
    "nnref.optim.LBFGS": case(lambda d: _lbfgs_on(d, line_search_fn="strong_wolfe", history_size=3)),
    "nnref.optim.lr_scheduler.CosineAnnealingLR": scheduler(lambda o: lr_scheduler.CosineAnnealingLR(o, 3)),
    "nnref.optim.lr_scheduler.ExponentialLR": scheduler(lambda o: lr_scheduler.ExponentialLR(o, 0.5)),
    "nnref.optim.lr_scheduler.LambdaLR": scheduler(lambda o: lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1))),
    "nnref.optim.lr_scheduler.MultiStepLR": scheduler(lambda o: lr_scheduler.MultiStepLR(o, [1, 3], 0.5)),
    "nnref.optim.lr_scheduler.OneCycleLR": scheduler(lambda o: lr_scheduler.OneCycleLR(o, 0.5, total_steps=10)),
    "nnref.optim.lr_scheduler.ReduceLROnPlateau": scheduler(
        lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="max", patience=0, factor=0.5), metric=True),
    # (the cases of tests/nn/test_more_schedulers.py)
    "nnref.optim.lr_scheduler.LinearLR": scheduler(lambda o: lr_scheduler.LinearLR(o, 0.25, total_iters=3)),
    "nnref.optim.lr_scheduler.ConstantLR": scheduler(lambda o: lr_scheduler.ConstantLR(o, 0.5, total_iters=2)),
    "nnref.optim.lr_scheduler.PolynomialLR": scheduler(lambda o: lr_scheduler.PolynomialLR(o, 3, power=2.0)),
    "nnref.optim.lr_scheduler.MultiplicativeLR": scheduler(lambda o: lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)),
    "nnref.optim.lr_scheduler.CosineAnnealingWarmRestarts": scheduler(
        lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2)),
    "nnref.optim.lr_scheduler.CyclicLR": scheduler(lambda o: lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2)),
    "nnref.optim.lr_scheduler.SequentialLR": scheduler(lambda o: lr_scheduler.SequentialLR(
        o, [lr_scheduler.LinearLR(o, 0.5, total_iters=2), lr_scheduler.ExponentialLR(o, 0.9)], milestones=[2])),
    "nnref.optim.lr_scheduler.ChainedScheduler": scheduler(lambda o: lr_scheduler.ChainedScheduler(
        [lr_scheduler.ConstantLR(o, 0.5, total_iters=2), lr_scheduler.ExponentialLR(o, 0.9)])),

    # nnref.utils.data over tensors on the device (index order from CPU generators, the same on both)
    "nnref.utils.data.Dataset": case(lambda d: list(data.DataLoader(_Rows(d), batch_size=2))),
    "nnref.utils.data.IterableDataset": case(lambda d: list(data.DataLoader(_Stream(d), batch_size=2))),
    "nnref.utils.data.TensorDataset": case(lambda d: [_tensor_dataset(d)[2], _tensor_dataset(d)[1:3],
                                                      len(_tensor_dataset(d))]),
    "nnref.utils.data.ConcatDataset": case(lambda d: list(data.ConcatDataset([_Rows(d), _tensor_dataset(d)]))),
    "nnref.utils.data.Subset": case(lambda d: list(data.Subset(_Rows(d), [4, 0, 2]))),
    "nnref.utils.data.random_split": case(lambda d: [list(part) for part in data.random_split(
        _Rows(d), [3, 2], generator=nnref.Generator().manual_seed(0))]),
    "nnref.utils.data.DataLoader": case(lambda d: list(data.DataLoader(
        _tensor_dataset(d), batch_size=2, shuffle=True, generator=nnref.Generator().manual_seed(0)))),
    "nnref.utils.data.Sampler": case(lambda d: list(data.DataLoader(_Rows(d), sampler=_EveryOther(5)))),
    "nnref.utils.data.SequentialSampler": case(lambda d: list(data.DataLoader(
        _Rows(d), batch_size=3, sampler=data.SequentialSampler(range(5))))),
    "nnref.utils.data.RandomSampler": case(lambda d: list(data.DataLoader(_Rows(d), batch_size=2, sampler=(
        data.RandomSampler(range(5), generator=nnref.Generator().manual_seed(1)))))),
    "nnref.utils.data.SubsetRandomSampler": case(lambda d: list(data.DataLoader(_Rows(d), sampler=(
        data.SubsetRandomSampler([0, 3, 4], generator=nnref.Generator().manual_seed(2)))))),
    "nnref.utils.data.BatchSampler": case(lambda d: list(data.DataLoader(_Rows(d), batch_sampler=(
        data.BatchSampler(data.SequentialSampler(range(5)), 2, drop_last=True))))),
    # (the cases of tests/data/test_more_samplers.py)
    "nnref.utils.data.WeightedRandomSampler": case(lambda d: list(data.DataLoader(_Rows(d), batch_size=3, sampler=(
        data.WeightedRandomSampler([0.1, 2.0, 0.0, 1.0, 0.5], 7, generator=nnref.Generator().manual_seed(4)))))),
    "nnref.utils.data.StackDataset": case(lambda d: list(data.DataLoader(
        data.StackDataset(_Rows(d), data.Subset(_Rows(d), [4, 3, 2, 1, 0])), batch_size=2))),
    "nnref.utils.data.ChainDataset": case(lambda d: list(data.DataLoader(
        data.ChainDataset([_Stream(d), _Stream(d)]), batch_size=3))),
    "nnref.utils.data.default_collate": case(lambda d: _collated(d)),
    "nnref.utils.data.default_convert": case(lambda d: data.default_convert(
        [leaf(d, (2,), grad=False), (labels(d, [1, 2]), 3)])),
    "nnref.utils.data.get_worker_info": HOST_ONLY("None in the main process: worker metadata, no tensors"),
})


def _spd(a):
    """A well-conditioned symmetric positive-definite batch built from ``a`` (differentiably)."""
    return a @ a.mT + a.shape[-1] * nnref.eye(a.shape[-1], device=a.device)


# torch.linalg, and the top-level names and methods PyTorch has for its determinants and inverse
CASES.update({
    "nnref.linalg.vector_norm": op(lambda x: [nnref.linalg.vector_norm(x), nnref.linalg.vector_norm(x, 1, (0, 2)),
                                              nnref.linalg.vector_norm(x, float("inf"), -1, keepdim=True)], (2, 3, 4)),
    "nnref.linalg.matrix_norm": op(lambda x: [nnref.linalg.matrix_norm(x), nnref.linalg.matrix_norm(x, 1),
                                              nnref.linalg.matrix_norm(x, -float("inf"), (0, 2), keepdim=True),
                                              nnref.linalg.matrix_norm(x, 2), nnref.linalg.matrix_norm(x, "nuc")],
                                   (2, 3, 4)),
    "nnref.linalg.norm": op(lambda x: [nnref.linalg.norm(x), nnref.linalg.norm(x[0], 1),
                                       nnref.linalg.norm(x, 3, -1)], (2, 3, 4)),
    "nnref.linalg.svdvals": op(lambda x: nnref.linalg.svdvals(x), (2, 3, 4)),
    **{name: op(lambda a, f=f: f(_spd(a)), (2, 3, 3)) for name, f in (
        ("nnref.linalg.det", nnref.linalg.det), ("nnref.det", nnref.det), ("nnref.Tensor.det", nnref.Tensor.det),
        ("nnref.logdet", nnref.logdet), ("nnref.Tensor.logdet", nnref.Tensor.logdet),
        ("nnref.linalg.slogdet", lambda a: list(nnref.linalg.slogdet(a))),
        ("nnref.slogdet", lambda a: list(nnref.slogdet(a))), ("nnref.Tensor.slogdet", lambda a: list(a.slogdet())),
        ("nnref.linalg.inv", nnref.linalg.inv), ("nnref.inverse", nnref.inverse),
        ("nnref.Tensor.inverse", nnref.Tensor.inverse),
        ("nnref.linalg.cholesky", lambda a: [nnref.linalg.cholesky(a), nnref.linalg.cholesky(a, upper=True)]))},
    "nnref.linalg.solve": op(lambda a, b: [nnref.linalg.solve(_spd(a), b), nnref.linalg.solve(_spd(a), b[0, :, 0]),
                                           nnref.linalg.solve(_spd(a), b.mT, left=False)], (2, 3, 3), (2, 3, 2)),
    "nnref.linalg.LinAlgError": HOST_ONLY("an exception class; its raising is checked on the CPU "
                                          "(tests/core/test_linalg_vs_torch.py)"),
    "nnref.linalg.cross": op(lambda a, b: nnref.linalg.cross(a, b), (4, 3), (4, 3)),
    "nnref.linalg.matmul": op(lambda a, b: nnref.linalg.matmul(a, b), (2, 3), (3, 4)),
    "nnref.linalg.vecdot": op(lambda a, b: nnref.linalg.vecdot(a, b), (3, 4), (3, 4)),
    "nnref.linalg.multi_dot": op(lambda a, b, c: nnref.linalg.multi_dot([a, b, c]), (2, 3), (3, 4), (4, 2)),
    "nnref.chain_matmul": op(lambda a, b, c: nnref.chain_matmul(a, b, c), (2, 3), (3, 4), (4, 2)),
    "nnref.linalg.matrix_power": op(lambda a: [nnref.linalg.matrix_power(a, 3), nnref.linalg.matrix_power(_spd(a), -2)],
                                    (2, 3, 3)),
    "nnref.linalg.eigh": op(lambda a: nnref.linalg.eigh(_spd(a)).eigenvalues, (2, 3, 3)),
    "nnref.linalg.eigvalsh": op(lambda a: nnref.linalg.eigvalsh(_spd(a)), (2, 3, 3)),
    "nnref.linalg.svd": op(lambda a: nnref.linalg.svd(a).S, (2, 4, 3)),
    "nnref.svd": op(lambda a: nnref.svd(a)[1], (2, 4, 3)),
    "nnref.poisson": case(lambda d: _refusal_on_gpu(lambda: nnref.poisson(nnref.full((2, 3), 2.0, device=d)), d)),
    "nnref.Tensor.svd": op(lambda a: a.svd()[1], (2, 4, 3)),
    "nnref.linalg.qr": case(lambda d: [f.abs() for f in nnref.linalg.qr(leaf(d, (4, 3), grad=False))]),
    "nnref.linalg.pinv": op(lambda a: nnref.linalg.pinv(a), (2, 4, 3)),
    "nnref.linalg.lstsq": op(lambda a, b: nnref.linalg.lstsq(_spd(a), b).solution, (2, 3, 3), (2, 3, 2)),
    "nnref.linalg.matrix_rank": case(lambda d: [nnref.linalg.matrix_rank(leaf(d, (2, 4, 3), grad=False)),
                                                nnref.linalg.matrix_rank(leaf(d, (4, 3), grad=False), atol=0.5)]),
})


def _default_generator(d):
    nnref.manual_seed(7)
    first = nnref.rand(4, generator=nnref.default_generator)
    nnref.default_generator.manual_seed(7)
    return [first.to(d), nnref.rand(4).to(d), nnref.default_generator.initial_seed()]


def _random_module(d):
    """``nnref.random``'s seeding reproduces the device's draws; ``fork_rng`` restores the CPU
    stream around them."""
    nnref.random.manual_seed(5)
    first = nnref.rand(6, device=d)
    with nnref.random.fork_rng():
        nnref.random.manual_seed(5)
        again = nnref.rand(6, device=d)
        nnref.rand(3)
    return [nnref.equal(first, again), again.device == d, nnref.random.initial_seed()]


def _default_device(d):
    """Factories put tensors on the default device; layers' constant parts go there too."""
    before = nnref.get_default_device()
    nnref.set_default_device(d)
    try:
        made = [nnref.zeros(2, 3), nnref.tensor([1.0, 2.0]), nnref.arange(4), nnref.ones(2) + 1,
                nn.BatchNorm1d(3).running_var, nnref.get_default_device() == d]
    finally:
        nnref.set_default_device(None)
    return [made, before, nnref.get_default_device()]


def _accelerator(d):
    """The tutorials' idiom picks the device; every answer is the same in both runs (the
    stand-in is installed), and work queued on ``d`` is waited for."""
    acc = nnref.accelerator
    picked = acc.current_accelerator().type if acc.is_available() else "cpu"
    out = nnref.ones(3, device=d) * 2
    acc.synchronize()
    return [picked, acc.is_available(), acc.device_count(), acc.current_device_index(),
            acc.current_accelerator(check_available=True), out]


def _lazy(d, build, shape):
    """Materialised on the CPU (so both runs start from the same numbers) then moved: a layer
    case; materialised on ``d``: its parameters' shapes and device."""
    nnref.manual_seed(0)
    module = build()
    module(nnref.zeros(*shape))
    trained = layer(lambda: module, shape)(d)
    on_device = build().to(d)
    on_device(leaf(d, shape, grad=False))
    return [trained, [(p.shape, p.device == d) for p in on_device.parameters()]]


def _uninitialized(d, kind):
    t = kind(device=d)
    t.materialize((2, 3))
    with nnref.no_grad():
        t.fill_(1.5)
    return [type(t).__name__, t.shape, t.device == d, t.requires_grad, t * 2]


def _channel_dropout(d, drop, shape):
    """Training-mode channel dropout: each channel all zeros or all scaled by 1 / (1 - p)."""
    x = nnref.ones(*shape, device=d, requires_grad=True)
    y = drop(x)
    y.sum().backward()
    flat = y.detach().flatten(2)
    return [y.shape, y.device == d, bool(((flat == 0) | (flat == 2)).all()),
            bool((flat.amax(-1) == flat.amin(-1)).all()), nnref.equal(x.grad, y.detach())]


class _Rows(data.Dataset):
    """Five (features, label) pairs on ``d``."""

    def __init__(self, d):
        self.x, self.y = leaf(d, (5, 3), grad=False), labels(d, [0, 1, 2, 1, 0])

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return 5


class _Stream(data.IterableDataset):
    def __init__(self, d):
        self.rows = _Rows(d)

    def __iter__(self):
        return (self.rows[i] for i in range(5))


def _lbfgs_on(d, **options):
    """Two L-BFGS steps (closure, line search) on the small model: losses, parameters, directions."""
    model = _small_model(d)
    opt = optim.LBFGS(model.parameters(), max_iter=4, **options)
    x, y = leaf(d, (5, 4), grad=False), leaf(d, (5, 3), seed=1, grad=False)

    def closure():
        opt.zero_grad()
        value = F.mse_loss(model(x), y)
        value.backward()
        return value
    losses = [opt.step(closure).item() for _ in range(2)]
    state = opt.state[next(model.parameters())]
    return [losses, list(model.parameters()), state["d"], state["prev_flat_grad"], state["func_evals"]]


class _EveryOther(data.Sampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(0, self.n, 2))

    def __len__(self):
        return (self.n + 1) // 2


def _collated(d):
    """Tensors on ``d`` stack on ``d``; Python numbers become CPU tensors, as in PyTorch."""
    tensors, indices, ints, floats = data.default_collate(
        [(leaf(d, (3,), seed=i, grad=False), labels(d, i), i, 0.5 * i) for i in range(3)])
    return [tensors, indices, ints.device.type, ints.tolist(), floats.dtype, floats.tolist()]


def _tensor_dataset(d):
    dataset = data.TensorDataset(leaf(d, (5, 3), seed=4, grad=False), labels(d, [1, 0, 1, 1, 0]))
    return dataset


# quantile/nanquantile, cdist, Tensor.unfold, histogram
CASES.update({
    **{f"{where}{name}": op(lambda x, where=where, name=name: [
        getattr(nnref if where == "nnref." else nnref.Tensor, name)(x, 0.3),
        getattr(nnref, name)(x, nnref.tensor([0.25, 0.5], device=x.device), dim=1, keepdim=True),
        getattr(nnref, name)(x, 0.7, dim=0, interpolation="nearest")], (4, 5))
       for where in ("nnref.", "nnref.Tensor.") for name in ("quantile", "nanquantile")},
    "nnref.Tensor.unfold": op(lambda x: [x.unfold(1, 2, 1), x.unfold(-1, 3, 2), x.unfold(0, 4, 4)], (4, 5)),
})


def _refusal_on_gpu(draw, d):
    """A draw of PyTorch's CPU stream: its shape and dtype on the CPU; on a GPU, the refusal's type
    (the draw would not be PyTorch's there), so the two devices compare equal only if it refuses."""
    if d.type == "cpu":
        return [list(draw().shape), str(draw().dtype), "refused on a GPU"]
    try:
        draw()
    except (RuntimeError, NotImplementedError) as exc:
        return [[2, 3], "torch.float32", "refused on a GPU" if "on the CPU only" in str(exc) else str(exc)]
    return "drawn on the GPU"


# -- nnref.distributions: scores, moments and gradients on the device; seeded draws -------------------
def _scored(make, value, draws=True):
    """A distribution of ``make(d, params)`` over float leaves ``params``: ``log_prob(value)``,
    entropy, mean, variance and the leaves' gradients; and its seeded draw's properties."""
    def run(d):
        leaves = [leaf(d, shape, seed=i, values=positive) for i, shape in enumerate(((2, 3), (2, 3)))]
        dist = make(leaves)
        out = with_grads([dist.log_prob(value(d)), dist.entropy(), dist.mean, dist.variance], leaves)
        if draws:
            out.append(seeded_draw(lambda _: dist.sample((4,)))(d))
        return out
    return run


def _custom_kl(d):
    class Shifted(distributions.Normal):
        pass

    @distributions.register_kl(Shifted, distributions.Normal)
    def _kl_shifted(p, q):
        return (p.loc - q.loc).abs()
    p = Shifted(leaf(d, (3,)), 1.0)
    return distributions.kl_divergence(p, distributions.Normal(leaf(d, (3,), seed=1), 2.0))


CASES.update({
    "nnref.distributions.Distribution": case(lambda d: [distributions.Normal(leaf(d, (3,)), 1.0).perplexity(),
                                                        distributions.Normal(leaf(d, (3,)), 1.0).stddev]),
    "nnref.distributions.ExponentialFamily": case(lambda d: with_grads(
        distributions.ExponentialFamily.entropy(distributions.Normal(leaf(d, (3,)), leaf(
            d, (3,), seed=1, values=positive))), [])),
    "nnref.distributions.Normal": _scored(lambda p: distributions.Normal(p[0], p[1]),
                                          lambda d: leaf(d, (2, 3), seed=5, grad=False)),
    "nnref.distributions.Uniform": _scored(lambda p: distributions.Uniform(p[0] - 3, p[1]),
                                           lambda d: leaf(d, (2, 3), seed=0, values=positive, grad=False) - 1),
    "nnref.distributions.Bernoulli": _scored(lambda p: distributions.Bernoulli(logits=p[0] - p[1]),
                                             lambda d: labels(d, [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])),
    "nnref.distributions.Categorical": _scored(lambda p: distributions.Categorical(probs=p[0] * p[1]),
                                               lambda d: labels(d, [2, 0])),
    "nnref.distributions.Multinomial": _scored(lambda p: distributions.Multinomial(4, probs=p[0] * p[1]),
                                               lambda d: labels(d, [[1.0, 2.0, 1.0], [0.0, 0.0, 4.0]])),
    "nnref.distributions.Exponential": _scored(lambda p: distributions.Exponential(p[0] * p[1]),
                                               lambda d: leaf(d, (2, 3), seed=3, values=positive, grad=False)),
    # Their samplers draw PyTorch's CPU stream; on a GPU they refuse (Differences page), so only
    # the scores, moments and gradients run on the device here.
    "nnref.distributions.Gamma": _scored(lambda p: distributions.Gamma(p[0], p[1]),
                                         lambda d: leaf(d, (2, 3), seed=5, values=positive, grad=False),
                                         draws=False),
    "nnref.distributions.Beta": _scored(lambda p: distributions.Beta(p[0], p[1]),
                                        lambda d: leaf(d, (2, 3), seed=5, values=positive, grad=False) * 0.1,
                                        draws=False),
    "nnref.distributions.Dirichlet": _scored(lambda p: distributions.Dirichlet(p[0] * p[1]),
                                             lambda d: distributions.Dirichlet(nnref.ones(3, device=d)).mean,
                                             draws=False),
    "nnref.distributions.Poisson": case(lambda d: (lambda rate: with_grads(
        [distributions.Poisson(rate).log_prob(labels(d, [[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]])),
         distributions.Poisson(rate).mean, distributions.Poisson(rate).variance], [rate]))(
        leaf(d, (2, 3), values=positive))),
    "nnref.distributions.Laplace": _scored(lambda p: distributions.Laplace(p[0], p[1]),
                                           lambda d: leaf(d, (2, 3), seed=5, grad=False)),
    "nnref.distributions.Independent": _scored(
        lambda p: distributions.Independent(distributions.Normal(p[0], p[1]), 1),
        lambda d: leaf(d, (3,), seed=5, grad=False)),
    "nnref.distributions.OneHotCategorical": _scored(
        lambda p: distributions.OneHotCategorical(logits=p[0] - p[1]),
        lambda d: labels(d, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])),
    "nnref.distributions.OneHotCategoricalStraightThrough": case(lambda d: with_grads(
        distributions.OneHotCategoricalStraightThrough(leaf(d, (2, 3), values=positive)).rsample((2,)).shape, [])),
    "nnref.distributions.MultivariateNormal": _scored(
        lambda p: distributions.MultivariateNormal(
            p[0], covariance_matrix=p[1].T @ p[1] + nnref.eye(3, device=p[1].device)),
        lambda d: leaf(d, (3,), seed=5, grad=False)),
    "nnref.distributions.kl_divergence": case(lambda d: with_grads(
        [distributions.kl_divergence(distributions.Normal(x, 1.5), distributions.Normal(0.3, x.exp()))
         for x in [leaf(d, (4,))]], [])),
    "nnref.distributions.register_kl": case(_custom_kl),
})


# nn.utils: gradient clipping, parameters as a vector, padding and packing sequences
def _with_grads_set(d, dtypes=(nnref.float32, nnref.float32, nnref.float64)):
    """Three parameters on ``d`` whose ``.grad`` are fixed values (one without a gradient)."""
    params = []
    for i, dtype in enumerate(dtypes):
        p = nn.Parameter(leaf(d, (3, 4 - i), seed=i, grad=False, dtype=dtype))
        p.grad = leaf(d, (3, 4 - i), seed=10 + i, grad=False, dtype=dtype) * 3
        params.append(p)
    return params + [nn.Parameter(leaf(d, (2,), grad=False))]


def _clipped(clip):
    def run(d):
        params = _with_grads_set(d)
        return [clip(params), [p.grad for p in params]]
    return run


def _deprecated_clip(params):
    with pytest.warns(FutureWarning):
        return nn.utils.clip_grad_norm(params, 0.5)


def _vector_back(d):
    params = _with_grads_set(d, (nnref.float32,) * 3)
    nn.utils.vector_to_parameters(leaf(d, (30,), seed=7, grad=False), params)
    return params


def _packed(d, enforce_sorted=False, batch_first=True):
    x = leaf(d, (4, 5, 3) if batch_first else (5, 4, 3))
    lengths = [5, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4]
    return x, nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)


def _packed_fields(packed):
    return [packed.data, packed.batch_sizes.tolist(), packed.sorted_indices, packed.unsorted_indices]


def _packed_runs(d):
    """Conversions of a PackedSequence, and LSTM and GRU run on one (unsorted lengths, both
    directions, two layers): outputs, final states, input and weight gradients."""
    found = [_packed_fields(_packed(d)[1].double()), _packed_fields(_packed(d)[1].to(d))]
    for build, batch_first in ((lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), True),
                               (lambda: nn.GRU(3, 4, bidirectional=True), False)):
        nnref.manual_seed(0)
        rnn = build().to(d)
        x, packed = _packed(d, batch_first=batch_first)
        output, hidden = rnn(packed)
        found.append(with_grads([_packed_fields(output), hidden], [x]) + [[p.grad for p in rnn.parameters()]])
    return found


def _padded_back(d):
    x, packed = _packed(d)
    padded, lengths = nn.utils.rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0,
                                                       total_length=6)
    return with_grads([padded, lengths.tolist()], [x])


def _sequences_on(d):
    return [leaf(d, (n, 2), seed=n) for n in (3, 5, 1)]


CASES.update({
    "nnref.nn.utils.clip_grad_norm_": _clipped(lambda ps: [nn.utils.clip_grad_norm_(ps, 0.5),
                                                         nn.utils.clip_grad_norm_(ps[:2], 0.1, 1.0, foreach=True),
                                                         nn.utils.clip_grad_norm_(ps[0], 0.05, float("inf"))]),
    "nnref.nn.utils.clip_grad_norm": _clipped(_deprecated_clip),
    "nnref.nn.utils.clip_grad_value_": _clipped(lambda ps: nn.utils.clip_grad_value_(ps, 0.4)),
    "nnref.nn.utils.get_total_norm": _clipped(lambda ps: [nn.utils.get_total_norm([p.grad for p in ps[:3]], 3.0),
                                                        nn.utils.get_total_norm(ps[1].grad, float("inf"))]),
    "nnref.nn.utils.clip_grads_with_norm_": _clipped(lambda ps: nn.utils.clip_grads_with_norm_(
        ps, 0.5, nn.utils.get_total_norm([p.grad for p in ps[:3]]))),
    "nnref.nn.utils.parameters_to_vector": op(lambda a, b: nn.utils.parameters_to_vector([a, b]), (3, 4), (2,)),
    "nnref.nn.utils.vector_to_parameters": case(_vector_back),
    "nnref.nn.utils.rnn.PackedSequence": case(_packed_runs),
    "nnref.nn.utils.rnn.invert_permutation": case(lambda d: nn.utils.rnn.invert_permutation(
        labels(d, [2, 0, 3, 1]))),
    "nnref.nn.utils.rnn.pack_padded_sequence": case(lambda d: [
        with_grads(_packed_fields(p), [x]) for x, p in (_packed(d), _packed(d, True, False))]),
    "nnref.nn.utils.rnn.pad_packed_sequence": case(_padded_back),
    "nnref.nn.utils.rnn.pad_sequence": case(lambda d: [with_grads(nn.utils.rnn.pad_sequence(s, True, 0.5, side), s)
                                                       for side in ("right", "left") for s in [_sequences_on(d)]]),
    "nnref.nn.utils.rnn.unpad_sequence": case(lambda d: [with_grads(nn.utils.rnn.unpad_sequence(
        nn.utils.rnn.pad_sequence(s), nnref.tensor([3, 5, 1])), s) for s in [_sequences_on(d)]]),
    "nnref.nn.utils.rnn.pack_sequence": case(lambda d: [with_grads(_packed_fields(nn.utils.rnn.pack_sequence(
        s, enforce_sorted=False)), s) for s in [_sequences_on(d)]]),
    "nnref.nn.utils.rnn.unpack_sequence": case(lambda d: [with_grads(nn.utils.rnn.unpack_sequence(
        nn.utils.rnn.pack_sequence(s, enforce_sorted=False)), s) for s in [_sequences_on(d)]]),
})

# nn.utils.parametrize and parametrizations, and the legacy weight and spectral norm hooks
class _Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class _RankOne(nn.Module):
    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        return Z[:, 0].clone(), Z[0, :].clone()


def _parametrized(d, register, x_shape=(2, 4), build=lambda: nn.Linear(4, 4)):
    """A module built on the CPU, moved to ``d``, ``register(module)`` applied; the output and
    parameter gradients of a forward and backward, and the state_dict's values."""
    nnref.manual_seed(0)
    module = build().to(d)
    register(module)
    x = leaf(d, x_shape)
    out = with_grads(module(x), [x])
    return [out, [p.grad for p in module.parameters()], list(module.state_dict().values())]


def _fixed_power_vectors(u, v, d):
    """Spectral norm's ``u`` and ``v`` set to fixed values: their ``normal_`` draws differ per device."""
    with nnref.no_grad():
        u.copy_(leaf(d, tuple(u.shape), seed=8, grad=False))
        v.copy_(leaf(d, tuple(v.shape), seed=9, grad=False))


def _spectral_param(module):
    nn.utils.parametrizations.spectral_norm(module)
    sn = module.parametrizations.weight[0]
    _fixed_power_vectors(sn._u, sn._v, module.weight.device)


def _spectral_legacy(module):
    nn.utils.spectral_norm(module)
    _fixed_power_vectors(module.weight_u, module.weight_v, module.weight_orig.device)


def _weight_norm_legacy(module):
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(module)


def _removed(register, remove):
    def run(module):
        register(module)
        remove(module)
    return run


def _transferred(d):
    nnref.manual_seed(0)
    source, target = nn.Linear(4, 4).to(d), nn.Linear(4, 4).to(d)
    nn.utils.parametrize.register_parametrization(source, "weight", _Symmetric())
    nn.utils.parametrize.transfer_parametrizations_and_params(source, target)
    return [target.weight, target(leaf(d, (2, 4)))]


def _cached_twice(d):
    nnref.manual_seed(0)
    module = nn.Linear(4, 4).to(d)
    nn.utils.parametrize.register_parametrization(module, "weight", _Symmetric())
    with nn.utils.parametrize.cached():
        same = module.weight is module.weight
        out = module(module(leaf(d, (2, 4))))
    return [same, out]


CASES.update({
    "nnref.nn.utils.parametrize.register_parametrization": case(lambda d: [
        _parametrized(d, lambda m: nn.utils.parametrize.register_parametrization(m, "weight", _Symmetric())),
        _parametrized(d, lambda m: nn.utils.parametrize.register_parametrization(m, "weight", _RankOne()))]),
    "nnref.nn.utils.parametrize.ParametrizationList": case(lambda d: [
        nn.utils.parametrize.ParametrizationList([_Symmetric()], leaf(d, (3, 3), grad=False))()]),
    "nnref.nn.utils.parametrize.remove_parametrizations": case(lambda d: [
        _parametrized(d, _removed(lambda m: nn.utils.parametrize.register_parametrization(m, "weight", _Symmetric()),
                                  lambda m: nn.utils.parametrize.remove_parametrizations(m, "weight", leave)))
        for leave in (True, False)]),
    "nnref.nn.utils.parametrize.cached": case(_cached_twice),
    "nnref.nn.utils.parametrize.transfer_parametrizations_and_params": case(_transferred),
    "nnref.nn.utils.parametrize.is_parametrized": HOST_ONLY("a question about the module's structure"),
    "nnref.nn.utils.parametrize.type_before_parametrizations": HOST_ONLY("a class, no tensor values"),
    "nnref.nn.utils.parametrizations.weight_norm": case(lambda d: [
        _parametrized(d, lambda m: nn.utils.parametrizations.weight_norm(m, dim=dim)) for dim in (0, 1, None)]),
    "nnref.nn.utils.parametrizations.spectral_norm": case(lambda d: _parametrized(d, _spectral_param)),
    "nnref.nn.utils.parametrizations.orthogonal": HOST_ONLY("raises NotImplementedError before any tensor work"),
    "nnref.nn.utils.weight_norm": case(lambda d: _parametrized(d, _weight_norm_legacy)),
    "nnref.nn.utils.remove_weight_norm": case(lambda d: _parametrized(
        d, _removed(_weight_norm_legacy, nn.utils.remove_weight_norm))),
    "nnref.nn.utils.spectral_norm": case(lambda d: _parametrized(d, _spectral_legacy)),
    "nnref.nn.utils.remove_spectral_norm": case(lambda d: _parametrized(
        d, _removed(_spectral_legacy, nn.utils.remove_spectral_norm))),
})

CASES.update({
    "nnref.testing.assert_close": case(lambda d: _comparison_outcomes(nnref.testing.assert_close, d)),
    "nnref.testing.assert_allclose": case(lambda d: _comparison_outcomes(nnref.testing.assert_allclose, d)),
    "nnref.testing.make_tensor": seeded_draw(
        lambda d: nnref.testing.make_tensor(4, 6, dtype=nnref.float32, device=d, low=-2, high=3,
                                            noncontiguous=True, exclude_zero=True),
        lambda t: bool(((t >= -2) & (t < 3) & (t != 0)).all())),
})

def _post_accumulate_grads(d):
    """What a post-accumulate-grad hook sees over two backward passes: the accumulated ``.grad``."""
    x, seen = leaf(d, (3,)), []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    for _ in range(2):
        (x * x).sum().backward()
    return seen


# nn.functional's functions that nnref also binds at the top level: the same object, the same case
CASES.update({f"nnref.{name}": CASES[f"nnref.nn.functional.{name}"] for name in (
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool1d", "max_pool1d", "max_pool2d",
    "adaptive_avg_pool1d", "prelu", "selu", "celu", "threshold", "hardshrink", "pdist", "bilinear",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "layer_norm", "group_norm", "dropout")})
CASES.update({
    "nnref.row_stack": CASES["nnref.vstack"],
    "nnref.asarray": case(lambda d: [nnref.asarray(np.arange(4.0), device=d),
                                     nnref.asarray(leaf(d, (3,)), dtype=nnref.float64, copy=True)]),
    "nnref.isposinf": case(lambda d: nnref.isposinf(_special(d))),
    "nnref.isneginf": case(lambda d: nnref.isneginf(_special(d))),
    "nnref.isreal": case(lambda d: nnref.isreal(_special(d))),
    **{f"nnref.Tensor.{name}": case(lambda d, name=name: getattr(_special(d), name)())
       for name in ("isposinf", "isneginf", "isreal")},
    "nnref.Tensor.register_post_accumulate_grad_hook": case(_post_accumulate_grads),
    "nnref.split_with_sizes": op(lambda x: nnref.split_with_sizes(x, [1, 3], 1), (3, 4)),
    "nnref.Tensor.split_with_sizes": op(lambda x: x.split_with_sizes((2, 1)), (3, 4)),
    **{f"nnref.Tensor.{name}": case(lambda d, name=name: [getattr(leaf(d, (2,)), name)]) for name in (
        "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps", "is_xpu",
        "is_ipu", "is_xla", "is_vulkan", "is_mtia", "is_maia")},
    "nnref.unravel_index": case(lambda d: nnref.unravel_index(_index(d, [4, 7, 8, -1]), (2, 4))),
})

_AF = nnref.autograd.functional


def _two_inputs(d):
    return leaf(d, (3,), seed=1), leaf(d, (2, 3), seed=2)


def _scalar_of_two(x, y):
    return (x.exp() * y).sum() + (x * x).sum()


CASES.update({  # each also differentiates a create_graph=True result back to the leaves
    "nnref.autograd.functional.jacobian": case(lambda d: [
        _AF.jacobian(lambda x, y: (x.sin() * y, (x * x).sum()), _two_inputs(d)),
        _AF.jacobian(lambda x, y: x.tanh() * y, _two_inputs(d), vectorize=True),
        with_grads(_AF.jacobian(lambda x: x.exp() * x, xs := leaf(d, (3,)), create_graph=True), [xs])]),
    "nnref.autograd.functional.hessian": case(lambda d: [
        _AF.hessian(_scalar_of_two, _two_inputs(d)),
        _AF.hessian(_scalar_of_two, _two_inputs(d), vectorize=True),
        with_grads(_AF.hessian(lambda x: (x ** 3).sum(), xs := leaf(d, (3,)), create_graph=True), [xs])]),
    "nnref.autograd.functional.vjp": case(lambda d: [
        _AF.vjp(lambda x, y: x.sin() * y, _two_inputs(d), leaf(d, (2, 3), seed=3, grad=False)),
        with_grads(_AF.vjp(lambda x: x.exp() * x, xs := leaf(d, (3,)), leaf(d, (3,), seed=3, grad=False),
                           create_graph=True), [xs])]),
    "nnref.autograd.functional.jvp": case(lambda d: [
        _AF.jvp(lambda x, y: x.sin() * y, _two_inputs(d), (leaf(d, (3,), seed=4, grad=False),
                                                           leaf(d, (2, 3), seed=5, grad=False))),
        with_grads(_AF.jvp(lambda x: x.exp() * x, xs := leaf(d, (3,)), leaf(d, (3,), seed=3, grad=False),
                           create_graph=True), [xs])]),
    "nnref.autograd.functional.vhp": case(lambda d: [
        _AF.vhp(_scalar_of_two, _two_inputs(d), (leaf(d, (3,), seed=4, grad=False),
                                                 leaf(d, (2, 3), seed=5, grad=False))),
        with_grads(_AF.vhp(lambda x: (x ** 3).sum(), xs := leaf(d, (3,)), leaf(d, (3,), seed=3, grad=False),
                           create_graph=True), [xs])]),
    "nnref.autograd.functional.hvp": case(lambda d: [
        _AF.hvp(_scalar_of_two, _two_inputs(d), (leaf(d, (3,), seed=4, grad=False),
                                                 leaf(d, (2, 3), seed=5, grad=False))),
        with_grads(_AF.hvp(lambda x: (x ** 3).sum(), xs := leaf(d, (3,)), leaf(d, (3,), seed=3, grad=False),
                           create_graph=True), [xs])]),
})


def _comparison_outcomes(compare, device):
    """The messages of ``compare`` on tensors of ``device``: the statistics are computed there."""
    import warnings  # noqa: PLC0415 - assert_allclose's FutureWarning, silenced here only
    x = nnref.tensor([[1.0, 2.0, float("nan")], [0.0, -3.0, 4.0]], device=device)
    outcomes = []
    for actual, expected in [(x, x + 1e-7), (x, x * 1.001), (x[1].to(nnref.int64), x[1].to(nnref.int64) + 1),
                             (x[0, 0], x[1, 1]), (x, x.to(nnref.float64))]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                compare(actual, expected)
            outcomes.append("passed")
        except AssertionError as error:
            outcomes.append(str(error))
    return outcomes


# -- the tests ---------------------------------------------------------------------------------------
def test_every_public_name_has_a_device_case():
    api = public_api()
    missing, stale = sorted(api - set(CASES)), sorted(set(CASES) - api)
    assert not missing, ("these public names have no device case; add a line to CASES in "
                         "tests/device/test_api_on_device.py (its docstring shows how):\n"
                         + "\n".join(missing))
    assert not stale, f"CASES has entries for names nnref no longer exports: {stale}"


def test_the_tests_named_elsewhere_exist():
    for name, entry in CASES.items():
        if isinstance(entry, ELSEWHERE):
            file, test = entry.split("::")
            source = (HERE / file).read_text()
            assert f"def {test}(" in source, f"{name}: {entry} is not a test of tests/device"


def _compare(ours, reference, device, where):
    if isinstance(reference, nnref.Tensor):
        assert isinstance(ours, nnref.Tensor), where
        assert ours.device == device, f"{where}: on {ours.device}, not {device}"
        assert ours.dtype == reference.dtype and ours.shape == reference.shape, where
        assert ours.requires_grad == reference.requires_grad, where
        np.testing.assert_allclose(ours.detach().cpu().numpy().astype(np.float64),
                                   reference.detach().numpy().astype(np.float64), **FLOAT32, err_msg=where)
    elif isinstance(reference, (list, tuple)):
        assert len(ours) == len(reference), where
        for i, (a, b) in enumerate(zip(ours, reference)):
            _compare(a, b, device, f"{where}[{i}]")
    elif isinstance(reference, float):
        assert ours == pytest.approx(reference, rel=1e-4, abs=1e-5), where
    else:
        assert ours == reference, where


RUNNABLE = sorted(name for name, entry in CASES.items() if not isinstance(entry, str))


@pytest.mark.parametrize("name", RUNNABLE)
def test_each_name_on_the_device_matches_the_cpu(name, second_device):
    run = CASES[name]
    reference = run(nnref.device("cpu"))
    ours = run(second_device)
    _compare(ours, reference, second_device, name)

