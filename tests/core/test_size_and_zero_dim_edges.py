"""Edges found by running distributions code on nnref, against PyTorch: a Size's slices, sums
and repeats are Sizes (``print(x.shape[1:])``), softplus and its gradient on 0-d tensors, and
bool indices of no dimension (``x[True]``, ``x[tensor(False)] = v``)."""
import pytest

import nnref

torch = pytest.importorskip("torch")


def _outcome(lib, expression):
    names = {"lib": lib, "x": lib.tensor(1.0), "v": lib.ones(2), "m": lib.arange(6.0).reshape(2, 3)}
    try:
        return repr(eval(expression, names))
    except Exception as exc:  # the exception's type and message are compared
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("expression", [
    "lib.Size([2, 3])[1:]", "lib.Size([2, 3]) + (4,)", "(1,) + lib.Size([2])", "lib.Size([2, 3]) * 2",
    "2 * lib.Size([2])", "lib.Size([2, 3])[0]", "type(m.shape[-1:]).__name__", "lib.Size([2]) + lib.Size([3])",
    "lib.Size([2]) + [3]", "lib.Size([2]) + 3", "lib.Size([2, 3])[::-1]", "lib.Size([2]) * 0", "lib.Size([2, 3])[5]",
    "m.shape[1:].numel()",
    "lib.nn.functional.softplus(lib.tensor(0.5))", "lib.nn.functional.softplus(lib.tensor(30.0))",
    "lib.nn.functional.softplus(lib.tensor(0.5), beta=2)", "lib.nn.functional.softplus(lib.tensor([0.5, 40.0]), beta=2)",
    "x[lib.tensor(True)]", "x[lib.tensor(False)]", "v[lib.tensor(True)]", "v[True]", "v[False]", "x[True]",
    "m[lib.tensor(True), 0]", "m[True, 1]", "m[lib.tensor([True, False])]", "m[0, 1, 2]", "m[..., True]",
    "m[None, True]", "m[True, True, 0, 0]",
])
def test_matches_torch(expression):
    assert _outcome(nnref, expression) == _outcome(torch, expression)


def test_softplus_gradient_of_a_0d_tensor():
    results = []
    for lib in (nnref, torch):
        seen = []
        for value, beta in [(0.7, 3), (30.0, 1), (-2.0, 1)]:
            x = lib.tensor(value, requires_grad=True)
            y = lib.nn.functional.softplus(x, beta=beta)
            y.backward()
            seen.append((y.item(), x.grad.item()))
        results.append(seen)
    assert results[0] == results[1]


def test_writing_through_a_0d_bool_index():
    results = []
    for lib in (nnref, torch):
        x, y, v = lib.tensor(1.0), lib.tensor(2.0), lib.ones(2)
        x[lib.tensor(True)] = 5.0
        y[lib.tensor(False)] = 7.0
        v[True] = 3.0
        results.append((x.item(), y.item(), v.tolist()))
    assert results[0] == results[1]
