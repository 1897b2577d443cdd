"""Ops fed signed zeros, infinities and NaN, and gradients that are, against PyTorch bit for bit.

A ``-0.`` where PyTorch prints ``0.``, or a NaN where it has a number, is a silent difference
that ordinary random inputs never show: each case here draws its inputs and upstream gradients
from a pool of such values (64 elements a row, so PyTorch runs its vectorised loops) and
compares the bits of every value and gradient, NaNs compared as NaNs.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

POOL = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, -1.5, 2.25, 0.5, -0.5, 1.0, -1.0, 3.0])
GRADS = np.array([-1.0, -0.0, 0.0, 2.0, np.inf, np.nan])

CASES = {
    "sign": (1, lambda lib, x: lib.sign(x)),
    "sgn": (1, lambda lib, x: lib.sgn(x)),
    "abs": (1, lambda lib, x: lib.abs(x)),
    "l1_loss": (2, lambda lib, x, y: lib.nn.functional.l1_loss(x, y, reduction="none")),
    "copysign": (2, lambda lib, x, y: lib.copysign(x, y)),
    "max": (1, lambda lib, x: x.max()),
    "min": (1, lambda lib, x: x.min()),
    "prod": (1, lambda lib, x: x.prod()),
    "prod dim": (1, lambda lib, x: x.reshape(8, 8).prod(1)),
    "prod dim keepdim": (1, lambda lib, x: x.reshape(8, 8).prod(0, keepdim=True)),
    "pow 0": (1, lambda lib, x: x ** 0),
    "median": (1, lambda lib, x: x.median()),
    "hardshrink": (1, lambda lib, x: lib.nn.functional.hardshrink(x)),
    "softshrink": (1, lambda lib, x: lib.nn.functional.softshrink(x)),
    "clamp tensors": (3, lambda lib, x, low, high: lib.clamp(x, low, high)),
    "clamp min tensor": (2, lambda lib, x, low: lib.clamp(x, min=low)),
    "clamp max tensor": (2, lambda lib, x, high: x.clamp(max=high)),
    "clamp broadcast bound": (2, lambda lib, x, low: lib.clamp(x.reshape(8, 8), min=low.reshape(8, 8)[0])),
}


def _bits_equal(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    nan = np.isnan(theirs)
    return (ours.shape == theirs.shape and np.array_equal(np.isnan(ours), nan)
            and np.array_equal(ours[~nan].view(np.int64), theirs[~nan].view(np.int64)))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", list(CASES))
def test_special_values_match_pytorch_bit_for_bit(name, seed):
    arity, op = CASES[name]
    rng = np.random.default_rng(seed)
    inputs = [rng.choice(POOL, 64) for _ in range(arity)]
    results = []
    upstream = None
    for lib in (torch, nnref):
        tensors = [lib.tensor(a, requires_grad=True) for a in inputs]
        with np.errstate(all="ignore"):
            out = op(lib, *tensors)
            if upstream is None:
                upstream = rng.choice(GRADS, tuple(out.shape))
            out.backward(lib.tensor(upstream))
        grads = [t.grad.numpy(force=True) if lib is torch else t.grad.numpy() for t in tensors]
        results.append([type(out.grad_fn).__name__, out.detach().numpy()] + grads)
    assert results[1][0] == results[0][0]
    for what, theirs, ours in zip(["value"] + [f"grad {i}" for i in range(arity)], results[0][1:],
                                  results[1][1:]):
        assert _bits_equal(ours, theirs), f"{name} {what}: PyTorch {theirs}, nnref {ours}"


def test_clamp_mixing_a_tensor_and_a_number_raises_as_pytorch():
    for lib in (torch, nnref):
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            lib.clamp(lib.ones(2), min=lib.zeros(2), max=1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, -0.5])
def test_the_powers_pytorch_computes_by_formula_round_as_its_formulas(exponent, dtype):
    """``x ** 3`` is ``x * x * x`` in PyTorch (``pow_tensor_scalar_kernel``), ``x ** -2`` is
    ``1 / (x * x)``...; libm's ``pow`` rounds otherwise on a third of float32 inputs."""
    data = np.concatenate([np.linspace(-4, 4, 4001), POOL]).astype(dtype)
    with np.errstate(all="ignore"):
        ours, theirs = (nnref.tensor(data) ** exponent).numpy(), (torch.tensor(data) ** exponent).numpy()
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan].view(np.uint8), theirs[~nan].view(np.uint8))
