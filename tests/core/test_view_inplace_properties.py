"""Property tests: random chains of views (slices, transposes, view, expand, narrow, select,
unsqueeze) of a tensor in a graph, then an in-place op through the last view.  Values, versions,
gradients, grad_fn names and errors must match PyTorch; the whole function must pass gradcheck
and gradgradcheck (first and second derivatives through CopySlices/AsStridedBackward0)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref
from core_helpers import assert_same

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

VIEW_KINDS = ["slice", "transpose", "view", "expand", "narrow", "select", "unsqueeze", "getitem"]
INPLACE_KINDS = ["mul_scalar", "mul_tensor", "add_tensor", "copy", "setitem", "zero", "relu",
                 "masked_fill", "exp", "div_tensor", "clamp", "setitem_element", "setitem_rows"]


def draw_view(draw, shape):
    """One view op valid for ``shape``, as a plain tuple both libraries can apply."""
    ndim = len(shape)
    kinds = [k for k in VIEW_KINDS if ndim or k in ("unsqueeze", "view", "expand", "getitem")]
    kind = draw(st.sampled_from(kinds))
    if kind in ("slice", "narrow", "select"):
        dim = draw(st.integers(0, ndim - 1))
        size = shape[dim]
        if kind == "select":
            return kind, dim, draw(st.integers(-size, size - 1))
        start = draw(st.integers(0, size - 1))
        if kind == "narrow":
            return kind, dim, start, draw(st.integers(1, size - start))
        return kind, dim, start, draw(st.integers(start + 1, size)), draw(st.integers(1, 2))
    if kind == "transpose":
        return kind, draw(st.integers(0, max(ndim - 1, 0))), draw(st.integers(0, max(ndim - 1, 0)))
    if kind == "unsqueeze":
        return kind, draw(st.integers(0, ndim))
    if kind == "expand":
        return kind, draw(st.integers(1, 2))
    if kind == "getitem":
        return kind, draw(st.sampled_from(["ellipsis", "none", "step"]))
    return kind, draw(st.sampled_from(["flat", "split"]))


def apply_view(t, op):
    kind, *args = op
    if kind == "slice":
        dim, start, stop, step = args
        return t[(slice(None),) * dim + (slice(start, stop, step),)]
    if kind == "narrow":
        return t.narrow(*args)
    if kind == "select":
        return t.select(*args)
    if kind == "transpose":
        return t.transpose(*args) if t.dim() else t
    if kind == "unsqueeze":
        return t.unsqueeze(args[0])
    if kind == "expand":
        return t.unsqueeze(0).expand(args[0], *t.shape)
    if kind == "getitem":
        return {"ellipsis": lambda: t[...], "none": lambda: t[None],
                "step": lambda: t[::2] if t.dim() else t[...]}[args[0]]()
    if args[0] == "flat":
        return t.view(-1)
    return t.view(*t.shape, 1)


def apply_inplace(m, view, kind, w):
    """``w``: a tensor of the view's shape that requires grad (when used)."""
    if kind == "mul_scalar":
        view.mul_(2.5)
    elif kind == "mul_tensor":
        view.mul_(w)
    elif kind == "add_tensor":
        view.add_(w, alpha=-0.5)
    elif kind == "div_tensor":
        view.div_(w.abs() + 1)
    elif kind == "copy":
        view.copy_(w)
    elif kind == "setitem":
        view[...] = w * 3
    elif kind == "setitem_element":
        view[(0,) * view.dim()] = 1.25
    elif kind == "setitem_rows":
        view[:1] = w[:1] if view.dim() else w
    elif kind == "zero":
        view.zero_()
    elif kind == "relu":
        view.relu_()
    elif kind == "exp":
        view.exp_()
    elif kind == "clamp":
        view.clamp_(-0.5, 0.5)
    else:
        view.masked_fill_(w > 0, 1.5)


def outcome(fn):
    try:
        return fn()
    except (RuntimeError, ValueError, IndexError) as exc:
        return type(exc).__name__, str(exc).replace("torch.", "nnref.").split(" Hint")[0][:60]


def run(m, x_values, c_values, w_values, views, kind):
    x = m.tensor(x_values, requires_grad=True)
    y = x * 1.5
    w = m.tensor(w_values, requires_grad=True)

    def go():
        view = y
        for op in views:
            view = apply_view(view, op)
        apply_inplace(m, view, kind, w)
        names = [y.grad_fn.name(), type(view.grad_fn).__name__, view._base is y, y._version,
                 view._version]
        (y * m.tensor(c_values)).sum().backward()
        return names, y, x.grad, w.grad
    return outcome(go)


def shapes_and_views(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3), label="shape"))
    views = []
    probe = np.zeros(shape)
    for _ in range(data.draw(st.integers(1, 3), label="chain length")):
        op = draw_view(data.draw, probe.shape)
        try:
            probe = apply_view(nnref.from_numpy(probe), op)._data  # keeps the strides
        except RuntimeError:  # e.g. view(-1) of a non-contiguous tensor: both libraries refuse
            break
        views.append(op)
    return shape, views, probe.shape


@pytest.mark.filterwarnings("ignore:Use of masked_fill_ on expanded tensors")  # PyTorch's, then it raises
@SETTINGS
@given(data=st.data())
def test_inplace_through_a_chain_of_views_matches_torch(data):
    shape, views, view_shape = shapes_and_views(data)
    kind = data.draw(st.sampled_from(INPLACE_KINDS), label="in-place op")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    x_values = rng.standard_normal(shape)
    c_values = rng.standard_normal(shape)
    w_values = rng.standard_normal(view_shape)
    ours = run(nnref, x_values, c_values, w_values, views, kind)
    theirs = run(torch, x_values, c_values, w_values, views, kind)
    assert_same(ours, theirs)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_first_and_second_derivatives_through_inplace_on_views(data):
    shape, views, view_shape = shapes_and_views(data)
    kind = data.draw(st.sampled_from(["mul_tensor", "add_tensor", "copy", "setitem", "exp",
                                      "div_tensor", "mul_scalar"]), label="in-place op")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    # |x| <= 1.5: "exp" turns y = x * x into exp(x**2), squared below; with larger x the finite
    # differences of exp(2 x**2) measure round-off, not the derivative.
    x = nnref.tensor(np.clip(rng.standard_normal(shape), -1.5, 1.5), requires_grad=True)
    # |w| >= 0.5: div_tensor divides by w, and finite differences near 1/0 measure round-off.
    w_values = rng.standard_normal(view_shape)
    w = nnref.tensor(np.sign(w_values) * (0.5 + 0.5 * np.abs(w_values)) + (w_values == 0),
                     requires_grad=True)

    def f(x, w):
        y = x * x
        view = y
        for op in views:
            view = apply_view(view, op)
        try:
            apply_inplace(nnref, view, kind, w)
        except RuntimeError:  # an expanded view: refused (as PyTorch does), nothing to check
            return y.sum() * 0 + (x * w.sum()).sum()
        return (y * y).sum() + y.sin().sum()

    assert nnref.autograd.gradcheck(f, (x, w))
    assert nnref.autograd.gradgradcheck(f, (x, w))
