"""``gradcheck``: compare autograd's gradients with finite differences (``torch/autograd/gradcheck.py``).

For each input element, nudge it by ``eps`` both ways and measure how every
output element moves (the numerical Jacobian); then ask autograd for the same
Jacobian one output element at a time.  Use float64: in float32 the
differences drown in rounding.
"""
import warnings

import numpy as np

from .._device import to_host

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _numerical_jacobian(fn, inputs, index, eps):
    """Column k: (f(x + eps e_k) - f(x - eps e_k)) / 2 eps, one matrix per output.

    Runs ``fn`` with grad mode as it is (like PyTorch), so ``fn`` may itself
    call ``autograd.grad``; that is what checking second derivatives needs.
    """
    target = inputs[index]._data  # nudged in place, behind autograd's back (as PyTorch's .data)
    jacobians = [np.zeros((_values(o).size, target.size)) for o in _as_tuple(fn(*inputs))]
    for column, position in enumerate(np.ndindex(target.shape)):
        original = target[position]
        target[position] = original + eps
        plus = [_values(o) for o in _as_tuple(fn(*inputs))]
        target[position] = original - eps
        minus = [_values(o) for o in _as_tuple(fn(*inputs))]
        target[position] = original
        for jacobian, p, m in zip(jacobians, plus, minus):
            jacobian[:, column] = (p - m) / (2 * eps)
    return jacobians


def _values(output):
    """The values on the host, in float64: Jacobians are small and compared on the CPU."""
    return to_host(output._data).astype(np.float64).ravel()


def _analytical_jacobian(fn, inputs, index):
    """Row k of output o: the gradient of its k-th element, from one backward pass each."""
    from . import grad
    from .._creation import zeros_like
    jacobians = []
    for out in _as_tuple(fn(*inputs)):
        rows = []
        for k in range(out._data.size):
            g = None
            if out.requires_grad:
                seed = zeros_like(out)
                seed._data.reshape(-1)[k] = 1
                (g,) = grad(out, inputs[index], seed, retain_graph=True, allow_unused=True)
            rows.append(np.zeros(inputs[index]._data.size) if g is None else _values(g))
        jacobians.append(np.stack(rows) if rows else np.zeros((0, inputs[index]._data.size)))
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when autograd's Jacobian matches finite differences for every input that requires grad.

    Mirrors ``torch.autograd.gradcheck``'s default (slow) mode: the full
    Jacobian of every output with respect to every differentiable input,
    compared with ``allclose(analytical, numerical, rtol, atol)``.
    """
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i in differentiable:
        if inputs[i]._dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    for i in differentiable:
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(func, inputs, i)
        for o, (a, n) in enumerate(zip(analytical, numerical)):
            if np.allclose(a, n, atol=atol, rtol=rtol):
                continue
            if not raise_exception:
                return False
            worst = np.unravel_index(np.argmax(np.abs(a - n)), n.shape)
            raise GradcheckError(
                f"Jacobian mismatch for output {o} with respect to input {i},\n"
                f"numerical:{n}\nanalytical:{a}\n"
                f"largest difference at (output element, input element) {tuple(map(int, worst))}")
    return True
