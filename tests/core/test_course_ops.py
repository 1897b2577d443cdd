"""The ops the course chapters use beyond the basics, run with nnref and with PyTorch.

``//`` and ``%``, ``sin``/``cos``/``round``, ``std`` and ``norm``, ``isclose``/
``allclose``/``equal``, ``nonzero`` and ``bincount``: same values, dtypes,
``grad_fn`` names and error types.  (Their gradients are checked by finite
differences through ``core_op_cases.py``.)
"""
import warnings

import numpy as np
import pytest

import nnref
from core_helpers import dtype_name

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


class Values:
    """A result's values, equal to another's when close (to within the dtype's precision), nan
    where it has nan, and with the same sign on every zero (PyTorch prints -0.)."""

    RTOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6}

    def __init__(self, tensor):
        self.array = np.asarray(tensor.detach().double().tolist())
        self.rtol = self.RTOL.get(dtype_name(tensor.dtype), 1e-12)

    def __eq__(self, other):
        a, b = self.array, other.array
        return (a.shape == b.shape and np.allclose(a, b, rtol=self.rtol, atol=0, equal_nan=True)
                and np.array_equal(np.signbit(a)[a == 0], np.signbit(b)[a == 0]))

    def __repr__(self):
        return repr(self.array)


def outcome(fn, m):
    """What ``fn(m)`` gives, comparable across libraries: values/dtype/grad_fn, a bool, or the error type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(m)
    except Exception as exc:
        return type(exc).__name__
    if isinstance(result, tuple):
        return tuple(outcome(lambda _: r, m) for r in result)
    if hasattr(result, "dtype") and hasattr(result, "shape"):
        return Values(result), dtype_name(result.dtype), type(result.grad_fn).__name__, result.requires_grad
    return result


def same(fn):
    assert outcome(fn, nnref) == outcome(fn, torch)


# -- // and % --------------------------------------------------------------------------------------
DTYPES = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
OPERANDS = [7, -7, 2, 0]


@pytest.mark.parametrize("op", ["floordiv", "mod"])
@pytest.mark.parametrize("left", DTYPES)
def test_floor_divide_and_remainder_dtypes_and_values(op, left):
    """Every dtype pair, signs on both sides, and division by zero (an error for integers)."""
    f = (lambda a, b: a // b) if op == "floordiv" else (lambda a, b: a % b)
    for right in DTYPES:
        for divisor in ([3, -3, 0] if right != "bool" else [1, 0]):
            same(lambda m: f(m.tensor([7, -7, 2, 0], dtype=getattr(m, left)),
                             m.full((4,), divisor, dtype=getattr(m, right))))


@pytest.mark.parametrize("scalar", [2, -2, 2.5, -0.5, 0, 0.0, True])
def test_floor_divide_and_remainder_with_numbers(scalar):
    for dtype in ("int64", "float32"):
        for f in (lambda a, b: a // b, lambda a, b: b // a, lambda a, b: a % b, lambda a, b: b % a,
                  lambda a, b: a.floor_divide(b), lambda a, b: a.remainder(b)):
            same(lambda m: f(m.tensor([7, -7, 3], dtype=getattr(m, dtype)), scalar))


def test_floor_divide_and_remainder_of_random_floats():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(200) * 10
    b = rng.choice([-1, 1], 200) * rng.uniform(0.1, 3, 200)
    for dtype in ("float32", "float64"):
        same(lambda m: m.tensor(a, dtype=getattr(m, dtype)) // m.tensor(b, dtype=getattr(m, dtype)))
        same(lambda m: m.remainder(m.tensor(a, dtype=getattr(m, dtype)), m.tensor(b, dtype=getattr(m, dtype))))
        same(lambda m: m.tensor(a, dtype=getattr(m, dtype)) % 1.5)


@pytest.mark.parametrize("case", [
    lambda m, a, b: a // b, lambda m, a, b: a // 2, lambda m, a, b: 2 // a,
    lambda m, a, b: a // m.tensor([1.0, 2.0]), lambda m, a, b: m.floor_divide(a, b),
    lambda m, a, b: a % b, lambda m, a, b: a % 2, lambda m, a, b: 7 % a,
    lambda m, a, b: m.tensor([1.0, 2.0]) % a, lambda m, a, b: a % m.tensor(2.0),
], ids=["tensors", "number", "rfloordiv", "constant", "function", "mod_tensors", "mod_number",
        "rmod", "constant_mod", "mod_zero_dim"])
def test_graph_of_floor_divide_and_remainder(case):
    """``//`` records PyTorch's NotImplemented node (backward raises), ``%`` RemainderBackward0/1."""
    def run(m):
        a = m.tensor([5.0, -3.0], requires_grad=True)
        b = m.tensor([2.0, -2.0], requires_grad=True)
        out = case(m, a, b)
        edges = [None if node is None else type(node).__name__ for node, _ in out.grad_fn.next_functions]
        try:
            out.sum().backward()
            grads = [None if t.grad is None else t.grad.tolist() for t in (a, b)]
        except RuntimeError as exc:
            grads = str(exc)
        return out.tolist(), type(out.grad_fn).__name__, out.grad_fn.name(), edges, grads
    ours, theirs = run(nnref), run(torch)
    assert ours == theirs
    with nnref.no_grad():
        assert case(nnref, nnref.ones(2, requires_grad=True), nnref.ones(2)).grad_fn is None


