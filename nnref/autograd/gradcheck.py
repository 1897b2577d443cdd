"""``gradcheck``: compare autograd's gradients with finite differences (``torch/autograd/gradcheck.py``).

For each input element, nudge it by ``eps`` both ways and measure how every
output element moves (the numerical Jacobian); then ask autograd for the same
Jacobian one output element at a time.  Use float64: in float32 the
differences drown in rounding.
"""
import warnings

import numpy as np

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _numerical_jacobian(fn, inputs, index, eps):
    from ..autograd.grad_mode import no_grad
    target = inputs[index]
    flat = target._data.reshape(-1)  # a view: writing it nudges the input in place
    columns = []
    with no_grad():
        for k in range(flat.size):
            original = flat[k]
            flat[k] = original + eps
            plus = [o._data.astype(np.float64).ravel() for o in _as_tuple(fn(*inputs))]
            flat[k] = original - eps
            minus = [o._data.astype(np.float64).ravel() for o in _as_tuple(fn(*inputs))]
            flat[k] = original
            columns.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def _analytical_jacobian(fn, inputs, index):
    from . import grad
    from .._creation import zeros_like
    outputs = _as_tuple(fn(*inputs))
    rows = []
    for out_nr, out in enumerate(outputs):
        for k in range(out._data.size):
            seed = zeros_like(out)
            seed._data.reshape(-1)[k] = 1
            if not out.requires_grad:
                rows.append(np.zeros(inputs[index]._data.size))
                continue
            (g,) = grad(out, inputs[index], seed, retain_graph=True, allow_unused=True)
            rows.append(np.zeros(inputs[index]._data.size) if g is None
                        else g._data.astype(np.float64).ravel())
    return np.stack(rows) if rows else np.zeros((0, inputs[index]._data.size))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when autograd's Jacobian matches finite differences for every input that requires grad."""
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad and t._dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    for i, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(func, inputs, i)
        if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
            if not raise_exception:
                return False
            worst = np.unravel_index(np.argmax(np.abs(analytical - numerical)), numerical.shape)
            raise GradcheckError(
                f"Jacobian mismatch for output 0 with respect to input {i},\n"
                f"numerical:{numerical}\nanalytical:{analytical}\n"
                f"largest difference at (output element, input element) {tuple(map(int, worst))}")
    return True
