"""``tensordot`` and ``inner`` against PyTorch: values, gradients of both operands, second
derivatives, the recorded graph (node names down to the inputs) and the errors, over random
shapes and every form of ``dims``."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _graph(tensor):
    """Node names from ``tensor`` along first edges, down to (not including) the leaves."""
    names, node = [], tensor.grad_fn
    while node is not None and node.name() != "torch::autograd::AccumulateGrad":
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _run(fw, a, b, call):
    ta, tb = fw.tensor(a, requires_grad=True), fw.tensor(b, requires_grad=True)
    try:
        out = call(fw, ta, tb)
    except Exception as exc:  # noqa: BLE001 - the type and message are what is compared
        return type(exc).__name__, str(exc)
    weights = fw.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
    ga, gb = fw.autograd.grad((out * weights).sum(), (ta, tb), create_graph=True)
    second = fw.autograd.grad((ga * ga).sum() + (gb * gb).sum(), (ta, tb), allow_unused=True)
    return (tuple(out.shape), _graph(out),
            [None if t is None else t.detach().numpy() for t in (out, ga, gb, *second)])


def _assert_same(call, a, b):
    expected, actual = _run(torch, a, b, call), _run(nnref, a, b, call)
    assert actual[:2] == expected[:2]
    if isinstance(expected[0], str):  # an error: same type and message
        return
    for e, n in zip(expected[2], actual[2]):
        assert (n is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(n, e, rtol=1e-10, atol=1e-12)


@st.composite
def contraction(draw):
    """Two shapes sharing ``k`` contracted sizes (some broadcast as 1, some mismatched on purpose)
    and ``dims`` in one of PyTorch's forms."""
    k = draw(st.integers(0, 2))
    contracted = draw(st.lists(st.integers(1, 3), min_size=k, max_size=k))
    free_a = draw(st.lists(st.integers(1, 3), max_size=2))
    free_b = draw(st.lists(st.integers(1, 3), max_size=2))
    sizes_b = list(contracted)
    if k and draw(st.booleans()):
        sizes_b[draw(st.integers(0, k - 1))] = draw(st.integers(1, 3))  # broadcast or mismatch
    if draw(st.booleans()):  # dims as an int: trailing dims of a, leading dims of b
        return free_a + contracted, sizes_b + free_b, k
    perm_a = draw(st.permutations(range(len(free_a) + k)))
    perm_b = draw(st.permutations(range(len(free_b) + k)))
    shape_a = [(free_a + contracted)[i] for i in perm_a]
    shape_b = [(sizes_b + free_b)[i] for i in perm_b]
    dims_a = [perm_a.index(len(free_a) + i) for i in range(k)]
    dims_b = [perm_b.index(i) for i in range(k)]
    if draw(st.booleans()):
        dims_a = [d - len(shape_a) for d in dims_a]  # negative dims
    return shape_a, shape_b, (dims_a, dims_b)


@SETTINGS
@given(contraction(), st.integers(0, 2**32 - 1))
def test_tensordot_matches_pytorch(case, seed):
    shape_a, shape_b, dims = case
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    _assert_same(lambda fw, x, y: fw.tensordot(x, y, dims=dims), a, b)


@pytest.mark.parametrize("dims", [-1, 3, ([0, 0], [1, 1]), ([0], [0, 1]), ([0], [0])])
def test_tensordot_errors_match_pytorch(dims):
    rng = np.random.default_rng(0)
    _assert_same(lambda fw, x, y: fw.tensordot(x, y, dims=dims), rng.standard_normal((2, 3)),
                 rng.standard_normal((3, 2)))


def test_tensordot_refuses_mixed_dtypes_like_pytorch():
    for fw in (torch, nnref):
        with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
            fw.tensordot(fw.ones(2, 3), fw.ones(3, 2, dtype=fw.float64), dims=1)


def test_tensordot_takes_dims_as_a_tensor():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    expected = torch.tensordot(torch.tensor(a), torch.tensor(b), dims=torch.tensor(1))
    actual = nnref.tensordot(nnref.tensor(a), nnref.tensor(b), dims=nnref.tensor(1))
    np.testing.assert_allclose(actual.numpy(), expected.numpy())


@pytest.mark.parametrize("shape_a,shape_b", [((3,), (3,)), ((2, 3), (4, 3)), ((2, 1, 3), (3,)),
                                             ((), (2, 3)), ((2, 3), ()), ((2, 3), (3, 2))])
@pytest.mark.parametrize("method", [False, True])
def test_inner_matches_pytorch(shape_a, shape_b, method):
    rng = np.random.default_rng(2)
    call = (lambda fw, x, y: x.inner(y)) if method else (lambda fw, x, y: fw.inner(x, y))
    _assert_same(call, rng.standard_normal(shape_a), rng.standard_normal(shape_b))


def test_out_forms_write_into_the_given_tensor():
    a, b = nnref.ones(2, 3), nnref.ones(3, 4)
    out = nnref.empty(2, 4)
    assert nnref.tensordot(a, b, dims=1, out=out) is out
    assert nnref.inner(a, nnref.ones(5, 3), out=nnref.empty(2, 5)).shape == (2, 5)
    np.testing.assert_allclose(out.numpy(), np.full((2, 4), 3.0))