def test_in_place_floor_divide_and_remainder():
    def run(m):
        x = m.tensor([7, -7])
        x //= 2
        y = m.tensor([7.0, -7.0])
        y %= 3
        z = m.tensor([5.0, 6.0], requires_grad=True).clone()
        z.floor_divide_(4)
        w = m.tensor([5.0, 6.0], requires_grad=True).clone().remainder_(4)
        return [outcome(lambda _: t, m) for t in (x, y, z, w)]
    assert run(nnref) == run(torch)


# -- sin, cos, round -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda m: m.sin(m.tensor([0.0, 1.0, -2.5], requires_grad=True)),
    lambda m: m.tensor([0.0, 1.0, -2.5]).cos(),
    lambda m: m.tensor([1, 2]).sin(), lambda m: m.tensor([True]).cos(),
    lambda m: m.tensor([1.0, 2.0], dtype=m.float16).sin(),
    lambda m: m.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 1.2345, 7.9], requires_grad=True).round(),
    lambda m: m.round(m.tensor([1.25, 0.125, 1234.5678, -0.125], requires_grad=True), decimals=2),
    lambda m: m.tensor([1250.0, 150.0, -49.9]).round(decimals=-2),
    lambda m: m.tensor([1.25, 2.5, 1234.5], dtype=m.float16).round(decimals=1),
    lambda m: m.tensor([1.25, 2.5], dtype=m.bfloat16).round(decimals=1),
    lambda m: m.tensor([1.26, -2.5], requires_grad=True).round(decimals=0),
    lambda m: m.tensor([1, 2]).round(), lambda m: m.tensor([15, 25]).round(decimals=-1),
    lambda m: m.tensor([True]).round(),
], ids=lambda f: "")
def test_sin_cos_round(case):
    same(case)


def test_round_has_a_zero_gradient():
    def run(m):
        x = m.tensor([1.26, -2.5], requires_grad=True)
        (x.round() * 3 + x.round(decimals=1)).sum().backward()
        return x.grad.tolist()
    assert run(nnref) == run(torch) == [0.0, 0.0]


def test_random_values_round_like_torch():
    values = np.random.default_rng(1).standard_normal(500) * 100
    for decimals in (None, 0, 1, 2, -1):
        for dtype in ("float32", "float64"):
            kwargs = {} if decimals is None else {"decimals": decimals}
            same(lambda m: m.tensor(values, dtype=getattr(m, dtype)).round(**kwargs))


