"""The factorizations tutorials call: ``torch.linalg.eigh``/``eigvalsh``, ``svd``/``svdvals``, ``qr``,
``pinv``, ``lstsq`` and ``matrix_rank`` (``aten/src/ATen/native/BatchLinearAlgebra.cpp``,
``LinearAlgebra.cpp``).

Values come from numpy's LAPACK drivers (``syevd``, ``gesdd``, ``geqrf``), the ones PyTorch's
CPU build calls, so the eigenvectors' and singular vectors' signs are PyTorch's too.  Gradients,
as ``torch/csrc/autograd/FunctionsManual.cpp`` writes them, through values and vectors alike:
``linalg_eig_backward`` (hermitian), ``svd_backward``, ``linalg_qr_backward``, ``pinv_backward``
and ``linalg_lstsq_backward`` (through ``pinv``).  They are written with nnref's own ops on the
factors saved as outputs, so they can be differentiated again (``create_graph=True``).
"""
from collections import namedtuple

import numpy as np

from .._creation import eye
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .diagonal_builders import diag_embed
from .linalg import matmul
from .linalg_checks import check_floating, check_is_matrix, check_square
from .linalg_solvers import _is_vector_rhs, solve
from .shape import cat

__all__ = ["eigh", "eigvalsh", "lstsq", "matrix_rank", "pinv", "qr", "svd", "svdvals", "torch_svd"]


def _return_type(name, fields):
    cls = namedtuple(name, fields)
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\n"
                                 + ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")")
    return cls


linalg_eigh = _return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _return_type("linalg_svd", ["U", "S", "Vh"])
linalg_qr = _return_type("linalg_qr", ["Q", "R"])
_svd_result = _return_type("svd", ["U", "S", "V"])
linalg_lstsq = _return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _save_outputs(node, outputs):
    """Make ``node`` the grad_fn of each output and save them for its backward, as outputs (so a
    second differentiation goes through them, as PyTorch's saved outputs do)."""
    for i, t in enumerate(outputs):
        t.grad_fn, t._output_nr = node, i
    for t in outputs:
        node.save_result(t)


def _off_diagonal_denominator(x):
    """``x_j - x_i`` at ``[i, j]`` with ones on the diagonal, which PyTorch's ``fill_(1)`` puts
    there to divide a zero by (the diagonal of ``x_j - x_i`` is exactly zero, so adding the
    identity changes nothing else)."""
    return x.unsqueeze(-2) - x.unsqueeze(-1) + eye(x.shape[-1], dtype=x.dtype, device=x.device)


class LinalgEighBackward0(Node):
    """``linalg_eig_backward`` for a symmetric matrix:
    ``gA = V ((skew(V^H gV) / 2) / E + diag(gL)) V^H`` with ``E[i, j] = L_j - L_i``, or
    ``V diag(gL) V^H`` when only the eigenvalues have a gradient."""

    num_outputs = 2

    def backward(self, grad_values, grad_vectors):
        values, vectors = self.saved_tensors
        if grad_vectors is None:
            return (matmul(vectors * grad_values.unsqueeze(-2), vectors.mT),)
        VhgV = matmul(vectors.mT, grad_vectors)
        inner = 0.5 * (VhgV - VhgV.mT) / _off_diagonal_denominator(values)
        if grad_values is not None:
            inner = inner + diag_embed(grad_values)  # the diagonal of ``inner`` is zero
        return (matmul(vectors, matmul(inner, vectors.mT)),)

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


