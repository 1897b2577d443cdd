"""The full custom ``Function`` API against PyTorch: setup_context, mark_dirty, materialize_grads,
trailing Nones, once_differentiable, save_for_backward checks; gradcheck (slow and fast) and
gradgradcheck with PyTorch's messages."""
import re
import warnings

import pytest

import nnref
from core_helpers import both

torch = pytest.importorskip("torch")


def outcome(fn):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the exception is the compared result
        return type(exc).__name__, re.sub(r"torch\.|nnref\.", "", str(exc)).split(" Hint:")[0]


def functions(m):
    """The same Functions, written once against either library."""
    Function = m.autograd.Function

    class Square(Function):  # forward without ctx, plus setup_context
        @staticmethod
        def forward(x, k):
            return x * x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.k, None

    class DoubleInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            return (g1 * 2 if g1 is not None else 0) + (g2 * 3 if g2 is not None else 0), None

    class TrailingNones(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    class TrailingTensor(TrailingNones):
        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    class GradForConstant(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class SavesNumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class WrongBackward(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # half the true derivative

    return locals()


def test_setup_context_style():
    def run(m):
        fns = functions(m)
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = fns["Square"].apply(x, 3.0)
        y.sum().backward()
        return y, type(y.grad_fn).__name__, y.grad_fn.needs_input_grad, x.grad
    both(run)


def test_mark_dirty_rebases_the_input_history():
    def run(m):
        fns = functions(m)
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = fns["DoubleInPlace"].apply(b)
        facts = [c is b, b._version, type(b.grad_fn).__name__]
        c.sum().backward()
        base = a * 1
        view_result = fns["DoubleInPlace"].apply(base[:1])
        facts += [view_result, base.grad_fn.name(), base]
        errors = [outcome(lambda: fns["DoubleInPlace"].apply(m.ones(2, requires_grad=True)))]
        return facts + [a.grad] + errors
    both(run)


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    def run(m):
        fns = functions(m)
        x = m.ones(2, requires_grad=True)
        p, _ = fns["TwoOutputs"].apply(x, materialize)
        p.sum().backward()
        return p.grad_fn.seen, x.grad
    both(run)


def test_backward_results_are_checked_and_trailing_nones_dropped():
    def run(m):
        fns = functions(m)
        x = m.ones(2, requires_grad=True)
        fns["TrailingNones"].apply(x).sum().backward()
        return [x.grad, outcome(lambda: fns["TrailingTensor"].apply(x).sum().backward()),
                outcome(lambda: fns["GradForConstant"].apply(x, 2.0).sum().backward()),
                outcome(lambda: fns["SavesNumber"].apply(x))]
    both(run)


def test_once_differentiable():
    def run(m):
        fns = functions(m)
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (g,) = m.autograd.grad(fns["Once"].apply(x).sum(), x, create_graph=True)
        y = fns["Once"].apply(x)
        seed = m.ones(2, requires_grad=True)
        (h,) = m.autograd.grad(y, x, seed, create_graph=True)
        return [g, g.requires_grad, h, h.grad_fn.name(), outcome(lambda: h.sum().backward())]
    both(run)


def test_saved_tensor_version_check_in_a_function():
    def run(m):
        fns = functions(m)
        x = m.ones(2, requires_grad=True)
        b = x * 1
        y = fns["Square"].apply(b, 1.0)
        b.add_(1)
        return outcome(lambda: y.sum().backward())
    both(run)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_messages(fast_mode):
    def run(m):
        fns = functions(m)
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        good = m.autograd.gradcheck(fns["Square"].apply, (x, 2.0), fast_mode=fast_mode)
        quiet = m.autograd.gradcheck(fns["WrongBackward"].apply, (x,), fast_mode=fast_mode,
                                     raise_exception=False)
        try:
            m.autograd.gradcheck(fns["WrongBackward"].apply, (x,), fast_mode=fast_mode)
        except m.autograd.gradcheck.__globals__["GradcheckError"] as exc:
            message = str(exc)
        return good, quiet, message
    good, quiet, message = run(nnref)
    _, _, expected = run(torch)
    assert good and not quiet
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    if fast_mode:  # the random projection differs; the slow-mode part of the message does not
        tail = lambda text: text[text.index("\nThe above quantities"):].replace("torch.", "nnref.")  # noqa: E731
        assert tail(message) == tail(expected)
    else:
        assert message == expected


def test_gradgradcheck():
    def run(m):
        fns = functions(m)
        x = m.tensor([0.5, -1.5, 2.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        results = [m.autograd.gradgradcheck(lambda a, b: (a * b).tanh(), (x, y)),
                   m.autograd.gradgradcheck(lambda a: a.exp() * a, (x,), fast_mode=True),
                   m.autograd.gradgradcheck(fns["Square"].apply, (x, 2.0))]

        class FirstOrderOnly(m.autograd.Function):  # a backward that is not differentiable right
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 3 * a.detach() ** 2  # detach: the second derivative is lost

        results.append(m.autograd.gradgradcheck(FirstOrderOnly.apply, (x,), raise_exception=False))
        return results
    assert both(run) == [True, True, True, False]


def test_gradcheck_refuses_checks_nnref_does_not_have():
    x = nnref.ones(2, dtype=nnref.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="forward-mode"):
        nnref.autograd.gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nnref.autograd.gradcheck(lambda a: a * 2, (nnref.ones(2, requires_grad=True),), eps=1e-2, atol=1e-2)
    assert "not a double precision" in str(caught[0].message)