# -- std and norm ----------------------------------------------------------------------------------
MATRIX = [[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]
WITH_ZEROS = [[3.0, -4.0, 0.0], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize("case", [
    lambda m: m.tensor(MATRIX, requires_grad=True).std(),
    lambda m: m.tensor(MATRIX, requires_grad=True).std(0),
    lambda m: m.tensor(MATRIX, dtype=m.float64).std(1, keepdim=True),
    lambda m: m.tensor(MATRIX).std(False),
    lambda m: m.tensor(MATRIX).std((0,), True, True),
    lambda m: m.std(m.tensor(MATRIX), dim=(0, 1), correction=0),
    lambda m: m.std(m.tensor(MATRIX), 0, unbiased=False),
    lambda m: m.tensor([1.0], requires_grad=True).std(),
    lambda m: m.tensor([1, 2]).std(),
    lambda m: m.tensor(5.0).std(0, unbiased=False),
    lambda m: m.tensor([3.0, 4.0], dtype=m.bfloat16).std(),
    lambda m: m.tensor(WITH_ZEROS, requires_grad=True).norm(),
    lambda m: m.tensor(WITH_ZEROS).norm(dim=1),
    lambda m: m.tensor(WITH_ZEROS).norm(2, 1, True),
    lambda m: m.tensor(WITH_ZEROS).norm(p=1, dim=0),
    lambda m: m.tensor(WITH_ZEROS).norm(p=INF),
    lambda m: m.tensor(WITH_ZEROS).norm(p=-INF, dim=1),
    lambda m: m.tensor(WITH_ZEROS).norm(p=0),
    lambda m: m.tensor(WITH_ZEROS, dtype=m.float64).norm(p=3, dim=-1),
    lambda m: m.tensor([[3.0, -4.0, 1.0], [1.0, 2.0, 0.0]], dtype=m.float64).norm(p=-1.5, dim=-1),
    lambda m: m.tensor([[3.0, -4.0, 1.0], [1.0, 2.0, 1.0]], dtype=m.float64).norm(p=0.5, dim=-1),
    lambda m: m.tensor(WITH_ZEROS).norm(dtype=m.float64),
    lambda m: m.norm(m.tensor(WITH_ZEROS), dim=(0, 1)),
    lambda m: m.norm(m.tensor(WITH_ZEROS), "fro", dim=[1]),
    lambda m: m.tensor([3, 4]).norm(),
    lambda m: m.tensor([3.0, 4.0], dtype=m.float16).norm(),
    lambda m: m.tensor(5.0).norm(dim=0), lambda m: m.tensor(-5.0).sum(0),
    lambda m: m.zeros(0).norm(),
], ids=lambda f: "")
def test_std_and_norm(case):
    same(case)


def test_std_warns_about_degrees_of_freedom():
    for m in (nnref, torch):
        with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
            m.tensor([1.0]).std()


NORM_GRADIENTS = {
    "two_with_zero_row": (lambda t: t.norm(dim=1), WITH_ZEROS),
    "one": (lambda t: t.norm(p=1), WITH_ZEROS),
    "inf_with_tie": (lambda t: t.norm(p=INF), [[3.0, -3.0, 1.0]]),
    "inf_dim": (lambda t: t.norm(p=INF, dim=1), WITH_ZEROS),
    "zero_gives_none": (lambda t: t.norm(p=0), [[3.0, -3.0, 1.0]]),
    "std_of_a_constant_row": (lambda t: t.std(1), [[1.0, 1.0, 1.0], [3.0, 5.0, 9.0]]),
    "std_of_one_value": (lambda t: t.std(), [[2.0]]),
}


@pytest.mark.parametrize("name", sorted(NORM_GRADIENTS))
def test_norm_and_std_gradients_at_the_edges(name):
    """Zeros, ties and constant slices: where PyTorch's formulas mask or share the gradient."""
    f, values = NORM_GRADIENTS[name]

    def run(m):
        x = m.tensor(values, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(x).sum().backward()
        return None if x.grad is None else np.asarray(x.grad.tolist())
    ours, theirs = run(nnref), run(torch)
    assert (ours is None) == (theirs is None)
    if ours is not None:
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)


# -- isclose, allclose, equal ----------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda m: m.isclose(m.tensor([1.0, 2, NAN, INF, -INF, INF]), m.tensor([1.0000001, 2.1, NAN, INF, INF, 1e38])),
    lambda m: m.tensor([1.0, 2, NAN, INF]).isclose(m.tensor([1.0000001, 2.1, NAN, INF]), equal_nan=True),
    lambda m: m.isclose(m.tensor([1.0, 2]), m.tensor([1.05, 3]), rtol=0.1, atol=0),
    lambda m: m.isclose(m.tensor([1.0, 2]), m.tensor([1.05, 3]), rtol=0, atol=0),
    lambda m: m.isclose(m.tensor([1.0, 2]), m.tensor([1.0, 2, 3])),
    lambda m: m.isclose(m.tensor([1, 2]), m.tensor([1, 3])),
    lambda m: m.isclose(m.tensor([1, 2]), m.tensor([1, 3]), atol=2),
    lambda m: m.isclose(m.tensor([True, False]), m.tensor([True, True]), atol=2),
    lambda m: m.isclose(m.tensor([1.0, 2.001], dtype=m.float16), m.tensor([1.0, 2], dtype=m.float16), rtol=1e-3),
    lambda m: m.isclose(m.tensor([1.0, 2.001], requires_grad=True), m.tensor([1.0, 2])),
    lambda m: m.isclose(m.tensor([1.0, 2]), m.tensor([1.0, 3]), rtol=-1),
    lambda m: m.isclose(m.tensor([1.0, 2]), m.tensor([1.0, 3]), atol=-1),
    lambda m: m.isclose(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64)),
    lambda m: m.allclose(m.tensor([1.0, 2, NAN]), m.tensor([1.0, 2, NAN])),
    lambda m: m.allclose(m.tensor([1.0, 2, NAN]), m.tensor([1.0, 2, NAN]), equal_nan=True),
    lambda m: m.allclose(m.tensor([1.0, 2]), m.tensor([1.0])),
    lambda m: m.allclose(m.tensor([1.0, 2]), m.tensor([1, 2])),
    lambda m: m.allclose(m.tensor([1.0, 2]), 1.0),
    lambda m: m.tensor([1.0]).allclose(m.tensor([1.0001]), 1e-3),
    lambda m: m.equal(m.tensor([1.0, 2]), m.tensor([1.0, 2])),
    lambda m: m.equal(m.tensor([1.0, 2]), m.tensor([1, 2])),
    lambda m: m.equal(m.tensor([1.0, 2]), m.tensor([1.0, 2, 3])),
    lambda m: m.equal(m.tensor([1.0]), m.tensor(1.0)),
    lambda m: m.equal(m.tensor([NAN]), m.tensor([NAN])),
    lambda m: m.tensor([1.0, 2]).equal(m.tensor([1.0, 2], dtype=m.float64)),
    lambda m: m.equal(m.tensor([1.0]), 1.0),
], ids=lambda f: "")
def test_isclose_allclose_equal(case):
    same(case)


