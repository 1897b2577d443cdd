"""Every public name of nnref has a device test: run on 'cuda' (the strict stand-in for CuPy in
CI, the GPU with ``./dev.sh gpu``) and compared with the same code on the CPU.

HOW TO ADD A NAME.  ``public_api()`` lists every public name of ``nnref``, ``nnref.nn``,
``nnref.nn.functional``, ``nnref.nn.init``, ``nnref.optim``, ``nnref.optim.lr_scheduler`` and
``nnref.utils.data``; ``test_every_public_name_has_a_device_case`` fails for a name missing from
``CASES`` below (and for an entry whose name is gone).  Add one line, keyed by the full name::

    "nnref.nn.GELU": layer(lambda: nn.GELU(), (4, 5)),            # a module: forward + backward
    "nnref.nn.functional.gelu": op(F.gelu, (4, 5)),               # a function of float tensors
    "nnref.erf": op(nnref.erf, (3, 4)),
    "nnref.nn.HuberLoss": loss(lambda: nn.HuberLoss(), (4, 5)),   # (input, target) -> loss
    "nnref.optim.RMSprop": optimizer(lambda ps: optim.RMSprop(ps, lr=0.01)),
    "nnref.optim.lr_scheduler.CosineAnnealingLR": scheduler(lambda o: lr_scheduler.CosineAnnealingLR(o, 4)),
    "nnref.randperm": random_draw(lambda d: nnref.randperm(10, device=d)),  # values differ per device
    "nnref.utils.data.DataLoader": case(lambda d: ...),           # any code; returns what to compare
    "nnref.get_default_dtype": HOST_ONLY("a dtype, no tensor values"),
    "nnref.manual_seed": ELSEWHERE("test_on_device.py::test_manual_seed_reproduces_the_devices_random_numbers"),

The builders: ``op(f, *shapes, values=normal)`` makes float leaf tensors of those shapes on the
device, applies ``f``, backpropagates fixed weights, and compares the outputs and every input's
gradient; ``case(f)`` runs ``f(device)`` and compares whatever it returns (tensors, numbers,
dtypes, nested lists of them; ``leaf(d, shape)`` and ``labels(d, values)`` make inputs);
``random_draw`` compares shape, dtype and device only; ``layer``, ``loss``, ``optimizer`` and
``scheduler`` build, train or step the object on each device.  ``HOST_ONLY(why)`` is for names
that never touch tensor values (dtypes, grad-mode queries), ``ELSEWHERE(test)`` for names a
named test of tests/device runs on the device (checked to exist).
"""
import copy
import pathlib

import numpy as np
import pytest

import nnref
from nnref import nn, optim
from nnref.nn import functional as F
from nnref.nn import init
from nnref.optim import lr_scheduler

FLOAT32 = dict(rtol=1e-4, atol=1e-5)
HERE = pathlib.Path(__file__).parent
# Tensor's dunder attributes that are Python plumbing, not operations on values
PLUMBING = {"__dict__", "__module__", "__slots__", "__weakref__", "__doc__", "__init__", "__repr__",
            "__hash__", "__array_priority__", "__setstate__", "__getstate__", "__reduce_ex__",
            "__new__", "__init_subclass__", "__format__", "__str__", "__class_getitem__"}
SUBMODULES = {"autograd", "cuda", "nn", "optim", "serialization", "utils", "viz", "functional", "init",
              "modules", "parameter", "lr_scheduler"}


def public_api():
    """Every public name, as 'module.name', of the namespaces a PyTorch user imports, and every
    method, property and operator of Tensor."""
    names = {f"nnref.{n}" for n in dir(nnref) if not n.startswith("_") and n not in SUBMODULES}
    namespaces = {"nnref.nn": nn, "nnref.nn.functional": F, "nnref.nn.init": init,
                  "nnref.optim": optim, "nnref.optim.lr_scheduler": lr_scheduler}
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
        # Adam's step counts stay on the CPU, as PyTorch keeps them: compare them as numbers
        state = [float(t) if key == "step" else t for s in opt.state.values() for key, t in s.items()]
        return [losses, list(model.parameters()), state]
    return run


def scheduler(make, steps=4):
    """SGD stepped by the scheduler on the device: learning rates and the parameters."""
    def run(d):
        model = _small_model(d)
        opt = optim.SGD(model.parameters(), lr=0.1)
        sched = make(opt)
        x, y = leaf(d, (5, 4), grad=False), leaf(d, (5, 3), seed=1, grad=False)
        rates = []
        for _ in range(steps):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
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
    "nnref.is_tensor": case(lambda d: nnref.is_tensor(nnref.ones(1, device=d))),
    "nnref.numel": case(lambda d: nnref.numel(nnref.ones(2, 3, device=d))),
    # creation
    "nnref.tensor": case(lambda d: nnref.tensor([[1, 2], [3, 4]], device=d)),
    "nnref.as_tensor": case(lambda d: nnref.as_tensor(np.arange(4.0), device=d)),
    "nnref.from_numpy": case(lambda d: nnref.from_numpy(np.arange(4.0)).to(d)),
    "nnref.zeros": case(lambda d: nnref.zeros(2, 3, device=d)),
    "nnref.ones": case(lambda d: nnref.ones(2, 3, dtype=nnref.float64, device=d)),
    "nnref.full": case(lambda d: nnref.full((2, 2), 7.5, device=d)),
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

