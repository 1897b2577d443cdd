"""The factorizations tutorials call: ``torch.linalg.eigh``/``eigvalsh``, ``svd``, ``qr``,
``pinv``, ``lstsq`` and ``matrix_rank`` (``aten/src/ATen/native/BatchLinearAlgebra.cpp``,
``LinearAlgebra.cpp``).

Values come from numpy's LAPACK drivers (``syevd``, ``gesdd``, ``geqrf``), the ones PyTorch's
CPU build calls.  Gradients, as ``torch/csrc/autograd/FunctionsManual.cpp`` writes them:
``eigh``/``eigvalsh`` through the eigenvalues, ``gA = V diag(gL) V^H``; ``svd`` through the
singular values, ``gA = U diag(gS) V^H``; ``pinv`` (``pinv_backward``) and ``lstsq``
(``linalg_lstsq_backward``: through ``pinv``) in full.  A gradient that reaches eigenvectors,
singular vectors or ``qr``'s factors raises ``NotImplementedError``: their sign conventions make
those gradients a function of LAPACK's choices, which nnref does not reproduce.
"""
from collections import namedtuple

import numpy as np

from .._device import array_module
from ..autograd.graph import Node
from ._common import needs_grad, record, wrap
from .linalg import matmul
from .linalg_checks import check_floating, check_is_matrix, check_square
from .linalg_solvers import _is_vector_rhs

__all__ = ["eigh", "eigvalsh", "lstsq", "matrix_rank", "pinv", "qr", "svd"]


def _return_type(name, fields):
    cls = namedtuple(name, fields)
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\n"
                                 + ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")")
    return cls


linalg_eigh = _return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _return_type("linalg_svd", ["U", "S", "Vh"])
linalg_qr = _return_type("linalg_qr", ["Q", "R"])
linalg_lstsq = _return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _no_vector_gradient(what):
    raise NotImplementedError(
        f"nnref differentiates {what}: a gradient reaching the vectors depends on LAPACK's sign "
        "choices, which nnref does not reproduce; make the loss depend on the values only, or run "
        "this on PyTorch")


class LinalgEighBackward0(Node):
    """Through the eigenvalues: ``gA = V diag(gL) V^H`` (``linalg_eig_backward``, hermitian)."""

    num_outputs = 2

    def backward(self, grad_values, grad_vectors):
        if grad_vectors is not None:
            _no_vector_gradient("linalg.eigh through its eigenvalues only")
        (vectors,) = self.saved_tensors
        return (matmul(vectors * grad_values.unsqueeze(-2), vectors.mT),)

    def _zeros_for_output(self, index):
        return None


def _eigh(A, UPLO, name):
    check_square(name, A)
    check_floating(name, A, low_precision=False)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    xp = array_module(A._device)
    values, vectors = xp.linalg.eigh(A._data, UPLO=UPLO)
    return wrap(xp.ascontiguousarray(values), A), wrap(xp.ascontiguousarray(vectors), A)


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix of ``A``, read from its ``UPLO``
    triangle, eigenvalues ascending (``torch.linalg.eigh``)."""
    values, vectors = _eigh(A, UPLO, "linalg.eigh")
    if needs_grad(A):
        node = LinalgEighBackward0((A,), (vectors.detach(),))
        values.grad_fn, vectors.grad_fn = node, node
        values._output_nr, vectors._output_nr = 0, 1
    return linalg_eigh(values, vectors)


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix of ``A``, ascending (``torch.linalg.eigvalsh``)."""
    values, vectors = _eigh(A, UPLO, "linalg.eigh")
    if needs_grad(A):
        node = LinalgEighBackward0((A,), (vectors,))
        values.grad_fn, values._output_nr = node, 0
    return values


class LinalgSvdBackward0(Node):
    """Through the singular values: ``gA = U diag(gS) V^H`` (``svd_backward``)."""

    num_outputs = 3

    def backward(self, grad_U, grad_S, grad_Vh):
        if grad_U is not None or grad_Vh is not None:
            _no_vector_gradient("linalg.svd through its singular values only")
        U, Vh = self.saved_tensors
        k = grad_S.shape[-1]
        return (matmul(U[..., :k] * grad_S.unsqueeze(-2), Vh[..., :k, :]),)

    def _zeros_for_output(self, index):
        return None


