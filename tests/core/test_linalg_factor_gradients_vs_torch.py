"""Gradients through eigenvectors (``linalg.eigh``), singular vectors (``linalg.svd``,
``torch.svd``) and QR factors (``linalg.qr``): PyTorch's formulas (``linalg_eig_backward``,
``svd_backward``, ``linalg_qr_backward`` in ``torch/csrc/autograd/FunctionsManual.cpp``),
checked against finite differences (gradcheck and gradgradcheck in float64) and against
PyTorch's gradients.

numpy's LAPACK (OpenBLAS) and PyTorch's (MKL) may choose another sign for an eigenvector or a
singular vector (any sign is an answer), so the losses compared with PyTorch are ones that do
not depend on those signs: squares of the vectors' entries, projectors, the rebuilt matrix.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

TALL, WIDE, SQUARE, BATCH = (5, 3), (3, 5), (4, 4), (2, 4, 3)


def matrix(shape, seed, symmetric=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a + np.swapaxes(a, -1, -2) if symmetric else a


def weights(L, t, seed):
    """Fixed random weights of ``t``'s shape, so the loss reaches every entry differently."""
    return L.tensor(np.random.default_rng(seed).standard_normal(tuple(t.shape)), dtype=L.float64)


def gradients(loss, a, create_graph=False):
    """``d loss / d A`` from nnref and from PyTorch; with ``create_graph``, also the gradient of
    a weighted sum of that gradient (a second derivative)."""
    results = []
    for L in (nnref, torch):
        A = L.tensor(a, dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(loss(L, A), A, create_graph=create_graph)
        if create_graph:
            (g,) = L.autograd.grad((g * weights(L, g, 99)).sum(), A)
        results.append(np.array(g.tolist()))
    return results


def assert_same_gradients(loss, a, create_graph=False):
    ours, theirs = gradients(loss, a, create_graph)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)


# ---------------------------------------------------------------------------------------------- eigh

def eigh_loss(L, A):
    values, vectors = L.linalg.eigh(A)
    return ((vectors * vectors) * weights(L, vectors, 1)).sum() + (values * weights(L, values, 2)).sum()


def eigh_projector_loss(L, A):
    vectors = L.linalg.eigh(A).eigenvectors[..., :2]  # the span of the two lowest eigenvectors
    projector = vectors @ vectors.mT
    return (projector * weights(L, projector, 3)).sum()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
@pytest.mark.parametrize("loss", [eigh_loss, eigh_projector_loss], ids=["squares", "projector"])
def test_eigh_vector_gradients_are_pytorchs(shape, loss):
    a = matrix(shape, 10, symmetric=True)
    assert_same_gradients(loss, a)
    assert_same_gradients(loss, a, create_graph=True)


def test_eigh_gradcheck():
    A = nnref.tensor(matrix((4, 4), 11), dtype=nnref.float64, requires_grad=True)
    # symmetrised inside: eigh reads one triangle, and the finite differences must stay symmetric
    assert nnref.autograd.gradcheck(lambda A: nnref.linalg.eigh(A + A.mT), (A,))
    assert nnref.autograd.gradgradcheck(lambda A: nnref.linalg.eigh(A + A.mT), (A,))


# ----------------------------------------------------------------------------------------------- svd

def svd_loss(full_matrices):
    def loss(L, A):
        U, S, Vh = L.linalg.svd(A, full_matrices=full_matrices)
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]  # PyTorch's gradient ignores a full U's (Vh's) extra columns (rows)
        rebuilt = (U * S.unsqueeze(-2)) @ Vh
        signless = U[..., :, :1] @ Vh[..., :1, :]  # the first singular pair's sign cancels
        return ((U * U) * weights(L, U, 4)).sum() + ((Vh * Vh) * weights(L, Vh, 5)).sum() \
            + (S * weights(L, S, 6)).sum() + (rebuilt * weights(L, rebuilt, 7)).sum() \
            + (signless * weights(L, signless, 8)).sum()
    return loss


def svd_vectors_only_loss(L, A):
    U, _, Vh = L.linalg.svd(A, full_matrices=False)
    return ((U * U) * weights(L, U, 4)).sum() + ((Vh * Vh) * weights(L, Vh, 5)).sum()


def svd_left_only_loss(L, A):
    U = L.linalg.svd(A, full_matrices=False).U
    return ((U * U) * weights(L, U, 4)).sum()


def svd_right_only_loss(L, A):
    Vh = L.linalg.svd(A, full_matrices=False).Vh
    return ((Vh * Vh) * weights(L, Vh, 5)).sum()


def legacy_svd_loss(L, A):
    U, S, V = L.svd(A)
    signless = U[..., :, :1] @ V[..., :, :1].mT
    return ((V * V) * weights(L, V, 9)).sum() + (signless * weights(L, signless, 8)).sum()


