"""Custom ``autograd.Function`` and ``gradcheck``.

The Function classes are defined inside ``make_functions(m)`` so the very same
code runs against ``nnref`` and ``torch``.
"""
import re
import warnings

import numpy as np
import pytest

import nnref
from core_helpers import assert_close

try:
    import torch
except ImportError:
    torch = None


def make_functions(m):
    Function = m.autograd.Function

    class Cube(Function):
        """x**3 * scale, with a non-tensor argument."""

        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            ctx.forward_needs = ctx.needs_input_grad
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2 * ctx.scale, None

    class SumAndProduct(Function):
        """Two outputs."""

        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a + b, a * b

        @staticmethod
        def backward(ctx, grad_sum, grad_product):
            a, b = ctx.saved_tensors
            return (grad_sum + grad_product * b if ctx.needs_input_grad[0] else None,
                    grad_sum + grad_product * a if ctx.needs_input_grad[1] else None)

    class DoubleWithArgmax(Function):
        """A non-differentiable second output."""

        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            return x * 2, index

        @staticmethod
        def backward(ctx, grad, grad_index):
            return grad * 2

    class Identity(Function):
        """Returns its input: the caller still gets a new tensor with this node."""

        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    class Exp(Function):
        """Saves its own output."""

        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

    class WrongSquare(Function):
        """A deliberately wrong gradient (2x + 0.1 instead of 2x): gradcheck must catch it."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (2 * x + 0.1)

    class RightSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    class TooManyGradients(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad  # should be (grad, None): one per forward argument

    class GradModes(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.modes = [m.is_grad_enabled()]
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            ctx.modes.append(m.is_grad_enabled())
            return grad * 2

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


def both(run):
    ours = run(nnref, make_functions(nnref))
    if torch is not None:
        theirs = run(torch, make_functions(torch))
        _assert_same(ours, theirs)
    return ours


def _assert_same(ours, theirs):
    if isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same(a, b)
    elif isinstance(ours, nnref.Tensor):
        assert_close(ours, theirs, rtol=1e-6)
    elif isinstance(ours, str):
        strip = lambda s: re.sub(r" at 0x[0-9a-f]+", "", s.replace("torch.", "nnref."))  # noqa: E731
        assert strip(ours) == strip(theirs)
    else:
        assert ours == theirs


def test_save_for_backward_and_non_tensor_arguments():
    def run(m, fns):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = fns["Cube"].apply(x, 2.0)
        node = y.grad_fn
        facts = [y, type(node).__name__, node.name(), node.next_functions[0][0].variable is x,
                 len(node.next_functions), node.forward_needs, node.needs_input_grad, repr(node)]
        y.sum().backward()
        return facts + [x.grad]
    facts = both(run)
    assert facts[1] == "CubeBackward" and facts[5] == (True, False)
    assert facts[-1].tolist() == [6.0, 24.0]


def test_multiple_outputs_share_one_node():
    def run(m, fns):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0, 4.0], requires_grad=True)
        s, p = fns["SumAndProduct"].apply(a, b)
        facts = [s.grad_fn is p.grad_fn, s.grad_fn.next_functions[0][1], p]
        (s.sum() + p.sum()).backward()
        facts += [a.grad.clone(), b.grad.clone()]
        a.grad = b.grad = None
        s, p = fns["SumAndProduct"].apply(a, b)
        p.sum().backward()  # the unused output's gradient arrives as zeros
        return facts + [a.grad, b.grad]
    facts = both(run)
    assert facts[0] and facts[3].tolist() == [4.0, 5.0] and facts[5].tolist() == [3.0, 4.0]


def test_needs_input_grad_and_constant_inputs():
    def run(m, fns):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        c = m.tensor([1.0, 2.0])
        s, _ = fns["SumAndProduct"].apply(a, c)
        edges = [None if n is None else type(n).__name__ for n, _ in s.grad_fn.next_functions]
        s2, _ = fns["SumAndProduct"].apply(c, c)
        with m.no_grad():
            s3, _ = fns["SumAndProduct"].apply(a, a)
        return [s.grad_fn.needs_input_grad, edges, s2.requires_grad, s2.grad_fn is None,
                s3.requires_grad]
    assert both(run) == [(True, False), ["AccumulateGrad", None], False, True, False]


def test_mark_non_differentiable():
    def run(m, fns):
        x = m.tensor([1.0, 3.0], requires_grad=True)
        values, index = fns["DoubleWithArgmax"].apply(x)
        facts = [values.requires_grad, index.requires_grad, index.grad_fn is None, index]
        values.sum().backward()
        return facts + [x.grad]
    facts = both(run)
    assert facts[:3] == [True, False, True] and facts[-1].tolist() == [2.0, 2.0]


def test_returning_an_input_gives_a_new_tensor():
    def run(m, fns):
        x = m.tensor([1.0], requires_grad=True)
        y = fns["Identity"].apply(x)
        facts = [y is x, y.is_leaf, type(y.grad_fn).__name__]
        y.backward()
        return facts + [x.grad, x.is_leaf]
    facts = both(run)
    assert facts[:3] == [False, False, "IdentityBackward"] and facts[3].tolist() == [5.0]


def test_saved_output_and_freeing():
    def run(m, fns):
        x = m.tensor([0.0, 1.0], requires_grad=True)
        y = fns["Exp"].apply(x)
        y.sum().backward()
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            y.sum().backward()
        return x.grad
    assert np.allclose(both(run)._data, [1.0, np.e])


def test_wrong_number_of_gradients_is_an_error():
    def run(m, fns):
        x = m.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="incorrect number of gradients"):
            fns["TooManyGradients"].apply(x, 2).backward()
        return True
    both(run)


def test_forward_runs_without_grad_and_backward_with_create_graph():
    def run(m, fns):
        x = m.tensor([1.0], requires_grad=True)
        y = fns["GradModes"].apply(x)
        y.backward()
        first = list(y.grad_fn.modes)
        y = fns["GradModes"].apply(x)
        (g,) = m.autograd.grad(y, x, create_graph=True)
        return first, list(y.grad_fn.modes), g.requires_grad
    assert both(run) == ([False, False], [False, True], False)


def test_in_place_change_of_saved_input_is_detected():
    def run(m, fns):
        x = m.tensor([1.0], requires_grad=True)
        h = x * 1
        y = fns["Cube"].apply(h, 1.0)
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()
        return True
    both(run)


def test_function_used_in_a_larger_graph():
    def run(m, fns):
        x = m.tensor([0.5, -1.0], requires_grad=True)
        s, p = fns["SumAndProduct"].apply(x.tanh(), fns["Exp"].apply(x))
        out = (fns["Cube"].apply(s, 0.5) * p).sum()
        out.backward()
        return out, x.grad
    both(run)


# -- gradcheck ----------------------------------------------------------------------------------
def test_gradcheck_catches_a_wrong_backward():
    fns = make_functions(nnref)
    x = nnref.tensor([0.3, -1.2, 2.0], dtype=nnref.float64, requires_grad=True)
    assert nnref.autograd.gradcheck(fns["RightSquare"].apply, (x,))
    with pytest.raises(nnref.autograd.GradcheckError, match="Jacobian mismatch"):
        nnref.autograd.gradcheck(fns["WrongSquare"].apply, (x,))
    assert nnref.autograd.gradcheck(fns["WrongSquare"].apply, (x,), raise_exception=False) is False
    assert isinstance(nnref.autograd.GradcheckError("x"), RuntimeError)  # as in PyTorch


def test_gradcheck_agrees_with_torch_on_the_same_functions():
    torch = pytest.importorskip("torch")
    for m in (nnref, torch):
        fns = make_functions(m)
        x = m.tensor([0.3, -1.2, 2.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([1.5, 0.5, -0.7], dtype=m.float64, requires_grad=True)
        assert m.autograd.gradcheck(fns["RightSquare"].apply, (x,))
        assert m.autograd.gradcheck(lambda a, b: fns["SumAndProduct"].apply(a, b), (x, y))
        assert m.autograd.gradcheck(lambda a: fns["Cube"].apply(a, 0.5), (x,))
        assert not m.autograd.gradcheck(fns["WrongSquare"].apply, (x,), raise_exception=False)


def test_gradcheck_checks_every_output_and_input():
    fns = make_functions(nnref)

    class WrongSecondOutput(nnref.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * 2, a * b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            return g1 * 2 + g2 * b, g2 * a * 1.5  # wrong for b only

    a = nnref.tensor([1.0, 2.0], dtype=nnref.float64, requires_grad=True)
    b = nnref.tensor([3.0, -1.0], dtype=nnref.float64, requires_grad=True)
    with pytest.raises(nnref.autograd.GradcheckError, match="output 1 with respect to input 1"):
        nnref.autograd.gradcheck(WrongSecondOutput.apply, (a, b))
    assert nnref.autograd.gradcheck(lambda x: fns["SumAndProduct"].apply(x, x), (a,))


def test_gradcheck_on_a_strided_input():
    x = nnref.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=nnref.float64).t()
    x.requires_grad_()
    assert not x.is_contiguous()
    assert nnref.autograd.gradcheck(lambda t: (t * t).sum(0), (x,))


def test_gradcheck_warns_for_float32_and_needs_an_input_requiring_grad():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="double precision"):
        nnref.autograd.gradcheck(lambda t: t * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        nnref.autograd.gradcheck(lambda t: t * 2, (nnref.ones(2, dtype=nnref.float64),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nnref.autograd.gradcheck(lambda t: t * 2, (x.double().detach().requires_grad_(),))