def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending
    (``torch.linalg.svd``); ``full_matrices=False`` gives the reduced factors."""
    check_is_matrix("linalg.svd", A)
    check_floating("linalg.svd", A, low_precision=False)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    xp = array_module(A._device)
    u, s, vh = xp.linalg.svd(A._data, full_matrices=full_matrices)
    U, S, Vh = (wrap(xp.ascontiguousarray(x), A) for x in (u, s, vh))
    if needs_grad(A):
        node = LinalgSvdBackward0((A,), (U.detach(), Vh.detach()))
        for i, t in enumerate((U, S, Vh)):
            t.grad_fn, t._output_nr = node, i
    return linalg_svd(U, S, Vh)


class LinalgQrBackward0(Node):
    num_outputs = 2

    def backward(self, grad_Q, grad_R):
        _no_vector_gradient("linalg.qr's factors not at all")

    def _zeros_for_output(self, index):
        return None


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal and ``R`` upper triangular, by Householder
    reflections (LAPACK's ``geqrf``, as PyTorch); ``mode`` is ``'reduced'``, ``'complete'`` or
    ``'r'`` (``torch.linalg.qr``)."""
    check_is_matrix("linalg.qr", A)
    check_floating("linalg.qr", A, low_precision=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    xp = array_module(A._device)
    if mode == "r":
        q, r = xp.empty((0,), dtype=A._data.dtype), xp.linalg.qr(A._data, mode="r")
    else:
        q, r = xp.linalg.qr(A._data, mode=mode)
    Q, R = wrap(xp.ascontiguousarray(q), A), wrap(xp.ascontiguousarray(r), A)
    if needs_grad(A):
        node = LinalgQrBackward0((A,), ())
        Q.grad_fn, R.grad_fn, Q._output_nr, R._output_nr = node, node, 0, 1
    return linalg_qr(Q, R)


def _cutoff(S, atol, rtol, shape, dtype):
    """The singular values kept: ``S > max(atol, rtol * S_max)``, ``rtol`` defaulting to
    ``eps * max(m, n)`` when neither tolerance is given (``linalg_pinv``, ``linalg_matrix_rank``)."""
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(dtype).eps * max(shape[-2:])
    atol = 0.0 if atol is None else atol
    largest = S.max(axis=-1, keepdims=True) if S.shape[-1] else np.zeros(S.shape[:-1] + (1,), S.dtype)
    return S > np.maximum(atol, rtol * largest)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above the tolerance, for each matrix of ``A`` (int64;
    ``torch.linalg.matrix_rank``)."""
    check_is_matrix("linalg.matrix_rank", A)
    check_floating("linalg.matrix_rank", A, low_precision=False)
    xp = array_module(A._device)
    data = A._data
    S = xp.abs(xp.linalg.eigvalsh(data)) if hermitian else xp.linalg.svd(data, compute_uv=False)
    keep = _cutoff(S, atol, rtol, data.shape, data.dtype)
    return wrap(xp.asarray(keep.sum(axis=-1), dtype=np.int64), A)


class LinalgPinvBackward0(Node):
    """``pinv_backward``: the derivative of the pseudo-inverse, written with the smaller of
    ``m``, ``n`` as PyTorch writes it."""

    def backward(self, grad):
        A, pinvA = self.saved_tensors
        return (_pinv_backward(grad, pinvA, A),)


def _pinv_backward(grad, pinvA, A):
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mT, grad.mT
    if m <= n:
        K = matmul(gradh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return (-matmul(pinvA, K).mT + KpinvAh - matmul(matmul(A, pinvA), KpinvAh)
                + matmul(matmul(pinvAh, pinvA), gradh - matmul(K, A)))
    K = matmul(pinvA, gradh)
    pinvAhK = matmul(pinvAh, K)
    return (-matmul(K, pinvA).mT + matmul(matmul(gradh - matmul(A, K), pinvA), pinvAh) + pinvAhK
            - matmul(matmul(pinvAhK, pinvA), A))


def _pinv_data(data, atol, rtol, hermitian, xp):
    if hermitian:
        values, vectors = xp.linalg.eigh(data)
        keep = _cutoff(xp.abs(values), atol, rtol, data.shape, data.dtype)
        inverse = xp.where(keep, 1.0 / xp.where(keep, values, 1.0), 0.0).astype(data.dtype)
        return (vectors * inverse[..., None, :]) @ xp.swapaxes(vectors, -1, -2)
    u, s, vh = xp.linalg.svd(data, full_matrices=False)
    keep = _cutoff(s, atol, rtol, data.shape, data.dtype)
    inverse = xp.where(keep, 1.0 / xp.where(keep, s, 1.0), 0.0).astype(data.dtype)
    return (xp.swapaxes(vh, -1, -2) * inverse[..., None, :]) @ xp.swapaxes(u, -1, -2)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse of each matrix of ``A``, singular values under the
    tolerance treated as zero (``torch.linalg.pinv``; backward ``pinv_backward``)."""
    check_is_matrix("linalg.pinv", A)
    check_floating("linalg.pinv", A, low_precision=False)
    xp = array_module(A._device)
    out = wrap(xp.ascontiguousarray(_pinv_data(A._data, atol, rtol, hermitian, xp)), A)
    return record(out, LinalgPinvBackward0, (A,), saved=(A,), save_result=True)


class LinalgLstsqBackward0(Node):
    """``linalg_lstsq_backward``: ``gA = pinv_backward(gX B^H, pinv(A), A)`` and
    ``gB = pinv(A)^H gX`` (one output of the four has a gradient: the solution)."""

    num_outputs = 4

    def backward(self, grad_solution, grad_residuals, grad_rank, grad_singular_values):
        A, B = self.saved_tensors
        wants_A, wants_B = self.needs_input_grad
        if grad_solution is None:
            return (None, None)
        gX = grad_solution.unsqueeze(-1) if self.vector else grad_solution
        B = B.unsqueeze(-1) if self.vector else B
        pinvA = pinv(A)
        grad_A = _pinv_backward(matmul(gX, B.mT), pinvA, A) if wants_A else None
        grad_B = matmul(pinvA.mT, gX) if wants_B else None
        if grad_B is not None and self.vector:
            grad_B = grad_B.squeeze(-1)
        return (grad_A, grad_B)

    def _zeros_for_output(self, index):
        return None


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution ``X`` of ``A X = B`` with ``(residuals, rank, singular_values)``,
    as PyTorch's CPU default driver ``gelsy`` returns them: ``residuals`` and ``singular_values``
    empty, ``rank`` computed (``torch.linalg.lstsq``; backward ``linalg_lstsq_backward``)."""
    if driver not in (None, "gelsy"):
        raise NotImplementedError(f"nnref's linalg.lstsq has PyTorch's CPU default driver 'gelsy' only, not "
                                  f"{driver!r}")
    check_is_matrix("linalg.lstsq", A)
    check_floating("linalg.lstsq", A, low_precision=False)
    if A._dtype is not B._dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A._dtype._legacy_name[:-6]} and other's dtype "
                           f"{B._dtype._legacy_name[:-6]}")
    vector = _is_vector_rhs(A, B)
    xp = array_module(A._device)
    data_B = B._data[..., None] if vector else B._data
    if data_B.shape[-2] != A._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A._data.shape[-2:]
    if rcond is None:
        rcond = np.finfo(A._data.dtype).eps * max(m, n)
    solution = _pinv_data(A._data, None, rcond, False, xp) @ data_B
    if vector:
        solution = solution[..., 0]
    S = xp.linalg.svd(A._data, compute_uv=False)
    rank = _cutoff(S, None, rcond, A._data.shape, A._data.dtype).sum(axis=-1)
    X = wrap(xp.ascontiguousarray(solution), A)
    empty = wrap(xp.empty((0,), dtype=A._data.dtype), A)
    if needs_grad(A, B):
        node = LinalgLstsqBackward0((A, B), (A, B))
        node.vector = vector
        X.grad_fn, X._output_nr = node, 0
        empty = empty.detach()
    return linalg_lstsq(X, empty, wrap(xp.asarray(rank, dtype=np.int64), A),
                        wrap(xp.empty((0,), dtype=A._data.dtype), A))