@pytest.mark.parametrize("shape", [TALL, WIDE, SQUARE, BATCH])
@pytest.mark.parametrize("loss", [svd_loss(False), svd_loss(True), svd_vectors_only_loss, svd_left_only_loss,
                                  svd_right_only_loss, legacy_svd_loss],
                         ids=["reduced", "full", "vectors", "U", "Vh", "torch.svd"])
def test_svd_vector_gradients_are_pytorchs(shape, loss):
    assert_same_gradients(loss, matrix(shape, 12))


@pytest.mark.parametrize("shape", [TALL, WIDE])
def test_svd_second_derivatives_are_pytorchs(shape):
    assert_same_gradients(svd_loss(False), matrix(shape, 13), create_graph=True)


@pytest.mark.parametrize("shape", [TALL, WIDE, SQUARE, BATCH])
def test_svd_gradcheck(shape):
    A = nnref.tensor(matrix(shape, 14), dtype=nnref.float64, requires_grad=True)
    assert nnref.autograd.gradcheck(lambda A: nnref.linalg.svd(A, full_matrices=False), (A,))
    assert nnref.autograd.gradgradcheck(lambda A: nnref.linalg.svd(A, full_matrices=False), (A,))
    assert nnref.autograd.gradcheck(lambda A: nnref.svd(A), (A,))


def test_torch_svd_is_linalg_svd_with_v():
    a = matrix(TALL, 15)
    for some in (True, False):
        for compute_uv in (True, False):
            ours = nnref.svd(nnref.tensor(a, requires_grad=True), some=some, compute_uv=compute_uv)
            theirs = torch.svd(torch.tensor(a, requires_grad=True), some=some, compute_uv=compute_uv)
            assert type(ours).__name__ == type(theirs).__name__ == "svd"
            assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
            assert [type(t.grad_fn).__name__ for t in ours] == [type(t.grad_fn).__name__ for t in theirs]
            np.testing.assert_allclose(ours.S.tolist(), theirs.S.tolist(), rtol=1e-12)
            if not compute_uv:
                assert not ours.U.any() and not ours.V.any()
    assert tuple(nnref.tensor(a).svd().V.shape) == (3, 3)


# ------------------------------------------------------------------------------------------------ qr

def qr_loss(which):
    def loss(L, A):
        Q, R = L.linalg.qr(A, mode="complete" if which == "complete" else "reduced")
        # Householder QR fixes the signs (R's diagonal), but squares keep the test independent of LAPACK
        parts = {"Q": [Q * Q], "R": [R * R], "both": [Q * Q, R * R, Q], "complete": [Q * Q, R * R]}[which]
        return sum((p * weights(L, p, 20 + i)).sum() for i, p in enumerate(parts))
    return loss


@pytest.mark.parametrize("shape", [TALL, WIDE, SQUARE, BATCH])
@pytest.mark.parametrize("which", ["Q", "R", "both"])
def test_qr_gradients_are_pytorchs(shape, which):
    a = matrix(shape, 16)
    if which == "both":
        # the loss reads Q itself: compare only where both libraries chose the same factors
        ours, theirs = nnref.linalg.qr(nnref.tensor(a)), torch.linalg.qr(torch.tensor(a))
        np.testing.assert_allclose(ours.Q.tolist(), theirs.Q.numpy(), atol=1e-12)
    assert_same_gradients(qr_loss(which), a)
    assert_same_gradients(qr_loss(which), a, create_graph=True)


@pytest.mark.parametrize("shape", [WIDE, SQUARE])
def test_qr_complete_gradients_are_pytorchs_where_differentiable(shape):
    assert_same_gradients(qr_loss("complete"), matrix(shape, 17))


@pytest.mark.parametrize("shape", [TALL, WIDE, SQUARE, BATCH])
def test_qr_gradcheck(shape):
    A = nnref.tensor(matrix(shape, 18), dtype=nnref.float64, requires_grad=True)
    assert nnref.autograd.gradcheck(lambda A: nnref.linalg.qr(A), (A,))
    assert nnref.autograd.gradgradcheck(lambda A: nnref.linalg.qr(A), (A,))


@pytest.mark.parametrize("mode, shape", [("r", TALL), ("complete", TALL)])
def test_qr_refuses_the_gradients_pytorch_refuses(mode, shape):
    def error(L):
        A = L.tensor(matrix(shape, 19), requires_grad=True)
        Q, R = L.linalg.qr(A, mode=mode)
        with pytest.raises(RuntimeError) as info:
            R.sum().backward()
        return str(info.value)
    assert error(nnref) == error(torch)


def test_the_graph_names_the_nodes_as_pytorch():
    a = matrix(SQUARE, 20, symmetric=True)
    for f in (lambda L, A: L.linalg.eigh(A), lambda L, A: L.linalg.svd(A), lambda L, A: L.linalg.qr(A),
              lambda L, A: L.svd(A)):
        names = [[type(t.grad_fn).__name__ for t in f(L, L.tensor(a, requires_grad=True))] for L in (nnref, torch)]
        assert names[0] == names[1]
