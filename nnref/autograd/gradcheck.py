"""``gradcheck`` and ``gradgradcheck``: compare autograd with finite differences
(``torch/autograd/gradcheck.py``).

Slow mode (the default): for each input element, nudge it by ``eps`` both
ways and measure how every output element moves (the numerical Jacobian);
then ask autograd for the same Jacobian one output element at a time.

Fast mode (``fast_mode=True``): compare one number per (input, output) pair,
``v^T J u`` for random unit-ish vectors ``u`` (input side) and ``v`` (output
side): one directional finite difference against one backward pass.  When it
fails, the slow Jacobians are computed for the message, as PyTorch does.

Use float64: in float32 the differences drown in rounding.
"""
import warnings

import numpy as np

from ..core._device import to_host
from ..core.autograd.engine import grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
"""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn, inputs):
    from ..core._tensor import Tensor
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor))


def _values(output):
    """The values on the host, in float64: Jacobians are small and compared on the CPU."""
    return to_host(output._data).astype(np.float64).ravel()


def _nudged(fn, inputs, index, direction, eps):
    """(f(x + eps d) - f(x - eps d)) / 2 eps for input ``index`` moved along ``direction``
    (same shape as the input), one flat array per output.

    The input is nudged in place behind autograd's back (as PyTorch's ``.data``) and grad mode
    is left as it is, so ``fn`` may itself call ``autograd.grad`` (what gradgradcheck needs).
    """
    target = inputs[index]._data
    original = target.copy()
    step = (eps * direction).astype(target.dtype)
    try:
        target += step
        plus = [_values(o) for o in _outputs(fn, inputs)]
        target[...] = original - step
        minus = [_values(o) for o in _outputs(fn, inputs)]
    finally:
        target[...] = original
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _numerical_jacobian(fn, inputs, index, eps):
    """One matrix per output, rows = input elements, columns = output elements (PyTorch's layout)."""
    target = inputs[index]._data
    columns = []
    for k in range(target.size):
        direction = np.zeros(target.size)
        direction[k] = 1
        columns.append(_nudged(fn, inputs, index, direction.reshape(target.shape), eps))
    sizes = [_values(o).size for o in _outputs(fn, inputs)]
    return [np.stack([c[o] for c in columns]) if columns else np.zeros((0, size))
            for o, size in enumerate(sizes)]


def _vjp(out, input, seed):
    """``seed^T d(out)/d(input)`` as a flat float64 array (zeros where ``input`` is unused)."""
    if not out.requires_grad:
        return np.zeros(input._data.size)
    (g,) = grad(out, input, seed, retain_graph=True, allow_unused=True)
    return np.zeros(input._data.size) if g is None else _values(g)


def _analytical_jacobian(fn, inputs, index):
    from .._creation import zeros_like
    jacobians = []
    for out in _outputs(fn, inputs):
        columns = []
        for k in range(out._data.size):
            seed = zeros_like(out)
            seed._data.reshape(-1)[k] = 1
            columns.append(_vjp(out, inputs[index], seed))
        size = inputs[index]._data.size
        jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((size, 0)))
    return jacobians


def _as_printed(array):
    from .._creation import tensor
    return tensor(array)


def _mismatch(output, input, numerical, analytical):
    return (f"Jacobian mismatch for output {output:d} with respect to input {input:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _slow_mode_message(func, inputs, input_index, output_index, rtol, atol, eps):
    numerical = _numerical_jacobian(func, inputs, input_index, eps)[output_index]
    analytical = _analytical_jacobian(func, inputs, input_index)[output_index]
    max_diff = np.abs(numerical - analytical).max() if numerical.size else 0.0
    message = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
               "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
               "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
               f"Numerical:\n {_as_printed(numerical)}\n"
               f"Analytical:\n{_as_printed(analytical)}\n\n"
               f"The max per-element difference (slow mode) is: {max_diff}.\n")
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        message += FAST_FAIL_SLOW_OK_MSG
    return message


