"""``nnref.linalg`` against ``torch.linalg``: values, dtypes, shapes, grad_fn names, first and second
derivatives, errors and their types (norms, det/slogdet/logdet, inv, solve, cholesky, svdvals)."""
import math

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

DTYPES = {"float32": (nnref.float32, torch.float32, dict(rtol=1e-4, atol=1e-5)),
          "float64": (nnref.float64, torch.float64, dict(rtol=1e-9, atol=1e-10))}


def pair(array, dtype="float64", grad=True):
    ours, theirs, _ = DTYPES[dtype]
    return (nnref.tensor(array, dtype=ours, requires_grad=grad),
            torch.tensor(array, dtype=theirs, requires_grad=grad))


def close(ours, theirs, tol):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(force=True), **tol)


def well_conditioned(rng, shape):
    n = shape[-1]
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def check_grads(f, arrays, dtype="float64", second=True):
    """Value, grad_fn name, first and second derivatives of ``f`` (a function of the library)
    against torch, through ``autograd.grad(create_graph=True)`` with fixed weights."""
    _, _, tol = DTYPES[dtype]
    ours = [pair(a, dtype)[0] for a in arrays]
    theirs = [pair(a, dtype)[1] for a in arrays]
    out_o, out_t = f(nnref, *ours), f(torch, *theirs)
    close(out_o, out_t, tol)
    assert type(out_o.grad_fn).__name__ == type(out_t.grad_fn).__name__
    w = np.linspace(-1.0, 1.0, out_t.numel()).reshape(tuple(out_t.shape))
    g_o = nnref.autograd.grad((out_o * nnref.tensor(w, dtype=out_o.dtype)).sum(), ours, create_graph=second)
    g_t = torch.autograd.grad((out_t * torch.tensor(w, dtype=out_t.dtype)).sum(), theirs, create_graph=second)
    for a, b in zip(g_o, g_t):
        close(a, b, dict(rtol=tol["rtol"] * 100, atol=tol["atol"] * 100))
    if second:
        s_o = nnref.autograd.grad(sum((g * g).sum() for g in g_o), ours)
        s_t = torch.autograd.grad(sum((g * g).sum() for g in g_t), theirs)
        for a, b in zip(s_o, s_t):
            close(a, b, dict(rtol=tol["rtol"] * 1000, atol=tol["atol"] * 1000))


def raises_like(f, *arrays, dtype="float64"):
    """``f`` raises what torch raises: LinAlgError where torch's is one, else the same type, and
    the same message."""
    ours = [nnref.tensor(a, dtype=DTYPES[dtype][0]) for a in arrays]
    theirs = [torch.tensor(a, dtype=DTYPES[dtype][1]) for a in arrays]
    with pytest.raises(Exception) as expected:
        f(torch, *theirs)
    with pytest.raises(Exception) as got:
        f(nnref, *ours)
    if isinstance(expected.value, torch.linalg.LinAlgError):
        assert isinstance(got.value, nnref.linalg.LinAlgError)
    else:
        assert type(got.value) is type(expected.value) and not isinstance(got.value, nnref.linalg.LinAlgError)
    assert str(got.value) == str(expected.value)


# --------------------------------------------------------------------------------------- norms ---

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", [2, 1, math.inf, -math.inf, 0, 0.5, 3, -1, -2.5])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), ((0, 2), True), (-1, True), ([], False)])
def test_vector_norm(dtype, ord, dim, keepdim):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    x[0, 0] = 0.0  # a zero vector: PyTorch's subgradient
    f = lambda L, t: L.linalg.vector_norm(t, ord, dim, keepdim)  # noqa: E731
    if ord == 0:  # a count: no gradient at all, in both
        o, t = pair(x, dtype)
        close(f(nnref, o), f(torch, t), DTYPES[dtype][2])
        for L, v in ((nnref, o), (torch, t)):
            with pytest.raises(RuntimeError, match="appears to not have been used"):
                L.autograd.grad(f(L, v).sum(), v)
        return
    second = ord not in (math.inf, -math.inf) and ord >= 1
    check_grads(f, [x], dtype, second=second)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf, 2, -2, "nuc"])
