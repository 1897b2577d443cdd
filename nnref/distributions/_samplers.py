"""PyTorch's CPU samplers for the gamma, Dirichlet and Poisson distributions, draw for draw
(``aten/src/ATen/native/Distributions.cpp``: ``_s_gamma_cpu``, ``_s_dirichlet_cpu``,
``_s_poisson_cpu``; ``aten/src/ATen/native/Distributions.h``: ``sample_gamma``), and the
reparameterised gradient of a gamma draw (``standard_gamma_grad_one``).

Each sampler is a rejection method: how many numbers an element consumes depends on the numbers
it drew, so PyTorch runs it one element at a time, in memory order, on the generator's
``uniform_real_distribution<double>`` and ``normal_distribution<double>`` (whose second
Box-Muller value is cached in the generator).  Reproducing the stream means doing the same, so
these loop over elements in Python: a few microseconds per element, for the sizes a program
samples.  The C library's ``log``, ``pow``, ``exp`` and ``lgamma`` come from Python's
``math``, which calls it, as PyTorch's kernels do.
"""
import math

import numpy as np

from .._device import CPU
from .._random import cpu_generator
from .._tensor import Tensor
from ..autograd.graph import Node
from .._ops._common import record, wrap

__all__ = ["standard_gamma", "sample_dirichlet", "poisson"]

_ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # PyTorch's 1.0f / 3.0f
_C_0331_F = float(np.float32(0.0331))  # 0.0331f, promoted to double where it is used


def _cpu_values(t, what):
    if t.device != CPU:
        raise NotImplementedError(f"nnref draws {what} on the CPU only (PyTorch's CUDA sampler uses another "
                                  "random stream): sample on the CPU and move the result with .to(device)")
    return np.asarray(t._data)


def _sample_gamma(alpha, uniform, normal, single):
    """``sample_gamma<scalar_t, double>``: Marsaglia and Tsang's method, with PyTorch's float
    constants (``1.0f / 3.0f``, ``0.0331f``) and, for a float32 ``alpha``, its float32
    arithmetic on ``alpha`` itself."""
    f32 = np.float32 if single else float
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        exponent = float(f32(1.0) / f32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1.0 - uniform(), exponent)
        alpha = float(f32(alpha) + f32(1.0))
    d = float(f32(alpha) - f32(_ONE_THIRD_F)) if single else alpha - _ONE_THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - uniform()
        xx = x * x
        if u < 1.0 - _C_0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _scalar_draws(generator):
    gen = cpu_generator(generator)
    return (lambda: float(gen._uniform(1, np.float64)[0])), (lambda: float(gen._normal_scalar(1, 0.0, 1.0)[0]))


class StandardGammaBackward0(Node):
    """``d sample / d alpha`` by implicit reparameterisation (``_standard_gamma_grad``)."""

    def backward(self, grad):
        alpha, result = self.saved_tensors
        return (grad * wrap(_standard_gamma_grad(alpha._data, result._data), alpha),)


def standard_gamma(alpha, generator=None):
    """``torch._standard_gamma``: one Gamma(alpha, 1) draw per element of ``alpha``, PyTorch's
    numbers for the same generator state; differentiable in ``alpha``."""
    values = _cpu_values(alpha, "gamma samples")
    uniform, normal = _scalar_draws(generator)
    single = values.dtype != np.float64
    tiny = np.finfo(values.dtype).tiny
    flat = values.reshape(-1)
    out = np.empty(flat.shape, values.dtype)
    for i, a in enumerate(flat.tolist()):  # serial: each element consumes a data-dependent count
        out[i] = max(tiny, values.dtype.type(_sample_gamma(a, uniform, normal, single)))
    result = wrap(out.reshape(values.shape), alpha)
    return record(result, StandardGammaBackward0, (alpha,), saved=(alpha,), save_result=True)


def sample_dirichlet(alpha, generator=None):
    """``torch._sample_dirichlet``: gamma draws in float64 along the last dimension, each
    divided by their sum, kept inside ``(0, 1)`` (no gradient: ``Dirichlet.rsample`` adds it)."""
    values = _cpu_values(alpha, "Dirichlet samples")
    uniform, normal = _scalar_draws(generator)
    flat = values.reshape(-1).tolist()
    gamma = np.array([max(np.finfo(np.float64).tiny, _sample_gamma(a, uniform, normal, False)) for a in flat],
                     np.float64).reshape(values.shape)
    ratio = (gamma / gamma.sum(-1, keepdims=True)).astype(values.dtype)
    high = np.nextafter(values.dtype.type(1.0), values.dtype.type(0.0))
    return wrap(np.clip(ratio, np.finfo(values.dtype).tiny, high), alpha)


