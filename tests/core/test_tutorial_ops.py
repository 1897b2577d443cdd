"""The plain ops and call forms the PyTorch tutorials use, against PyTorch: values, gradients,
dtypes, ``grad_fn`` names, warnings and errors."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

from core_helpers import assert_close, dtype_name  # noqa: E402


def _values(seed, shape):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def _compare(fn, *arrays, grads=True, node=None):
    """Run ``fn(lib, *tensors)`` on both; compare outputs (tuples too), grad_fn names and gradients."""
    ours_in = [nnref.tensor(a.copy(), requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    theirs_in = [torch.tensor(a.copy(), requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    ours, theirs = fn(nnref, *ours_in), fn(torch, *theirs_in)
    ours_list = list(ours) if isinstance(ours, tuple) else [ours]
    theirs_list = list(theirs) if isinstance(theirs, tuple) else [theirs]
    assert len(ours_list) == len(theirs_list)
    for a, b in zip(ours_list, theirs_list):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
        # einsum records one node of its own (book/differences.md); every other op PyTorch's.
        assert type(a.grad_fn).__name__ == (node or type(b.grad_fn).__name__)
    differentiable = [(a, b) for a, b in zip(ours_list, theirs_list) if b.grad_fn is not None]
    if grads and differentiable:
        total_ours = sum((a * (i + 1)).sum() for i, (a, _) in enumerate(differentiable))
        total_theirs = sum((b * (i + 1)).sum() for i, (_, b) in enumerate(differentiable))
        total_ours.backward()
        total_theirs.backward()
        for a, b in zip(ours_in, theirs_in):
            if b.requires_grad:
                assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-6)
    return ours, theirs


OPS = {
    "gather": (lambda lib, x: lib.gather(x, 1, lib.tensor([[0, 0, 3], [2, 1, 0], [1, 1, 1]])), (3, 4)),
    "gather_dim0": (lambda lib, x: x.gather(0, lib.tensor([[2, 0, 1, 1]])), (3, 4)),
    "scatter_src": (lambda lib, x: lib.zeros(3, 5).scatter(1, lib.tensor([[0, 4], [2, 1], [3, 3]]), x[:, :2] * 1), (3, 4)),
    "scatter_self": (lambda lib, x: x.scatter(1, lib.tensor([[0], [2], [3]]), 7.0), (3, 4)),
    "scatter_add": (lambda lib, x: lib.scatter_add(x, 0, lib.tensor([[0, 1, 0, 2], [0, 0, 0, 0]]), x[:2] * 2), (3, 4)),
    "einsum_matmul": (lambda lib, x: lib.einsum("ij,kj->ik", x, x * 2), (3, 4)),
    "einsum_batch": (lambda lib, x: lib.einsum("bij,bjk->bik", x, x.transpose(1, 2)), (2, 3, 4)),
    "einsum_sum": (lambda lib, x: lib.einsum("ij->j", x), (3, 4)),
    "einsum_outer": (lambda lib, x: lib.einsum("i,j", x[0], x[1]), (3, 4)),
    "einsum_ellipsis": (lambda lib, x: lib.einsum("...ij->...ji", x), (2, 3, 4)),
    "einsum_trace_like": (lambda lib, x: lib.einsum("ij,ij->", x, x), (3, 4)),
    "logsumexp": (lambda lib, x: lib.logsumexp(x, 1), (3, 4)),
    "logsumexp_keep": (lambda lib, x: x.logsumexp((0, 1), keepdim=True), (3, 4)),
    "prod": (lambda lib, x: lib.prod(x), (3, 4)),
    "prod_dim": (lambda lib, x: x.prod(1), (3, 4)),
    "prod_keep": (lambda lib, x: x.prod(0, keepdim=True), (3, 4)),
    "cumsum": (lambda lib, x: lib.cumsum(x, 1), (3, 4)),
    "cumsum0": (lambda lib, x: x.cumsum(dim=0), (3, 4)),
    "sort": (lambda lib, x: lib.sort(x), (3, 4)),
    "sort_desc": (lambda lib, x: x.sort(0, descending=True), (3, 4)),
    "argsort": (lambda lib, x: lib.argsort(x, 1, descending=True), (3, 4)),
    "topk": (lambda lib, x: lib.topk(x, 2), (3, 4)),
    "topk_small": (lambda lib, x: x.topk(2, dim=0, largest=False), (3, 4)),
    "chunk": (lambda lib, x: lib.chunk(x, 2), (5, 4)),
    "chunk_dim": (lambda lib, x: x.chunk(3, 1), (5, 4)),
    "split": (lambda lib, x: lib.split(x, 2), (5, 4)),
    "split_sizes": (lambda lib, x: x.split([1, 3], 1), (5, 4)),
    "repeat": (lambda lib, x: x.repeat(2, 3), (3, 4)),
    "repeat_new_dim": (lambda lib, x: x.repeat(2, 1, 2), (3, 4)),
    "diagonal": (lambda lib, x: lib.diagonal(x), (3, 4)),
    "diagonal_offset": (lambda lib, x: x.diagonal(1), (3, 4)),
    "diagonal_negative": (lambda lib, x: x.diagonal(-1, 1, 2), (2, 3, 4)),
    "tril": (lambda lib, x: lib.tril(x), (3, 4)),
    "triu": (lambda lib, x: x.triu(1), (3, 4)),
    "tril_negative": (lambda lib, x: x.tril(-1), (2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_pytorch(name):
    fn, shape = OPS[name]
    _compare(fn, _values(len(name), shape), node="EinsumBackward" if "einsum" in name else None)


def test_sort_keeps_ties_in_order_and_puts_nan_last():
    data = np.array([[1.0, np.nan, 1.0, 0.0, 1.0, np.nan]], dtype=np.float32)
    for descending in (False, True):
        ours = nnref.tensor(data).sort(descending=descending)
        theirs = torch.tensor(data).sort(descending=descending)
        assert ours.indices.tolist() == theirs.indices.tolist()
        ours = nnref.tensor(data).sort(descending=descending, stable=True)
        theirs = torch.tensor(data).sort(descending=descending, stable=True)
        assert ours.indices.tolist() == theirs.indices.tolist()


def test_integer_reductions_match_pytorch_dtypes():
    for fn in (lambda lib: lib.arange(1, 6).prod(), lambda lib: lib.tensor([True, False, True]).cumsum(0),
               lambda lib: lib.arange(4, dtype=lib.int32).cumsum(0),
               lambda lib: lib.arange(1, 5, dtype=lib.int32).prod(),
               lambda lib: lib.logsumexp(lib.arange(3), 0)):
        ours, theirs = fn(nnref), fn(torch)
        assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
        assert_close(ours, theirs)


def test_prod_gradient_is_exact_with_zeros():
    data = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]], dtype=np.float32)
    _compare(lambda lib, x: x.prod(1), data)
    _compare(lambda lib, x: x.prod(), data[:1])


def test_inplace_scatter_and_triangles():
    def run(lib):
        x = lib.zeros(3, 4)
        x.scatter_(1, lib.tensor([[1], [2], [0]]), 5.0)
        x.scatter_add_(0, lib.tensor([[0, 1, 2, 0]]), lib.ones(1, 4))
        y = lib.ones(3, 3).triu_(1)
        z = lib.ones(3, 3).tril_()
        return x, y, z
    for a, b in zip(run(nnref), run(torch)):
        assert_close(a, b)


def test_diagonal_is_a_view():
    x = nnref.zeros(3, 3)
    x.diagonal().fill_(1)
    assert x.tolist() == torch.eye(3).tolist()


def test_predicates_match_pytorch():
    data = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], dtype=np.float32)
    for name in ("isnan", "isinf", "isfinite"):
        assert_close(getattr(nnref, name)(nnref.tensor(data)), getattr(torch, name)(torch.tensor(data)))
        assert_close(getattr(nnref.tensor(data), name)(), getattr(torch.tensor(data), name)())
        assert_close(getattr(nnref, name)(nnref.arange(3)), getattr(torch, name)(torch.arange(3)))


def test_constants_are_pytorchs():
    assert nnref.inf == torch.inf and nnref.pi == torch.pi and nnref.e == torch.e
    assert np.isnan(nnref.nan) and type(nnref.nan) is type(torch.nan)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16"])
def test_small_integer_dtypes_match_pytorch(name):
    ours = nnref.tensor([1, 2, 3], dtype=getattr(nnref, name))
    theirs = torch.tensor([1, 2, 3], dtype=getattr(torch, name))
    assert str(ours.dtype).split(".")[1] == name and ours.dtype.itemsize == theirs.dtype.itemsize
    for other in ("uint8", "int8", "int16", "int32", "int64", "float32", "bool"):
        assert dtype_name(nnref.promote_types(getattr(nnref, name), getattr(nnref, other))) == \
            dtype_name(torch.promote_types(getattr(torch, name), getattr(torch, other)))
    assert_close(ours + 1, theirs + 1)
    assert_close(ours * 2.5, theirs * 2.5)
    assert dtype_name(nnref.arange(3.0).byte().dtype) == "uint8"
    assert dtype_name(nnref.arange(3.0).char().dtype) == "int8"
    assert dtype_name(nnref.arange(3.0).short().dtype) == "int16"
    assert nnref.short is nnref.int16


def test_relu_inplace_forms():
    def run(lib):
        x = lib.tensor([-1.0, 2.0, -3.0])
        lib.relu_(x)
        y = lib.tensor([-1.0, 2.0])
        y.relu_()
        z = lib.tensor([-1.0, 4.0])
        lib.nn.functional.relu_(z)
        return x, y, z
    for a, b in zip(run(nnref), run(torch)):
        assert_close(a, b)


# --------------------------------------------------------------------------------------------
# Indexing, size=, out=, empty tensors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [range(2), range(0, 3, 2), [0, 2], (range(2), [1, 3]),
                                   (slice(None), range(1, 3)), [[0, 1], [1, 2]], [0, slice(1, 3)]])
def test_indexing_with_ranges_and_lists_matches_pytorch(index):
    data = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = torch.tensor(data)[index]
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = nnref.tensor(data)[index]
    assert_close(ours, theirs)
    assert [str(w.message)[:60] for w in ours_warned] == [str(w.message)[:60] for w in theirs_warned]


def test_setitem_with_range():
    def run(lib):
        x = lib.zeros(4, 3)
        x[range(1, 3)] = 1.0
        return x
    assert_close(run(nnref), run(torch))


@pytest.mark.parametrize("factory", [
    lambda lib: lib.zeros(size=(2, 3)), lambda lib: lib.ones(size=[2, 3], dtype=lib.float64),
    lambda lib: lib.empty(size=(4,)).zero_(), lambda lib: lib.full(size=(2,), fill_value=3.0)])
def test_size_keyword_matches_pytorch(factory):
    assert_close(factory(nnref), factory(torch))


def test_size_keyword_errors():
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        nnref.zeros(2, size=(2,))
    with pytest.raises(TypeError, match="unexpected keyword argument 'shape'"):
        nnref.ones(shape=(2,))


def test_inplace_ops_on_empty_tensors_raise_no_overlap_error():
    def run(lib):
        x = lib.zeros(8, 0).add_(1)
        y = lib.zeros(0)
        y[:] += 1
        z = lib.ones(0, 3)
        z.mul_(2)
        return x, y, z
    for a, b in zip(run(nnref), run(torch)):
        assert_close(a, b)


OUT_CASES = [
    (lambda lib, out: lib.add(lib.ones(2, 3), 2, out=out), (2, 3)),
    (lambda lib, out: lib.sub(lib.ones(2, 3), lib.ones(3), out=out), (2, 3)),
    (lambda lib, out: lib.mul(lib.arange(6.0).reshape(2, 3), 2, out=out), (2, 3)),
    (lambda lib, out: lib.div(lib.arange(6.0), 4, out=out), (6,)),
    (lambda lib, out: lib.matmul(lib.ones(2, 3), lib.ones(3, 4), out=out), (2, 4)),
    (lambda lib, out: lib.mm(lib.ones(2, 3), lib.ones(3, 4), out=out), (2, 4)),
    (lambda lib, out: lib.sum(lib.arange(6.0).reshape(2, 3), 1, out=out), (2,)),
    (lambda lib, out: lib.mean(lib.arange(6.0).reshape(2, 3), 0, out=out), (3,)),
    (lambda lib, out: lib.exp(lib.zeros(3), out=out), (3,)),
    (lambda lib, out: lib.cat([lib.ones(2), lib.zeros(2)], out=out), (4,)),
]


@pytest.mark.parametrize("index", range(len(OUT_CASES)))
def test_out_argument_writes_into_the_given_tensor(index):
    fn, shape = OUT_CASES[index]
    ours_out, theirs_out = nnref.empty(shape), torch.empty(shape)
    ours, theirs = fn(nnref, ours_out), fn(torch, theirs_out)
    assert ours is ours_out and theirs is theirs_out
    assert_close(ours_out, theirs_out)


def test_out_argument_casts_resizes_and_refuses_autograd_as_pytorch():
    out = nnref.empty(2, dtype=nnref.float64)
    nnref.add(nnref.ones(2), 1, out=out)
    assert out.dtype is nnref.float64 and out.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nnref.add(nnref.ones(2), 1.5, out=nnref.empty(0, dtype=nnref.int64))
    grown = nnref.empty(5)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        nnref.add(nnref.ones(2, 3), 1, out=grown)
    assert grown.shape == (2, 3)
    empty = nnref.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nnref.mul(nnref.ones(3), 2, out=empty)
    assert empty.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic differentiation"):
        nnref.add(nnref.ones(2, requires_grad=True), 1, out=nnref.empty(2))
    with nnref.no_grad():
        nnref.add(nnref.ones(2, requires_grad=True), 1, out=nnref.empty(2))


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(3, 4).topk(6),
    lambda lib: lib.ones(3, 4).chunk(0),
    lambda lib: lib.ones(3, 4).repeat(2),
    lambda lib: lib.ones(3, 4).split([1, 1]),
    lambda lib: lib.ones(3, 4).gather(1, lib.tensor([[5]])),
    lambda lib: lib.ones(3, 4).gather(1, lib.tensor([[1.0]])),
    lambda lib: lib.ones(3, 4).diagonal(0, 1, 1),
    lambda lib: lib.ones(3).tril(),
    lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3)),
])
def test_errors_have_pytorchs_type(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)):
        fn(nnref)