def _check_reentrant(first, second, nondet_tol):
    """PyTorch computes every analytical Jacobian twice: a backward that gives other numbers the
    second time (it draws random numbers, say) fails, beyond ``nondet_tol``."""
    if any(a.size and np.abs(a - b).max() > nondet_tol for a, b in zip(first, second)):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
            "times gives different values, although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)


def _slow_check(func, inputs, differentiable, eps, atol, rtol, nondet_tol):
    for i in differentiable:
        numerical = _numerical_jacobian(func, inputs, i, eps)
        analytical = _analytical_jacobian(func, inputs, i)
        _check_reentrant(analytical, _analytical_jacobian(func, inputs, i), nondet_tol)
        for o, (a, n) in enumerate(zip(analytical, numerical)):
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                raise GradcheckError(_mismatch(o, i, _as_printed(n), _as_printed(a)))


def _fast_check(func, inputs, differentiable, eps, atol, rtol, nondet_tol):
    """``v^T J u`` by finite differences and by one backward pass, per (input, output) pair."""
    from .._creation import tensor
    rng = np.random.default_rng(0)  # a local generator: the global random stream is left alone
    outputs = _outputs(func, inputs)
    vs = []
    for out in outputs:
        v = rng.random(out._data.size)
        vs.append(v / np.linalg.norm(v) if v.size else v)
    for i in differentiable:
        u = rng.random(inputs[i]._data.size)
        u = u / np.linalg.norm(u) if u.size else u
        numerical = _nudged(func, inputs, i, u.reshape(inputs[i]._data.shape), eps)
        for o, out in enumerate(outputs):
            seed = tensor(vs[o].reshape(out._data.shape), dtype=out._dtype, device=out._device)
            analytical = float(_vjp(out, inputs[i], seed) @ u)
            _check_reentrant([np.array([analytical])], [np.array([float(_vjp(out, inputs[i], seed) @ u)])],
                             nondet_tol)
            numeric = float(numerical[o] @ vs[o])
            adjusted_atol = atol * float(u.sum()) * float(vs[o].sum())
            if not np.isclose(analytical, numeric, rtol=rtol, atol=adjusted_atol):
                raise GradcheckError(_mismatch(o, i, numeric, analytical) + _slow_mode_message(
                    func, inputs, i, o, rtol, atol, eps))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True when autograd's Jacobian matches finite differences for every input that requires grad.

    Mirrors ``torch.autograd.gradcheck``: slow mode compares the full Jacobian of every output
    with respect to every differentiable input with ``allclose(analytical, numerical, rtol, atol)``;
    ``fast_mode=True`` compares one random projection of it.  The checks nnref does not have
    (forward AD, batched gradients) raise rather than pass silently.
    """
    from ..core._tensor import Tensor
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: nnref has no forward-mode AD and no vmap, so "
                                  "check_forward_ad, check_batched_grad and "
                                  "check_batched_forward_grad must stay False")
    inputs = _as_tuple(inputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i in differentiable:
        if inputs[i]._dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point. ", UserWarning, stacklevel=2)
    if not check_backward_ad:
        return True
    try:
        (_fast_check if fast_mode else _slow_check)(func, inputs, differentiable, eps, atol, rtol, nondet_tol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=None):
    """Check second derivatives: ``gradcheck`` of the function that returns ``func``'s gradients
    (vector-Jacobian products with ``grad_outputs``, random in [-1, 1) when not given)."""
    from .._creation import empty
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
        grad_outputs = tuple(
            empty(o.shape, dtype=o._dtype, device=o._device).uniform_(-1, 1).requires_grad_()
            for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)
    differentiable = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]

    def new_func(*args):
        input_args, seeds = args[:-count], args[-count:]
        outputs = [o for o in _outputs(func, input_args) if o.requires_grad]
        grads = grad(outputs, [input_args[i] for i in differentiable], list(seeds),
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     masked=masked)