def _sample_poisson(lam, uniform):
    """``sample_poisson``: Hoermann's transformed rejection from ``lam = 10`` up, else the
    product of uniforms."""
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            U = uniform() - 0.5
            V = uniform()
            us = 0.5 - abs(U)
            k = math.floor((2 * a / us + b) * U + lam + 0.43)
            if us >= 0.07 and V <= vr:
                return k
            if k < 0 or (us < 0.013 and V > us):
                continue
            if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    X, prod = 0, 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            X += 1
        else:
            return X


def poisson(rate, generator=None):
    """``torch.poisson``: one Poisson(rate) draw per element, PyTorch's numbers for the same
    generator state, in ``rate``'s dtype (no gradient)."""
    values = _cpu_values(rate, "Poisson samples")
    if (values < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    uniform, _ = _scalar_draws(generator)
    flat = values.reshape(-1).tolist()
    out = np.array([_sample_poisson(lam, uniform) for lam in flat], values.dtype).reshape(values.shape)
    return wrap(out, rate)


# ---- the reparameterised gradient --------------------------------------------------------------

# PyTorch's thresholds are float constants (0.8f, 0.9f, 1.1f), compared in double
_F08, _F09, _F11 = (float(np.float32(c)) for c in (0.8, 0.9, 1.1))
_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)
_COEF_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07]])


def _digamma_positive(x):
    """``digamma_one`` for ``x > 0``: recurrence up to 10, then the asymptotic series."""
    x = x.copy()
    result = np.zeros_like(x)
    for _ in range(10):  # at most ten steps bring any positive x to 10 or more
        below = x < 10
        result -= np.where(below, 1 / np.where(below, x, 1.0), 0.0)
        x += below
    z = 1.0 / (x * x)
    poly = np.zeros_like(x)
    for coefficient in _DIGAMMA_A:  # polevl
        poly = poly * z + coefficient
    y = np.where(x < 1.0e17, z * poly, 0.0)
    return np.where(x == 10, result + _PSI_10, result + np.log(x) - 0.5 / x - y)


def _standard_gamma_grad(alpha, x):
    """``standard_gamma_grad_one<scalar_t, double>``, vectorised: a Taylor series for ``x < 0.8``,
    a Rice saddle point expansion for ``alpha > 8``, a bivariate rational approximation
    otherwise."""
    dtype = x.dtype
    alpha, x = alpha.astype(np.float64), x.astype(np.float64)
    with np.errstate(all="ignore"):
        numer, denom = np.ones_like(x), alpha.copy()
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(x, alpha)
        gamma_pdf = np.power(x, alpha - 1) * np.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (np.log(x) - _digamma_positive(alpha)) * gamma_cdf - pow_x_alpha * series2
        small = -gamma_cdf_alpha / gamma_pdf
        small = np.where(np.isnan(small), 0.0, small)

        near = (1 + 24 * alpha * (1 + 12 * alpha)) * (
            1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        ) / (1244160 * (alpha * alpha) * (alpha * alpha))
        root = np.sqrt(8 * alpha)
        term2 = root / (alpha - x)
        term3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
        term23 = np.where(x < alpha, term2 - term3, term2 + term3)
        term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        far = -stirling * (x * term1) / root
        large = np.where((_F09 * alpha <= x) & (x <= _F11 * alpha), near, far)

        u, v = np.log(x / alpha), np.log(alpha)
        coef_v = _COEF_UV[0] + u[..., None] * (_COEF_UV[1] + u[..., None] * _COEF_UV[2])
        p = coef_v[..., 0] + v * (coef_v[..., 1] + v * (coef_v[..., 2] + v * coef_v[..., 3]))
        q = coef_v[..., 4] + v * (coef_v[..., 5] + v * (coef_v[..., 6] + v * coef_v[..., 7]))
        rational = np.exp(p / q)
    return np.where(x < _F08, small,
                    np.where(alpha > 8.0, large, rational)).astype(dtype)
