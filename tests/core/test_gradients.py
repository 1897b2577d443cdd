"""Every differentiable op, checked three ways on random float64 inputs of random shapes.

1. ``nnref.autograd.gradcheck`` (finite differences of the full Jacobian);
2. an independent numpy central difference of ``sum(f(x) * v)`` for a random
   ``v``, compared with ``f(x).backward(v)`` (so a bug in gradcheck cannot
   hide a bug in an op);
3. when PyTorch is installed, the same code with ``torch``: same values,
   gradients, dtypes, and the same graph (node class names, ``input_nr``,
   which leaf each ``AccumulateGrad`` points at).

The cases live in ``core_op_cases.py``.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref
from core_helpers import assert_close, graph_signature, numeric_vjp
from core_op_cases import CASES

try:
    import torch
except ImportError:  # the finite-difference checks still run without PyTorch
    torch = None

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- the test -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_gradient(name, data):
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    arrays, f = CASES[name](data.draw, rng)
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]

    inputs = [nnref.tensor(a, requires_grad=True) for a in arrays]
    assert all(t.dtype is nnref.float64 for t in inputs)
    out = f(nnref, *inputs)
    v = np.asarray(rng.standard_normal(out.shape))

    # 1. nnref's own gradcheck
    assert nnref.autograd.gradcheck(lambda *ts: f(nnref, *ts), inputs)

    # 2. an independent finite difference in numpy
    def numpy_f(*values):
        with nnref.no_grad():
            return f(nnref, *(nnref.tensor(a) for a in values))._data
    expected = numeric_vjp(numpy_f, arrays, v)
    out.backward(nnref.tensor(v))
    for t, g in zip(inputs, expected):
        assert t.grad is not None and t.grad.shape == t.shape and t.grad.dtype is nnref.float64
        np.testing.assert_allclose(t.grad._data, g, rtol=1e-5, atol=1e-6)

    # 3. PyTorch: same values, gradients and graph
    if torch is None:
        return
    torch_inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    torch_out = f(torch, *torch_inputs)
    assert graph_signature(out.grad_fn, inputs) == graph_signature(torch_out.grad_fn, torch_inputs)
    assert_close(out, torch_out, rtol=1e-10, atol=1e-12)
    torch_out.backward(torch.tensor(v))
    for t, tt in zip(inputs, torch_inputs):
        assert_close(t.grad, tt.grad, rtol=1e-10, atol=1e-12)
