"""``nnref.autograd.functional`` against ``torch.autograd.functional``: for each function the
result's nesting (tuples where PyTorch returns tuples, lone tensors where it returns them),
shapes, dtypes, values, ``requires_grad`` and the derivatives taken through a
``create_graph=True`` result, and every error's type and message."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

X = np.array([0.5, -1.0, 2.0])
Y = np.array([[1.5, -0.5], [0.25, 3.0]])


def describe(result, values):
    """The comparable shape of a result: nesting, and per tensor dtype, shape and whether it
    requires grad; the tensors' values are appended to ``values``."""
    if isinstance(result, (tuple, list)):
        return (type(result).__name__, [describe(r, values) for r in result])
    values.append(result.detach().numpy())
    return ("tensor", str(result.dtype), tuple(result.shape), result.requires_grad)


def outcome(lib, name, func, inputs, v=None, **kwargs):
    """``lib.autograd.functional.<name>`` on tensors built by ``inputs(lib)``: the described
    result and its values, or the error's type and message."""
    ins = inputs(lib)
    fn = getattr(lib.autograd.functional, name)
    args = (lambda *a: func(lib, *a), ins) + (() if v is None else (v(lib),))
    values = []
    try:
        return describe(fn(*args, **kwargs), values), values
    except Exception as error:  # noqa: BLE001 - the outcome compared is the exception itself
        return type(error).__name__, str(error)


def same(name, func, inputs, v=None, **kwargs):
    ours = outcome(nnref, name, func, inputs, v, **kwargs)
    theirs = outcome(torch, name, func, inputs, v, **kwargs)
    assert ours[0] == theirs[0]
    if isinstance(ours[1], list):  # float64 throughout: agreement to rounding
        assert len(ours[1]) == len(theirs[1])
        for a, b in zip(ours[1], theirs[1]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    else:
        assert ours[1] == theirs[1]


def one(L):
    return L.tensor(X)


def one_leaf(L):
    return L.tensor(X, requires_grad=True)


def pair(L):
    return L.tensor(X), L.tensor(Y)


def scalar_input(L):
    return L.tensor(0.7, dtype=L.float64)


FUNCS = {  # name -> (func(L, *inputs), inputs builder)
    "single_to_single": (lambda L, x: x.exp() * x, one),
    "single_to_scalar": (lambda L, x: (x ** 3).sum(), one),
    "single_to_tuple": (lambda L, x: (x.sin(), (x * x).sum()), one),
    "single_to_1tuple": (lambda L, x: (x.tanh(),), one),
    "tuple_to_single": (lambda L, x, y: x.sum() * y, pair),
    "tuple_to_tuple": (lambda L, x, y: (x * y.sum(), (y ** 2) * x[0]), pair),
    "tuple_to_scalar": (lambda L, x, y: (x.exp().sum() * y.sin()).sum(), pair),
    "unused_input": (lambda L, x, y: (x ** 3).sum(), pair),
    "linear": (lambda L, x: (2 * x).sum(), one),
    "constant_output": (lambda L, x: L.ones(3, dtype=L.float64), one),
    "leaf_input": (lambda L, x: (x ** 3).sum(), one_leaf),
    "scalar_input": (lambda L, x: x.exp() * x, scalar_input),
}

JACOBIAN_FUNCS = sorted(FUNCS)
SCALAR_FUNCS = ["single_to_scalar", "tuple_to_scalar", "unused_input", "linear", "leaf_input",
                "constant_output", "single_to_single", "single_to_tuple"]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("func", JACOBIAN_FUNCS)
def test_jacobian(func, vectorize, create_graph, strict):
    f, inputs = FUNCS[func]
    same("jacobian", f, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("func", SCALAR_FUNCS + ["scalar_input"])
def test_hessian(func, vectorize, create_graph, strict):
    f, inputs = FUNCS[func]
    same("hessian", f, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)


def _v_like_outputs(func):
    """A ``v`` shaped like the function's outputs (computed with torch, rebuilt per library)."""
    f, inputs = FUNCS[func]
    out = f(torch, *[t.detach() for t in (inputs(torch) if isinstance(inputs(torch), tuple)
                                           else (inputs(torch),))])
    arrays = [o.detach().numpy() * 0 + np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape))
              for o in (out if isinstance(out, tuple) else (out,))]
    if isinstance(out, tuple):
        return lambda L: tuple(L.tensor(a) for a in arrays)
    return lambda L: L.tensor(arrays[0])


def _v_like_inputs(func):
    _, inputs = FUNCS[func]
    ins = inputs(torch)
    arrays = [t.detach().numpy() * 0 - 0.75 for t in (ins if isinstance(ins, tuple) else (ins,))]
    if isinstance(ins, tuple):
        return lambda L: tuple(L.tensor(a) for a in arrays)
    return lambda L: L.tensor(arrays[0])


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("func", JACOBIAN_FUNCS)
def test_vjp(func, create_graph, strict):
    f, inputs = FUNCS[func]
    if func != "constant_output":
        same("vjp", f, inputs, _v_like_outputs(func), create_graph=create_graph, strict=strict)
    same("vjp", f, inputs, create_graph=create_graph, strict=strict)  # v omitted


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("func", JACOBIAN_FUNCS)
def test_jvp(func, create_graph, strict):
    f, inputs = FUNCS[func]
    same("jvp", f, inputs, _v_like_inputs(func), create_graph=create_graph, strict=strict)
    same("jvp", f, inputs, create_graph=create_graph, strict=strict)  # v omitted