def eigh(input, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix of ``input``, read from its ``UPLO``
    triangle, eigenvalues ascending (``torch.linalg.eigh``)."""
    values, vectors = _eigh(input, UPLO, "linalg.eigh")
    if needs_grad(input):
        _save_outputs(LinalgEighBackward0((input,)), (values, vectors))
    return linalg_eigh(values, vectors)


def eigvalsh(input, UPLO="L"):
    """The eigenvalues of each symmetric matrix of ``input``, ascending (``torch.linalg.eigvalsh``)."""
    values, vectors = _eigh(input, UPLO, "linalg.eigh")
    if needs_grad(input):
        node = LinalgEighBackward0((input,), (values.detach(), vectors))
        values.grad_fn, values._output_nr = node, 0
    return values


class LinalgSvdBackward0(Node):
    """``svd_backward`` on the reduced factors (``U[..., :k]``, ``Vh[..., :k, :]`` of full ones):
    ``gA = U ((skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)) V^H`` with
    ``E[i, j] = S_j^2 - S_i^2``, plus the parts of ``gU`` (``gV``) outside ``U``'s (``V``'s)
    span when ``A`` is tall (wide)."""

    num_outputs = 3

    def backward(self, gU, gS, gVh):
        U, S, Vh = self.saved_tensors
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :k]
        gVh = None if gVh is None else gVh[..., :k, :]
        m, n = U.shape[-2], Vh.shape[-1]
        if gU is None and gVh is None:  # as for svdvals
            return (matmul(U, gS.unsqueeze(-1) * Vh) if m >= n else matmul(U * gS.unsqueeze(-2), Vh),)
        UhgU = None if gU is None else _skew(matmul(U.mT, gU))
        VhgV = None if gVh is None else _skew(matmul(Vh, gVh.mT))
        E = _off_diagonal_denominator(S * S)
        if gU is not None and gVh is not None:
            gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
        elif gU is not None:
            gA = UhgU * (S.unsqueeze(-2) / E)
        else:
            gA = S.unsqueeze(-1) * (VhgV / E)
        if gS is not None:
            gA = gA + diag_embed(gS)
        if m > n and gU is not None:
            gA = matmul(U, gA)
            gUSinv = gU / S.unsqueeze(-2)
            gA = gA + gUSinv - matmul(U, matmul(U.mT, gUSinv))
            return (matmul(gA, Vh),)
        if m < n and gVh is not None:
            gA = matmul(gA, Vh)
            SinvgVh = gVh / S.unsqueeze(-1)
            gA = gA + SinvgVh - matmul(matmul(SinvgVh, Vh.mT), Vh)
            return (matmul(U, gA),)
        return (matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh),)

    def _zeros_for_output(self, index):
        return None


def _skew(X):
    return X - X.mT


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
        _save_outputs(LinalgSvdBackward0((A,)), (U, S, Vh))
    return linalg_svd(U, S, Vh)


def svdvals(A):
    """The singular values of each matrix of ``A``, in descending order (``torch.linalg.svdvals``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``; backward ``svd_backward`` of
    ``torch/csrc/autograd/FunctionsManual.cpp``)."""
    if needs_grad(A):  # as PyTorch: the vectors too, which the backward (and a second one) needs
        return svd(A, full_matrices=False).S
    check_is_matrix("linalg.svd", A)
    check_floating("linalg.svd", A, low_precision=False)
    xp = array_module(A._device)
    return wrap(xp.ascontiguousarray(xp.linalg.svd(A._data, compute_uv=False)), A)


def torch_svd(input, some=True, compute_uv=True):
    """``torch.svd``, the older form of ``linalg.svd``: ``(U, S, V)`` with ``V = Vh^H`` (a
    transposed view, as PyTorch's), reduced factors unless ``some=False``; without
    ``compute_uv`` only ``S`` is computed (through ``linalg.svdvals``) and ``U``, ``V`` are
    square zero matrices (``aten/src/ATen/native/BatchLinearAlgebra.cpp``, ``svd``)."""
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return _svd_result(U, S, Vh.mT)
    S = svdvals(input)
    m, n = input.shape[-2:]
    batch = tuple(input.shape[:-2])
    return _svd_result(input.new_zeros(batch + (m, m)), S, input.new_zeros(batch + (n, n)))


class LinalgQrBackward0(Node):
    """``linalg_qr_backward``, with ``M = gR R^H - Q^H gQ``: for a tall or square ``A``,
    ``gA = (Q syminvadj(triu(M)) + gQ) R^-H``; for a wide one,
    ``gA = [Q tril(skew(-M)) R_1^-H, 0] + Q gR`` (``R_1`` the square left block of ``R``)."""

    num_outputs = 2

    def backward(self, gQ, gR):
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
        Q, R = self.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if gQ is None:
            M = matmul(gR, R.mT)
        elif gR is None:
            M = -matmul(Q.mT, gQ)
        else:
            M = matmul(gR, R.mT) - matmul(Q.mT, gQ)
        if m >= n:
            upper = M.triu()
            gA = matmul(Q, upper + upper.triu(1).mT)  # syminvadj: the symmetric matrix of M's upper triangle
            if gQ is not None:
                gA = gA + gQ
            return (solve(R.mT, gA, left=False),)
        lower = (M.mT - M).tril()  # trilImInvAdjSkew(-M)
        gA = solve(R[..., :m].mT, matmul(Q, lower), left=False)
        gA = cat([gA, gA.new_zeros(gA.shape[:-1] + (n - m,))], -1)
        if gR is not None:
            gA = gA + matmul(Q, gR)
        return (gA,)

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
        node = LinalgQrBackward0((A,))
        node.mode = mode
        _save_outputs(node, (Q, R))
    return linalg_qr(Q, R)


def _cutoff(S, atol, rtol, shape, dtype):
    """The singular values kept: ``S > max(atol, rtol * S_max)``, ``rtol`` defaulting to
    ``eps * max(m, n)`` when neither tolerance is given (``linalg_pinv``, ``linalg_matrix_rank``)."""
    xp = array_module_of(S)
    if rtol is None:  # elementwise for a tolerance per matrix
        default = np.finfo(dtype).eps * max(shape[-2:])
        rtol = default if atol is None else xp.where(xp.asarray(atol) > 0, 0.0, default)
    atol = 0.0 if atol is None else atol
    largest = S.max(axis=-1, keepdims=True) if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), S.dtype)
    return S > xp.maximum(atol, rtol * largest)


def _tolerances(name, tol, atol, rtol):
    """PyTorch's older overload ``(input, tol)`` is ``atol=tol, rtol=0``; a tolerance given as a
    tensor holds one per matrix (broadcast against the batch of singular values)."""
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments: give tol, or atol and rtol")
        atol, rtol = tol, 0.0
    return tuple(None if t is None else t._data[..., None] if isinstance(t, Tensor) else float(t)
                 for t in (atol, rtol))


def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above the tolerance, for each matrix of ``input`` (int64;
    ``torch.linalg.matrix_rank``)."""
    check_is_matrix("linalg.matrix_rank", input)
    check_floating("linalg.matrix_rank", input, low_precision=False)
    atol, rtol = _tolerances("linalg_matrix_rank", tol, atol, rtol)
    xp = array_module(input._device)
    data = input._data
    S = xp.abs(xp.linalg.eigvalsh(data)) if hermitian else xp.linalg.svd(data, compute_uv=False)
    keep = _cutoff(S, atol, rtol, data.shape, data.dtype)
    return wrap(xp.asarray(keep.sum(axis=-1), dtype=np.int64), input)


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


def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix of ``input``, singular values under the
    tolerance treated as zero (``torch.linalg.pinv``; its older overload ``(input, rcond)`` is
    ``atol=0, rtol=rcond``; backward ``pinv_backward``)."""
    check_is_matrix("linalg.pinv", input)
    check_floating("linalg.pinv", input, low_precision=False)
    if rcond is not None:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_pinv() received an invalid combination of arguments: give rcond, or atol "
                            "and rtol")
        atol, rtol = 0.0, float(rcond)
    atol, rtol = _tolerances("linalg_pinv", None, atol, rtol)
    xp = array_module(input._device)
    out = wrap(xp.ascontiguousarray(_pinv_data(input._data, atol, rtol, hermitian, xp)), input)
    return record(out, LinalgPinvBackward0, (input,), saved=(input,), save_result=True)


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


def lstsq(input, b, rcond=None, *, driver=None):
    """The least-squares solution ``X`` of ``input X = b`` with ``(residuals, rank, singular_values)``,
    as PyTorch's CPU default driver ``gelsy`` returns them: ``residuals`` and ``singular_values``
    empty, ``rank`` computed (``torch.linalg.lstsq``; backward ``linalg_lstsq_backward``)."""
    if driver not in (None, "gelsy"):
        raise NotImplementedError(f"nnref's linalg.lstsq has PyTorch's CPU default driver 'gelsy' only, not "
                                  f"{driver!r}")
    check_is_matrix("linalg.lstsq", input)
    check_floating("linalg.lstsq", input, low_precision=False)
    if input._dtype is not b._dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {input._dtype._legacy_name[:-6]} and other's dtype "
                           f"{b._dtype._legacy_name[:-6]}")
    vector = _is_vector_rhs(input, b)
    xp = array_module(input._device)
    data_B = b._data[..., None] if vector else b._data
    if data_B.shape[-2] != input._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = input._data.shape[-2:]
    S = xp.linalg.svd(input._data, compute_uv=False)
    if rcond is not None and not _cutoff(S, None, rcond, input._data.shape, input._data.dtype).all():
        raise NotImplementedError(
            f"linalg.lstsq: rcond={rcond} drops singular values of this input; gelsy then chooses the rank by "
            "a rank-revealing QR, which nnref does not reproduce (it would truncate singular values and "
            "return another solution). Use a smaller rcond, or linalg.pinv(A, rtol=rcond) @ B for the "
            "truncated-SVD solution.")
    if rcond is None:
        rcond = np.finfo(input._data.dtype).eps * max(m, n)
    solution = _pinv_data(input._data, None, rcond, False, xp) @ data_B
    if vector:
        solution = solution[..., 0]
    rank = _cutoff(S, None, rcond, input._data.shape, input._data.dtype).sum(axis=-1)
    X = wrap(xp.ascontiguousarray(solution), input)
    empty = wrap(xp.empty((0,), dtype=input._data.dtype), input)
    if needs_grad(input, b):
        node = LinalgLstsqBackward0((input, b), (input, b))
        node.vector = vector
        X.grad_fn, X._output_nr = node, 0
        empty = empty.detach()
    return linalg_lstsq(X, empty, wrap(xp.asarray(rank, dtype=np.int64), input),
                        wrap(xp.empty((0,), dtype=input._data.dtype), input))