@pytest.mark.parametrize("dim, keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False), ((1, 0), True)])
def test_matrix_norm(dtype, ord, dim, keepdim):
    x = np.random.default_rng(1).standard_normal((3, 4, 5))
    check_grads(lambda L, t: L.linalg.matrix_norm(t, ord, dim, keepdim), [x], dtype)


@pytest.mark.parametrize("shape, ord, dim", [
    ((5,), None, None), ((3, 4), None, None), ((2, 3, 4), None, None), ((3, 4), 1, None),
    ((3, 4), "fro", None), ((4,), 3, None), ((2, 3, 4), math.inf, (1, 2)), ((2, 3, 4), 2, 1),
    ((2, 3, 4), None, (0, 2)), ((3, 4), "nuc", None), ((2, 3, 4), "fro", (0, 1))])
def test_norm_dispatches_as_pytorch(shape, ord, dim):
    x = np.random.default_rng(2).standard_normal(shape)
    second = ord not in ("nuc",)
    check_grads(lambda L, t: L.linalg.norm(t, ord, dim), [x], second=second)


def test_norm_dtype_argument():
    x = np.random.default_rng(3).standard_normal((3, 4))
    o, t = pair(x, "float32")
    for f in (lambda L, t: L.linalg.vector_norm(t, dtype=L.float64),
              lambda L, t: L.linalg.matrix_norm(t, 1, dtype=L.float64),
              lambda L, t: L.linalg.norm(t, dtype=L.float64)):
        a, b = f(nnref, o), f(torch, t)
        close(a, b, DTYPES["float32"][2])
        close(nnref.autograd.grad(a, o)[0], torch.autograd.grad(b, t)[0], DTYPES["float32"][2])


@pytest.mark.parametrize("f, shape, dtype", [
    (lambda L, t: L.linalg.vector_norm(t.long()), (3,), "float32"),
    (lambda L, t: L.linalg.vector_norm(t, dtype=L.int64), (3,), "float32"),
    (lambda L, t: L.linalg.vector_norm(t, dtype=L.float16), (3,), "float32"),
    (lambda L, t: L.linalg.vector_norm(t, dtype=L.float32), (3,), "float64"),
    (lambda L, t: L.linalg.vector_norm(t, ord="fro"), (3,), "float32"),
    (lambda L, t: L.linalg.vector_norm(t[:0], ord=math.inf), (3,), "float32"),
    (lambda L, t: L.linalg.vector_norm(t[:, :0], ord=-1, dim=1), (3, 2), "float32"),
    (lambda L, t: L.linalg.vector_norm(t, dim=(0, -2)), (3, 2), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t), (3,), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t, ord=3), (3, 3), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t, ord="abc"), (3, 3), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t, dim=(1, 1)), (3, 3), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t, dim=(0,)), (3, 3), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t.long()), (3, 3), "float32"),
    (lambda L, t: L.linalg.matrix_norm(t.half(), ord=2), (3, 3), "float32"),
    (lambda L, t: L.linalg.norm(t, ord=2), (2, 3, 3), "float32"),
    (lambda L, t: L.linalg.norm(t, ord="fro"), (2, 3, 3), "float32"),
    (lambda L, t: L.linalg.norm(t, dim=(0, 1, 2)), (2, 3, 3), "float32"),
])
def test_norm_errors(f, shape, dtype):
    raises_like(f, np.ones(shape), dtype=dtype)


def test_norm_empty_and_low_precision():
    for f in (lambda L: L.linalg.vector_norm(L.ones(0, 3), dim=1), lambda L: L.linalg.matrix_norm(L.ones(0, 3), 1),
              lambda L: L.linalg.matrix_norm(L.arange(6.0).reshape(2, 3).half(), 1),
              lambda L: L.linalg.vector_norm(L.arange(6.0).half(), 3)):
        a, b = f(nnref), f(torch)
        close(a, b, dict(rtol=1e-3, atol=1e-3))


# -------------------------------------------------------------------------- det, slogdet, logdet ---

SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_det_slogdet_logdet(dtype, shape):
    a = np.random.default_rng(4).standard_normal(shape) + 0.5 * np.eye(shape[-1])
    one = shape[-1] == 1  # PyTorch's det gradient of a 1x1 matrix is a constant 1: no graph
    check_grads(lambda L, t: L.linalg.det(t), [a], dtype, second=not one)
    check_grads(lambda L, t: L.det(t), [a], dtype, second=not one)
    check_grads(lambda L, t: L.linalg.slogdet(t)[1], [a], dtype)
    check_grads(lambda L, t: t.slogdet().logabsdet, [a], dtype)
    check_grads(lambda L, t: L.logdet(t @ t.mT), [a], dtype)
    check_grads(lambda L, t: t.det() * t.logdet().nan_to_num(0.0), [a], dtype, second=not one)


def test_slogdet_return_types_and_logdet_of_negative_determinants():
    a = np.diag([-1.0, 2.0, 3.0])
    o, t = pair(a)
    assert repr(nnref.linalg.slogdet(o)) == repr(torch.linalg.slogdet(t))
    assert repr(nnref.slogdet(o)) == repr(torch.slogdet(t))
    assert repr(o.slogdet()) == repr(t.slogdet())
    assert repr(nnref.logdet(o)) == repr(torch.logdet(t))
    assert repr(nnref.linalg.slogdet(o * 0)) == repr(torch.linalg.slogdet(t * 0))


def test_det_gradient_at_a_singular_matrix_is_zero_as_in_pytorch():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    o, t = pair(a)
    close(nnref.autograd.grad(nnref.linalg.det(o), o)[0], torch.autograd.grad(torch.linalg.det(t), t)[0],
          dict(rtol=1e-7, atol=1e-9))
    o, t = pair(np.stack([a, np.eye(3)]))
    close(nnref.autograd.grad(nnref.linalg.det(o).sum(), o)[0], torch.autograd.grad(torch.linalg.det(t).sum(), t)[0],
          dict(rtol=1e-7, atol=1e-9))


def test_empty_matrices():
    for f in (lambda L: L.linalg.det(L.ones(0, 0)), lambda L: L.linalg.inv(L.ones(0, 0)),
              lambda L: L.linalg.det(L.ones(2, 0, 0))):
        close(f(nnref), f(torch), DTYPES["float32"][2])


# ---------------------------------------------------------------------------------- inv, solve ---

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inv(dtype, shape):
    a = well_conditioned(np.random.default_rng(5), shape)
    check_grads(lambda L, t: L.linalg.inv(t), [a], dtype)
    check_grads(lambda L, t: L.inverse(t), [a], dtype)
    check_grads(lambda L, t: t.inverse(), [a], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape, b_shape, left", [
    ((3, 3), (3,), True), ((3, 3), (3, 2), True), ((3, 3), (2, 3), False), ((2, 3, 3), (2, 3), True),
    ((2, 3, 3), (3, 3), True), ((2, 3, 3), (4, 1, 3, 2), True), ((3, 3), (4, 3, 2), True),
    ((2, 1, 3, 3), (5, 2, 3), False), ((1, 1), (1,), True)])
def test_solve(dtype, a_shape, b_shape, left):
    rng = np.random.default_rng(6)
    a, b = well_conditioned(rng, a_shape), rng.standard_normal(b_shape)
    check_grads(lambda L, A, B: L.linalg.solve(A, B, left=left), [a, b], dtype)


