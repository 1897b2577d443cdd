"""The namespaces programs import at the top, against PyTorch: ``torch.functional``,
``torch.onnx``, ``torch.linalg``'s products (``cross``, ``matmul``, ``vecdot``, ``multi_dot``,
``matrix_power``) and ``distributions.Multinomial`` (values, gradients, errors, random draws)."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

from test_linalg_vs_torch import check_grads, close, raises_like  # noqa: E402

F64 = dict(rtol=1e-9, atol=1e-10)
MISSING = ["stft", "istft", "lu", "pca_lowrank", "svd_lowrank"]  # torch.functional's names nnref lacks


# ------------------------------------------------------------------------------ torch.functional ---

def test_functional_names_are_pytorchs_and_the_top_levels():
    import nnref.functional
    import torch.functional
    assert nnref.functional.__all__ == torch.functional.__all__
    for name in nnref.functional.__all__:
        ours = getattr(nnref.functional, name)
        assert callable(ours)
        if name not in MISSING:  # the same object as the top level's, as in PyTorch
            assert getattr(torch.functional, name) is getattr(torch, name)
            assert ours is getattr(nnref, name), name


def test_functional_functions_compute_as_pytorchs():
    from nnref.functional import einsum, meshgrid, norm, split, unique
    import torch.functional as tf
    a = np.arange(6.0).reshape(2, 3)
    close(einsum("ij,kj->ik", nnref.tensor(a), nnref.tensor(a)), tf.einsum("ij,kj->ik", torch.tensor(a), torch.tensor(a)), F64)
    close(norm(nnref.tensor(a)), tf.norm(torch.tensor(a)), F64)
    assert [tuple(p.shape) for p in split(nnref.tensor(a), 1, dim=1)] == [tuple(p.shape) for p in tf.split(torch.tensor(a), 1, dim=1)]
    close(unique(nnref.tensor([3, 1, 3])), tf.unique(torch.tensor([3, 1, 3])), F64)
    for ours, theirs in zip(meshgrid(nnref.tensor([1, 2]), nnref.tensor([3, 4, 5]), indexing="ij"),
                            tf.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")):
        close(ours, theirs, F64)


@pytest.mark.parametrize("name", MISSING)
def test_functional_names_nnref_lacks_say_so(name):
    with pytest.raises(NotImplementedError, match=f"nnref does not implement torch.{name}"):
        getattr(nnref.functional, name)(nnref.ones(4, 4))


def test_chain_matmul_warns_as_pytorch_and_multiplies():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 2))]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        ours = nnref.chain_matmul(*[nnref.tensor(a) for a in arrays])
    with warnings.catch_warnings(record=True) as expected:
        warnings.simplefilter("always")
        theirs = torch.chain_matmul(*[torch.tensor(a) for a in arrays])
    close(ours, theirs, F64)
    assert [str(w.message) for w in got] == [str(w.message).split(" (Triggered internally")[0] for w in expected]
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        one = nnref.chain_matmul(nnref.tensor(arrays[0], requires_grad=True))
    assert type(one.grad_fn).__name__ == "CloneBackward0"


# ------------------------------------------------------------------------------------ torch.onnx ---

def test_onnx_imports_and_export_names_the_way_out(tmp_path):
    import nnref.onnx
    from nnref.onnx import OnnxExporterError  # noqa: F401 - programs import it
    assert nnref.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    assert issubclass(nnref.onnx.errors.OnnxExporterError, RuntimeError)
    with pytest.raises(NotImplementedError, match=r"torch.save\(model.state_dict\(\), path\)"):
        nnref.onnx.export(nnref.nn.Linear(2, 1), (nnref.ones(1, 2),), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()


# ---------------------------------------------------------------------------- linalg products ---

def test_linalg_namespace_has_what_tutorials_call():
    for name in ("cross", "matmul", "vecdot", "multi_dot", "matrix_power", "norm", "vector_norm", "matrix_norm",
                 "inv", "det", "solve", "cholesky", "svdvals", "slogdet"):
        assert callable(getattr(nnref.linalg, name)) and name in nnref.linalg.__all__


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((4, 3), (4, 3)), ((1, 3), (5, 3)), ((2, 1, 3), (1, 4, 3))])
def test_linalg_cross(shapes):
    rng = np.random.default_rng(1)
    check_grads(lambda L, a, b: L.linalg.cross(a, b), [rng.standard_normal(s) for s in shapes])


def test_linalg_cross_dim_and_errors():
    rng = np.random.default_rng(2)
    check_grads(lambda L, a, b: L.linalg.cross(a, b, dim=0), [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))])
    raises_like(lambda L, a, b: L.linalg.cross(a, b), rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))
    raises_like(lambda L, a, b: L.linalg.cross(a, b), rng.standard_normal(3), rng.standard_normal((2, 3)))


@pytest.mark.parametrize("shapes", [((3,), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2))])
def test_linalg_matmul(shapes):
    rng = np.random.default_rng(3)
    check_grads(lambda L, a, b: L.linalg.matmul(a, b), [rng.standard_normal(s) for s in shapes])


@pytest.mark.parametrize("shapes, dim", [(((3,), (3,)), -1), (((4, 3), (3,)), -1), (((3, 5), (3, 1)), 0)])
def test_linalg_vecdot(shapes, dim):
    rng = np.random.default_rng(4)
    check_grads(lambda L, a, b: L.linalg.vecdot(a, b, dim=dim), [rng.standard_normal(s) for s in shapes])


def test_linalg_vecdot_errors():
    raises_like(lambda L, a, b: L.linalg.vecdot(a, b.float()), np.ones(3), np.ones(3))
    raises_like(lambda L, a, b: L.linalg.vecdot(a.long(), b.long()), np.ones(3), np.ones(3))


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((5,), (5, 2), (2, 6)), ((2, 30), (30, 3), (3, 40)),
                                    ((4,), (4, 9), (9, 2), (2, 7), (7,)), ((3, 10), (10, 2), (2, 8), (8, 1))])
def test_linalg_multi_dot(shapes):
    rng = np.random.default_rng(5)
    check_grads(lambda L, *ts: L.linalg.multi_dot(ts), [rng.standard_normal(s) for s in shapes])


def test_linalg_multi_dot_multiplies_in_pytorchs_order():
    # the order decides the rounding; the graphs show it (which mm feeds which)
    from core_helpers import graph_signature
    rng = np.random.default_rng(6)
    for shapes in (((7, 30), (30, 2), (2, 50), (50, 3), (3, 9)), ((2, 30), (30, 3), (3, 40)),
                   ((40, 3), (3, 30), (30, 2)), ((5, 1), (1, 5), (5, 1), (1, 5))):
        arrays = [rng.standard_normal(s) for s in shapes]
        signatures = []
        for L in (nnref, torch):
            leaves = [L.tensor(a, requires_grad=True) for a in arrays]
            signatures.append(graph_signature(L.linalg.multi_dot(leaves).grad_fn, leaves))
        assert signatures[0] == signatures[1]


@pytest.mark.parametrize("arrays", [[np.ones((2, 3))], [np.ones((2, 2, 2)), np.ones((2, 2))],
                                    [np.ones((2, 2)), np.ones((3, 2))], [np.ones((2, 2)), np.ones((2, 2, 2)), np.ones(2)]])
def test_linalg_multi_dot_errors(arrays):
    raises_like(lambda L, *ts: L.linalg.multi_dot(ts), *arrays)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, -1, -3])
def test_linalg_matrix_power(n):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 3, 3)) / 2 + 2 * np.eye(3)
    check_grads(lambda L, t: L.linalg.matrix_power(t, n), [a], second=n not in (0, 1))  # 0, 1: constant grads
    raises_like(lambda L, t: L.linalg.matrix_power(t, n), np.ones((2, 3)))


# ------------------------------------------------------------------------------- Multinomial ---

def both(f):
    return f(nnref), f(torch)


def test_multinomial_samples_pytorchs_draws():
    def draws(L):
        L.manual_seed(0)
        m = L.distributions.Multinomial(10, probs=L.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]))
        return m.sample(), m.sample((4,)), L.distributions.Multinomial(logits=L.tensor([0.5, -1.0])).sample((3, 2))
    for ours, theirs in zip(*both(draws)):
        close(ours, theirs, F64)


def test_multinomial_log_prob_entropy_moments_and_grads():
    rng = np.random.default_rng(8)
    probs = rng.uniform(0.1, 1.0, (2, 4))
    probs[0, 1] = probs[0, 0]  # equal probabilities: logits exactly 0 after normalising, the kink
    counts = np.array([[1.0, 0.0, 3.0, 2.0], [0.0, 0.0, 6.0, 0.0]])
    check_grads(lambda L, p: L.distributions.Multinomial(6, probs=p).log_prob(L.tensor(counts)), [probs])
    check_grads(lambda L, p: L.distributions.Multinomial(6, logits=p).log_prob(L.tensor(counts)), [probs])
    check_grads(lambda L, p: L.distributions.Multinomial(6, probs=p).entropy(), [probs])
    check_grads(lambda L, p: L.distributions.Multinomial(3, probs=p).mean, [probs], second=False)
    check_grads(lambda L, p: L.distributions.Multinomial(3, probs=p).variance, [probs])
    p = np.array([0.5, 0.5])
    check_grads(lambda L, t: L.distributions.Multinomial(4, probs=t).entropy(), [p])


def test_multinomial_shapes_support_and_errors():
    ours, theirs = both(lambda L: L.distributions.Multinomial(5, probs=L.ones(2, 3)))
    assert (ours.batch_shape, ours.event_shape) == (theirs.batch_shape, theirs.event_shape)
    assert ours.expand((4, 2)).batch_shape == theirs.expand((4, 2)).batch_shape
    assert repr(ours) == repr(theirs) and repr(ours.support) == repr(theirs.support)
    close(ours.support.check(nnref.tensor([[1.0, 2.0, 2.0], [4.0, 2.0, 0.0]])),
          theirs.support.check(torch.tensor([[1.0, 2.0, 2.0], [4.0, 2.0, 0.0]])), F64)
    zero = both(lambda L: L.distributions.Multinomial(logits=L.tensor([0.0, -float("inf"), 1.0]), validate_args=False)
                .log_prob(L.tensor([2.0, 0.0, 3.0])))
    close(*zero, F64)
    for bad in (lambda L: L.distributions.Multinomial(L.tensor(3), probs=L.ones(2)),
                lambda L: L.distributions.Multinomial(3),
                lambda L: L.distributions.Multinomial(3, probs=L.ones(2)).log_prob(L.tensor([-1.0, 1.0]))):
        with pytest.raises(Exception) as expected:
            bad(torch)
        with pytest.raises(type(expected.value)) as got:
            bad(nnref)
        assert str(got.value) == str(expected.value)


# ------------------------------------------------------------------------ linalg factorizations ---

def spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_linalg_eigvalsh_and_eigh_values(shape):
    rng = np.random.default_rng(10)
    a = spd(rng, shape)
    check_grads(lambda L, t: L.linalg.eigvalsh(t), [a], second=False)
    check_grads(lambda L, t: L.linalg.eigh(t).eigenvalues, [a], second=False)
    check_grads(lambda L, t: L.linalg.eigvalsh(t, UPLO="U"), [a + np.tril(np.ones(shape[-2:]), -1)], second=False)
    ours, theirs = nnref.linalg.eigh(nnref.tensor(a)), torch.linalg.eigh(torch.tensor(a))
    # eigenvectors up to sign: |V| and the reconstruction
    close(ours.eigenvectors.abs(), theirs.eigenvectors.abs(), dict(rtol=1e-7, atol=1e-9))
    rebuilt = ours.eigenvectors @ nnref.diag_embed(ours.eigenvalues) @ ours.eigenvectors.mT
    np.testing.assert_allclose(rebuilt.numpy(), a, rtol=1e-10, atol=1e-10)
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_eigh"


@pytest.mark.parametrize("shape, full", [((4, 3), False), ((3, 5), True), ((2, 3, 3), False)])
def test_linalg_svd_values_shapes_and_singular_value_grads(shape, full):
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape)
    ours, theirs = nnref.linalg.svd(nnref.tensor(a), full_matrices=full), torch.linalg.svd(torch.tensor(a), full_matrices=full)
    for x, y in zip(ours, theirs):
        assert tuple(x.shape) == tuple(y.shape)
    close(ours.S, theirs.S, F64)
    close(ours.U.abs(), theirs.U.abs(), dict(rtol=1e-7, atol=1e-9))
    check_grads(lambda L, t: L.linalg.svd(t, full_matrices=full).S, [a], second=False)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_linalg_qr(mode, shape):
    a = np.random.default_rng(13).standard_normal(shape)
    ours, theirs = nnref.linalg.qr(nnref.tensor(a), mode=mode), torch.linalg.qr(torch.tensor(a), mode=mode)
    for x, y in zip(ours, theirs):
        assert tuple(x.shape) == tuple(y.shape)
        close(x.abs(), y.abs(), dict(rtol=1e-7, atol=1e-9))
    raises_like(lambda L, t: L.linalg.qr(t, mode="full"), a)


@pytest.mark.parametrize("kwargs", [{}, {"hermitian": True}, {"atol": 1.0}, {"rtol": 0.3}, {"atol": 0.5, "rtol": 0.01}])
def test_linalg_matrix_rank_and_pinv(kwargs):
    rng = np.random.default_rng(14)
    low = rng.standard_normal((4, 2)) @ rng.standard_normal((2, 4))  # rank 2
    for a in (low @ low.T, spd(rng, (2, 3, 3))):
        ours, theirs = nnref.linalg.matrix_rank(nnref.tensor(a), **kwargs), torch.linalg.matrix_rank(torch.tensor(a), **kwargs)
        assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)
        close(nnref.linalg.pinv(nnref.tensor(a), **kwargs), torch.linalg.pinv(torch.tensor(a), **kwargs),
              dict(rtol=1e-7, atol=1e-9))


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_linalg_pinv_gradients(shape):
    a = np.random.default_rng(15).standard_normal(shape)
    check_grads(lambda L, t: L.linalg.pinv(t), [a], second=False)


@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 4, 3), (2, 4, 1)), ((3, 3), (3, 2))])
def test_linalg_lstsq(shapes):
    rng = np.random.default_rng(16)
    arrays = [rng.standard_normal(s) for s in shapes]
    check_grads(lambda L, a, b: L.linalg.lstsq(a, b).solution, arrays, second=False)
    ours = nnref.linalg.lstsq(*[nnref.tensor(x) for x in arrays])
    theirs = torch.linalg.lstsq(*[torch.tensor(x) for x in arrays])
    assert ours.rank.tolist() == theirs.rank.tolist() and type(ours).__name__ == type(theirs).__name__
    for x, y in zip(ours[1:], theirs[1:]):
        assert tuple(x.shape) == tuple(y.shape) and str(x.dtype) == str(y.dtype)


def test_distributions_nnref_lacks_say_so():
    import torch.distributions
    missing = sorted(set(torch.distributions.__all__) - set(dir(nnref.distributions)))
    assert missing and "Multinomial" not in missing
    for name in missing:
        with pytest.raises(AttributeError, match=f"nnref does not implement torch.distributions.{name}:"):
            getattr(nnref.distributions, name)
    assert not hasattr(nnref.distributions, "Binomial")