@pytest.mark.parametrize("name", ["vhp", "hvp"])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("func", SCALAR_FUNCS + ["scalar_input"])
def test_hessian_vector_products(name, func, create_graph, strict):
    f, inputs = FUNCS[func]
    same(name, f, inputs, _v_like_inputs(func), create_graph=create_graph, strict=strict)
    same(name, f, inputs, create_graph=create_graph, strict=strict)  # v omitted


@pytest.mark.parametrize("call", [
    lambda L, F: F.jacobian(lambda x: x, [L.ones(2)]),
    lambda L, F: F.jacobian(lambda x: x, (L.ones(2), 3.0)),
    lambda L, F: F.jacobian(lambda x: 2.0, L.ones(2)),
    lambda L, F: F.jacobian(lambda x: x, L.ones(2), strategy="sideways"),
    lambda L, F: F.jacobian(lambda x: x, L.ones(2), strategy="forward-mode"),
    lambda L, F: F.jacobian(lambda x: x, L.ones(2), strategy="forward-mode", create_graph=True),
    lambda L, F: F.jacobian(lambda x: x, L.ones(2), strategy="forward-mode", strict=True),
    lambda L, F: F.hessian(lambda x: x, L.ones(2)),
    lambda L, F: F.hessian(lambda x: (x.sum(), x.sum()), L.ones(2)),
    lambda L, F: F.hessian(lambda x: x.sum(), L.ones(2), outer_jacobian_strategy="sideways"),
    lambda L, F: F.vjp(lambda x: x * 2, L.ones(2), (L.ones(2), L.ones(2))),
    lambda L, F: F.vjp(lambda x: (x * 2, x), L.ones(2), (L.ones(2),)),
    lambda L, F: F.vjp(lambda x: x * 2, L.ones(2), L.ones(3)),
    lambda L, F: F.vjp(lambda x: (x * 2, x), L.ones(2), (L.ones(2), L.ones(3))),
    lambda L, F: F.jvp(lambda x, y: x * y, (L.ones(2), L.ones(2)), (L.ones(2),)),
    lambda L, F: F.jvp(lambda x, y: x * y, (L.ones(2), L.ones(2))),
    lambda L, F: F.vjp(lambda x: x * 2, L.ones(2), [L.ones(2)]),
    lambda L, F: F.hvp(lambda x: x * 2, L.ones(2), L.ones(2)),
    lambda L, F: F.vhp(lambda x: (x.sum(),), L.ones(2), L.ones(2)),
    lambda L, F: F.hvp(lambda x: x.sum(), L.ones(2)),
])
def test_errors(call):
    results = []
    for lib in (nnref, torch):
        try:
            call(lib, lib.autograd.functional)
            results.append("passed")
        except Exception as error:  # noqa: BLE001
            results.append((type(error).__name__, str(error)))
    assert results[0] == results[1]
    assert results[0] != "passed"


@pytest.mark.parametrize("name", ["jacobian", "hessian"])
def test_forward_mode_strategy_says_it_is_unavailable(name):
    """PyTorch computes it with forward-mode AD, which nnref lacks: a clear refusal, never a
    differently nested or differently attached result."""
    f, inputs = FUNCS["tuple_to_scalar"]
    kwargs = {"vectorize": True, ("strategy" if name == "jacobian" else "outer_jacobian_strategy"):
              "forward-mode"}
    assert outcome(torch, name, f, inputs, **kwargs)[0][0] == "list"
    with pytest.raises(NotImplementedError, match="nnref has no forward-mode AD"):
        getattr(nnref.autograd.functional, name)(lambda *a: f(nnref, *a), inputs(nnref), **kwargs)


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"])
def test_create_graph_results_differentiate_like_pytorch(name):
    """A ``create_graph=True`` result is part of the graph: its own gradient with respect to
    the caller's leaf agrees with PyTorch's."""
    grads = []
    for lib in (nnref, torch):
        x = lib.tensor(X, requires_grad=True)
        F = lib.autograd.functional
        f = (lambda t: (t.exp() * t.sin()).sum()) if name in ("hessian", "vhp", "hvp") else \
            (lambda t: t.exp() * t.sin())
        if name in ("jacobian", "hessian"):
            res = getattr(F, name)(f, x, create_graph=True)
        else:
            res = getattr(F, name)(f, x, lib.ones(3, dtype=lib.float64), create_graph=True)[1]
        (g,) = lib.autograd.grad((res * res).sum(), x)
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


def test_grad_mode_is_restored_and_respected():
    for lib in (nnref, torch):
        with lib.no_grad():
            _, res = lib.autograd.functional.vjp(lambda t: (t ** 2).sum(), lib.tensor(X))
            assert not lib.is_grad_enabled()
        assert not res.requires_grad


def test_namespace():
    import nnref.autograd.functional as F  # noqa: PLC0415
    assert F.__all__ == torch.autograd.functional.__all__
    assert nnref.autograd.functional is F