@pytest.mark.parametrize("f, arrays", [
    (lambda L, a: L.linalg.inv(a), [np.zeros((3, 3))]),
    (lambda L, a: L.linalg.inv(a), [np.zeros((2, 3, 3))]),
    (lambda L, a: L.linalg.inv(a), [np.stack([np.eye(3), np.diag([1.0, 0.0, 1.0])])]),
    (lambda L, a: L.inverse(a), [np.ones((2, 3))]),
    (lambda L, a: L.linalg.inv(a), [np.ones(3)]),
    (lambda L, a: L.linalg.inv(a.long()), [np.eye(3)]),
    (lambda L, a: L.linalg.inv(a.half()), [np.eye(3)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.zeros((3, 3)), np.ones(3)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.stack([np.eye(3), np.zeros((3, 3))]), np.ones((2, 3))]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 3)), np.ones(2)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.eye(2), np.ones((3, 1))]),
    (lambda L, a, b: L.linalg.solve(a, b, left=False), [np.eye(3), np.ones((3, 1))]),
    (lambda L, a, b: L.linalg.solve(a, b, left=False), [np.eye(3), np.ones(3)]),
    (lambda L, a, b: L.linalg.solve(a, b.double()), [np.eye(3), np.ones(3)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 3, 3)), np.ones((4, 2, 3))]),
    (lambda L, a, b: L.linalg.solve(a.half(), b.half()), [np.eye(3), np.ones(3)]),
    (lambda L, a: L.linalg.det(a), [np.ones((3, 4))]),
    (lambda L, a: L.linalg.det(a), [np.ones(3)]),
    (lambda L, a: L.linalg.det(a.long()), [np.eye(3)]),
    (lambda L, a: L.linalg.det(a.half()), [np.eye(3)]),
    (lambda L, a: L.linalg.slogdet(a.half()), [np.eye(3)]),
    (lambda L, a: L.logdet(a), [np.ones((2, 3))]),
    (lambda L, a: L.logdet(a.long()), [np.eye(2)]),
    (lambda L, a: L.linalg.cholesky(a), [-np.eye(3)]),
    (lambda L, a: L.linalg.cholesky(a), [np.array([[1.0, 2.0], [2.0, 1.0]])]),
    (lambda L, a: L.linalg.cholesky(a), [np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0])])]),
    (lambda L, a: L.linalg.cholesky(a, upper=True), [np.array([[1.0, 2.0], [0.0, 1.0]])]),
    (lambda L, a: L.linalg.cholesky(a), [np.ones((2, 3))]),
    (lambda L, a: L.linalg.cholesky(a.half()), [np.eye(2)]),
    (lambda L, a: L.linalg.cholesky(a.long()), [np.eye(2)]),
])
def test_errors(f, arrays):
    raises_like(f, *arrays, dtype="float32")


def test_linalg_error_is_a_runtime_error():
    assert issubclass(nnref.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError, match="singular"):
        nnref.linalg.inv(nnref.zeros(2, 2))


# ------------------------------------------------------------------------------------ cholesky ---

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, shape, upper):
    a = well_conditioned(np.random.default_rng(7), shape)
    check_grads(lambda L, t: L.linalg.cholesky(t, upper=upper), [a], dtype)
    # the gradient of the symmetrised input (what a user differentiates in practice)
    check_grads(lambda L, t: L.linalg.cholesky((t + t.mT) / 2, upper=upper), [a], dtype)


def test_cholesky_reads_one_triangle_as_pytorch():
    a = well_conditioned(np.random.default_rng(8), (3, 3))
    a[0, 2] += 5.0  # not symmetric: lower=False reads the lower triangle, upper=True the upper one
    for upper in (False, True):
        close(nnref.linalg.cholesky(nnref.tensor(a), upper=upper), torch.linalg.cholesky(torch.tensor(a), upper=upper),
              DTYPES["float64"][2])


# ------------------------------------------------------------------------------------- svdvals ---

@pytest.mark.parametrize("shape", [(3, 4), (2, 5, 3)])
def test_svdvals(shape):
    a = np.random.default_rng(9).standard_normal(shape)
    check_grads(lambda L, t: L.linalg.svdvals(t), [a])


def test_out_and_namespace():
    o, t = pair(np.eye(3) * 2, grad=False)
    out_o, out_t = nnref.empty(0, dtype=nnref.float64), torch.empty(0, dtype=torch.float64)
    nnref.linalg.inv(o, out=out_o), torch.linalg.inv(t, out=out_t)
    close(out_o, out_t, DTYPES["float64"][2])
    assert set(nnref.linalg.__all__) <= set(dir(torch.linalg))
