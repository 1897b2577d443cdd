"""Autograd behaviours where nnref used to differ from PyTorch without a word, each pinned against
PyTorch: dtype= given as a Python type, rsub with two tensors, .grad under create_graph, del .grad,
.numpy() under no_grad, backward(inputs=) running the inputs' nodes, hook results validated,
output_nr, grad modes as decorators of functions/generators/coroutines, inference tensors."""
import asyncio
import warnings

import pytest

import nnref
from core_helpers import both

torch = pytest.importorskip("torch")


def outcome(fn):
    """``fn()``'s value, or its exception's type and message (module names made comparable)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the exception *is* the compared result
        return type(exc).__name__, str(exc).replace("torch.", "nnref.")


@pytest.mark.parametrize("python_type", [float, int, bool])
def test_python_types_are_accepted_as_dtypes(python_type):
    def run(m):
        x = m.ones(3)
        results = [m.tensor([2], dtype=python_type).dtype, m.zeros(2, dtype=python_type).dtype,
                   m.ones(2, dtype=python_type).dtype, m.full((2,), 1, dtype=python_type).dtype,
                   outcome(lambda: str(m.arange(3, dtype=python_type).dtype)), m.empty(1, dtype=python_type).dtype,
                   m.zeros_like(x, dtype=python_type).dtype, x.to(python_type).dtype,
                   x.to(dtype=python_type).dtype, m.as_tensor([1], dtype=python_type).dtype]
        if python_type is not bool:
            results += [x.sum(dtype=python_type).dtype]
        if python_type is float:
            results += [m.tensor([2], dtype=float, requires_grad=True).dtype,
                        x.mean(dtype=float).dtype, x.softmax(0, dtype=float).dtype,
                        x.norm(dtype=float).dtype, m.nn.Linear(2, 2, dtype=float).weight.dtype,
                        m.randn(2, dtype=float).dtype]
        return [str(d).split(".")[-1] if not isinstance(d, tuple) else d for d in results]
    both(run)


def test_complex_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="no complex dtypes"):
        nnref.zeros(2, dtype=complex)
    with pytest.raises(TypeError, match="must be nnref.dtype, not str"):
        nnref.zeros(2, dtype="float32")


def test_rsub_of_two_tensors_gives_both_gradients():
    def run(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([[3.0], [4.0]], requires_grad=True)
        out = m.rsub(a, b, alpha=2)
        (out * m.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return out, type(out.grad_fn).__name__, a.grad, b.grad
    both(run)


def test_grad_is_replaced_not_updated_under_create_graph():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.sum().backward()
        first = x.grad
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x * x).sum().backward(create_graph=True)
        replaced = first is not x.grad
        y = m.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (y * y).sum().backward(create_graph=True)
        return first, replaced, x.grad, x.grad.requires_grad, y.grad.grad_fn.name()
    first, replaced, *_ = both(run)
    assert replaced and first.tolist() == [1.0, 1.0]


def test_del_grad_and_numpy_under_no_grad():
    def run(m):
        x = m.ones(2, requires_grad=True)
        x.sum().backward()
        del x.grad
        with m.no_grad():
            values = x.numpy().tolist()
        return x.grad, values, outcome(lambda: x.numpy())
    both(run)


def test_backward_inputs_runs_the_nodes_of_non_leaf_inputs():
    def run(m):
        log = []
        x = m.ones(2, requires_grad=True)
        y = x * 2
        z = (y * 3).sum()
        y.grad_fn.register_prehook(lambda g: log.append("pre"))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", type(gi).__name__)))
        y.register_hook(lambda g: log.append("tensor"))
        z.backward(inputs=[y])
        return log, y.grad, x.grad
    both(run)


HOOK_RESULTS = {
    "too_few": lambda m, gi: gi[:1], "too_many": lambda m, gi: gi + (None,),
    "list": lambda m, gi: list(gi), "tensor": lambda m, gi: gi[0],
    "size": lambda m, gi: (m.ones(5),) + gi[1:], "dtype": lambda m, gi: tuple(
        g.double() if g is not None else None for g in gi),
    "number": lambda m, gi: (1,) + gi[1:], "same": lambda m, gi: gi,
}


@pytest.mark.parametrize("name", sorted(HOOK_RESULTS))
def test_legacy_module_backward_hook_results_are_validated(name):
    def run(m):
        layer = m.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer.register_backward_hook(lambda mod, gi, go: HOOK_RESULTS[name](m, gi))
        x = m.ones(1, 2, requires_grad=True)

        def go():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                layer(x).sum().backward()
            return x.grad is not None
        return outcome(go)
    both(run)


def test_node_and_tensor_hook_results_are_validated():
    def run(m):
        x = m.ones(2, requires_grad=True)
        results = []
        for register in (lambda y: y.grad_fn.register_hook(lambda gi, go: gi + gi),
                         lambda y: y.grad_fn.register_prehook(lambda go: go + go),
                         lambda y: y.register_hook(lambda g: m.ones(3)),
                         lambda y: y.register_hook(lambda g: 2.0)):
            y = x * 2
            register(y)
            results.append(outcome(lambda: y.sum().backward()))
        return results
    both(run)


def test_output_nr():
    def run(m):
        x = m.ones(3, 2, requires_grad=True)
        pieces = x.unbind(0)
        return [p.output_nr for p in pieces], x.output_nr, (x * 2).output_nr
    both(run)


# -- grad modes as decorators ----------------------------------------------------------------------
def test_grad_modes_decorate_generators_step_by_step():
    def run(m):
        seen = []

        @m.no_grad()
        def no_grad_gen():
            seen.append(m.is_grad_enabled())
            received = yield 1
            seen.append((received, m.is_grad_enabled()))
            yield 2

        gen = no_grad_gen()
        next(gen)
        seen.append(("caller", m.is_grad_enabled()))
        gen.send("hello")
        gen.close()

        @m.inference_mode()
        def inference_gen():
            yield m.is_inference_mode_enabled(), m.ones(1).is_inference()

        @m.enable_grad
        def enable_gen():
            yield m.is_grad_enabled()

        with m.no_grad():
            enabled = list(enable_gen())

        @m.set_grad_enabled(False)
        def disabled_gen():
            yield m.is_grad_enabled()

        return seen, list(inference_gen()), enabled, list(disabled_gen()), m.is_grad_enabled()
    both(run)


def test_grad_modes_decorate_functions_classes_and_coroutines_as_pytorch_does():
    def run(m):
        @m.no_grad
        def bare():
            return m.is_grad_enabled()

        @m.inference_mode
        def bare_inference():
            return m.is_inference_mode_enabled()

        @m.set_grad_enabled(False)
        def function():
            return m.is_grad_enabled()

        @m.no_grad()
        async def coroutine():  # PyTorch does not enter the mode inside the coroutine's body
            return m.is_grad_enabled()

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            @m.no_grad()
            class Made:
                def __init__(self):
                    self.enabled = m.is_grad_enabled()
        return (bare(), bare_inference(), function(), m.is_grad_enabled(), asyncio.run(coroutine()),
                Made().enabled, [str(w.category.__name__) for w in caught], bare.__name__)
    both(run)


# -- inference tensors ----------------------------------------------------------------------------
def test_inference_tensors_and_their_errors():
    def run(m):
        normal = m.ones(2)
        with m.inference_mode():
            made = m.ones(2)
            view_of_normal, computed = normal[:1], normal * 2
            normal.add_(1)  # normal tensors may change in place inside the mode
            requiring = m.ones(2, requires_grad=True)
        flags = (made.is_inference(), m.is_inference(made), view_of_normal.is_inference(),
                 computed.is_inference(), normal.is_inference(), requiring.requires_grad)
        x = m.ones(2, requires_grad=True)
        errors = [outcome(lambda: made.add_(1)), outcome(lambda: made.__setitem__(0, 5.0)),
                  outcome(lambda: made[:1].mul_(2)), outcome(lambda: x * made),
                  outcome(lambda: made.requires_grad_()),
                  outcome(lambda: (x + made).grad_fn.name())]
        with m.no_grad():
            errors.append(outcome(lambda: made.zero_()))
        with m.inference_mode():
            made.add_(1)  # allowed inside the mode
        (requiring * 2).sum().backward()
        return flags, errors, requiring.grad
    both(run)


# -- double backward through the numpy kernels ----------------------------------------------------
@pytest.mark.parametrize("case", ["batch_norm_train", "batch_norm_eval", "layer_norm", "layer_norm_plain"])
def test_double_backward_of_normalisation_matches_torch(case):
    import numpy as np
    rng = np.random.default_rng(0)
    x0, w0, b0 = rng.standard_normal((4, 3, 2)), rng.standard_normal(3), rng.standard_normal(3)

    def run(m):
        F = m.nn.functional
        x = m.tensor(x0, requires_grad=True)
        w = m.tensor(w0, requires_grad=True)
        b = m.tensor(b0, requires_grad=True)
        if case == "batch_norm_train":
            y = F.batch_norm(x, None, None, w, b, training=True)
        elif case == "batch_norm_eval":
            y = F.batch_norm(x, m.tensor(w0 * 0.1), m.tensor(np.abs(b0) + 0.5), w, b, training=False)
        elif case == "layer_norm":
            y = F.layer_norm(x, (2,), w[:2], b[1:])
        else:
            y = F.layer_norm(x, (3, 2))
        (gx,) = m.autograd.grad((y ** 3 * m.tensor(x0)).sum(), x, create_graph=True)
        (gx ** 2).sum().backward()
        # A gradient penalty whose incoming gradient needs no grad: still differentiable in x.
        x2 = m.tensor(x0, requires_grad=True)
        (g2,) = m.autograd.grad(F.layer_norm(x2, (2,)).pow(2).sum(), x2, create_graph=True)
        return gx, gx.requires_grad, x.grad, w.grad, b.grad, g2.requires_grad
    both(run)


def test_double_backward_of_a_numpy_only_kernel_is_a_clear_error():
    # max_pool2d's gradient is computed by numpy; with a grad_output that requires grad, the
    # gradient depends on it, so a second derivative would silently miss that term.
    x = nnref.ones(1, 1, 4, 4, requires_grad=True)
    v = nnref.ones(1, 1, 2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be differentiated"):
        nnref.autograd.grad(nnref.nn.functional.max_pool2d(x, 2), x, grad_outputs=v,
                            create_graph=True)
