"""Edges of autograd that PyTorch's own unit tests (test_autograd.py) exercise, against PyTorch:
a custom Function with an output that is not a tensor, the legacy (non-static) Function style's
error, ``ctx.saved_variables``' deprecation, a node called with the wrong number of gradients,
a pass given fewer or more starting gradients than outputs, and gradcheck's check that backward
gives the same numbers twice (``nondet_tol``)."""
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")


def outcome(f):
    """("ok", repr, warnings) or (exception type name, message)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = f()
        return "ok", repr(result), [(w.category.__name__, str(w.message)) for w in caught]
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error).__name__, str(error)


def same(f):
    ours, theirs = outcome(lambda: f(nnref)), outcome(lambda: f(torch))
    assert ours == theirs
    return ours


def test_a_function_may_return_a_number_beside_a_tensor():
    def run(L):
        class Scale(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k, k

            @staticmethod
            def backward(ctx, grad, grad_k):
                assert grad_k is None  # the number's "gradient"
                return grad * 2, None
        x = L.ones(2, requires_grad=True)
        y, k = Scale.apply(x, 3)
        y.sum().backward()
        return k, x.grad
    assert same(run)[0] == "ok"


def test_the_legacy_function_style_raises_pytorchs_error():
    def run(L):
        class Legacy(L.autograd.Function):
            def forward(self, x):
                return x
        return Legacy()(L.ones(1))
    assert same(run)[0] == "RuntimeError"


def test_saved_variables_is_saved_tensors_with_pytorchs_deprecation_warning():
    def run(L):
        class Double(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.saved_variables[0]
        x = L.tensor([1.0, 3.0], requires_grad=True)
        Double.apply(x).sum().backward()
        return x.grad
    ours = same(run)
    assert ours[2] == [("DeprecationWarning", "'saved_variables' is deprecated; use 'saved_tensors'")]


@pytest.mark.parametrize("grads", [0, 2])
def test_a_node_called_with_the_wrong_number_of_gradients(grads):
    def run(L):
        y = L.ones(2, requires_grad=True) * 2
        return y.grad_fn(*[L.ones(2)] * grads)
    assert same(run)[0] == "TypeError"


@pytest.mark.parametrize("entry", ["backward", "grad", "Tensor.backward"])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_a_pass_given_fewer_or_more_gradients_than_outputs(entry, count):
    """Fewer starting gradients than outputs (an empty list included) raise PyTorch's "got 2
    tensors and 1 gradients"; extra ones are ignored, as ``_make_grads`` zips the two."""
    def run(L):
        a = L.ones(2, requires_grad=True)
        outputs = [(a * 2).sum(), (a * 3).sum()]
        grads = [L.tensor(float(k + 1)) for k in range(count)]
        if entry == "grad":
            return L.autograd.grad(outputs, [a], grads)
        if entry == "Tensor.backward":
            outputs[0].backward(grads)
        else:
            L.autograd.backward(outputs, grads)
        return a.grad

    result = same(run)
    fails = count < (1 if entry == "Tensor.backward" else 2)
    assert (result[0] == "RuntimeError") == fails, result


def test_a_node_of_several_outputs_wants_one_gradient_each():
    def run(L):
        first, _ = L.ones(4, requires_grad=True).clone().split(2)
        return first.grad_fn(L.ones(2))
    assert same(run)[0] == "TypeError"


@pytest.mark.parametrize("nondet_tol", [0.0, 1e-2])
def test_gradcheck_catches_a_backward_that_is_not_reentrant(nondet_tol):
    def run(L):
        class Noisy(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad * (1 + L.rand(1, dtype=L.float64) * 1e-3)
        x = L.ones(2, dtype=L.float64, requires_grad=True)
        return L.autograd.gradcheck(Noisy.apply, (x,), nondet_tol=nondet_tol)
    assert same(run)[0] == ("GradcheckError" if nondet_tol == 0.0 else "ok")