# -- nonzero and bincount --------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda m: m.nonzero(m.tensor([[0, 1], [2, 0]])),
    lambda m: m.tensor([0, 1.0]).nonzero(as_tuple=True),
    lambda m: m.nonzero(m.tensor(3.0)), lambda m: m.nonzero(m.tensor(0.0)),
    lambda m: m.nonzero(m.tensor(3.0), as_tuple=True),
    lambda m: m.nonzero(m.tensor([[1, 0], [1, 1]]), as_tuple=True),
    lambda m: m.nonzero(m.tensor([True, False, True])),
    lambda m: m.zeros(2, 0).nonzero(), lambda m: m.zeros(2, 0).nonzero(as_tuple=True),
    lambda m: m.tensor([1.0], requires_grad=True).nonzero(),
    lambda m: m.tensor([NAN, 0.0]).nonzero(),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3])),
    lambda m: m.tensor([0, 1, 1, 3]).bincount(weights=m.tensor([0.5, 1, 1, 2.0]), minlength=6),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3]), m.tensor([0.5, 1, 1, 2.0], dtype=m.float64)),
    lambda m: m.bincount(m.tensor([0, 1, 1, 3]), weights=m.tensor([1, 1, 1, 2])),
    lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    lambda m: m.bincount(m.tensor([], dtype=m.int64), minlength=3),
    lambda m: m.bincount(m.tensor([-1])), lambda m: m.bincount(m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([[1]])), lambda m: m.bincount(m.tensor([0, 1]), minlength=-1),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([0, 1], dtype=m.int32)),
    lambda m: m.bincount(m.tensor([0, 1], dtype=m.bool)),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([1.0, 2], dtype=m.float16)),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([True, False])),
    lambda m: m.bincount(m.tensor([0, 1]), weights=m.tensor([1.0, 2], requires_grad=True)),
], ids=lambda f: "")
def test_nonzero_and_bincount(case):
    same(case)


def test_bincount_accumulates_float32_weights_in_order():
    rng = np.random.default_rng(2)
    labels, weights = rng.integers(0, 5, 1000), rng.standard_normal(1000).astype(np.float32)
    ours = nnref.bincount(nnref.tensor(labels), nnref.tensor(weights))
    theirs = torch.bincount(torch.tensor(labels), torch.tensor(weights))
    assert ours.tolist() == theirs.tolist()
