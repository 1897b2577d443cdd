"""PyTorch's CPU samplers for the gamma, Dirichlet and Poisson distributions, draw for draw
(``aten/src/ATen/native/Distributions.cpp``: ``_s_gamma_cpu``, ``_s_dirichlet_cpu``,
``_s_poisson_cpu``; ``aten/src/ATen/native/Distributions.h``: ``sample_gamma``), and the
reparameterised gradients of a gamma draw (``standard_gamma_grad_one``) and of a Dirichlet draw
(``dirichlet_grad_one``), vectorised over the elements.

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

from ..core._device import CPU
from .._random import cpu_generator
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from .._ops._common import record, wrap

__all__ = ["standard_gamma", "sample_dirichlet", "poisson", "dirichlet_grad"]

_ONE_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # PyTorch's 1.0f / 3.0f
_C_0331_F = float(np.float32(0.0331))  # 0.0331f, promoted to double where it is used


def _check_kernel_dtype(t, kernel):
    """PyTorch's gamma and Dirichlet kernels have float32 and float64 only."""
    if t.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t.dtype._legacy_name[:-6]}\'')


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
        return (grad * standard_gamma_grad(alpha, result.detach()),)


class StandardGammaGradBackward0(Node):
    """PyTorch has no derivative of ``_standard_gamma_grad`` (``derivatives.yaml``:
    ``not_implemented``), so a Gamma draw has a first derivative in ``alpha`` and no second:
    recorded all the same, so that a second backward through it raises instead of skipping it."""

    def backward(self, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


def standard_gamma_grad(alpha, sample):
    """``torch._standard_gamma_grad``: ``d sample / d alpha`` of a Gamma(alpha, 1) draw."""
    result = wrap(_standard_gamma_grad(alpha._data, sample._data), alpha)
    return record(result, StandardGammaGradBackward0, (alpha,))


def standard_gamma(alpha, generator=None):
    """``torch._standard_gamma``: one Gamma(alpha, 1) draw per element of ``alpha``, PyTorch's
    numbers for the same generator state; differentiable in ``alpha``."""
    _check_kernel_dtype(alpha, "gamma_cpu")
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
    _check_kernel_dtype(alpha, "dirichlet")
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


class PoissonBackward0(Node):
    """A Poisson draw's gradient in its rate: zeros (``derivatives.yaml``: ``zeros_like(grad)``)."""

    def backward(self, grad):
        return (grad * 0,)


def poisson(input, generator=None):
    """``torch.poisson``: one Poisson(rate) draw per element of ``input``, PyTorch's numbers for
    the same generator state, in ``input``'s dtype (its gradient is zero, as PyTorch's)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{input.dtype._legacy_name[:-6]}\'')
    values = _cpu_values(input, "Poisson samples")
    if (values < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    uniform, _ = _scalar_draws(generator)
    flat = values.reshape(-1).tolist()
    out = np.array([_sample_poisson(lam, uniform) for lam in flat], values.dtype).reshape(values.shape)
    return record(wrap(out, input), PoissonBackward0, (input,))


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


# ---- the reparameterised gradient of a Dirichlet (or Beta) draw --------------------------------------

def _digamma_one(x):
    """``digamma_one<scalar_t, double>`` for ``x > 0``: the recurrence in ``x``'s own dtype (float32
    arithmetic for float32), the sum and the series in double, the result back in ``x``'s dtype."""
    one = x.dtype.type(1)
    result = np.zeros(x.shape)
    for _ in range(10):
        below = x < 10
        result -= np.where(below, one / np.where(below, x, one), 0).astype(np.float64)
        x = np.where(below, x + one, x)
    z = 1.0 / (x * x).astype(np.float64)
    poly = np.zeros_like(z)
    for coefficient in _DIGAMMA_A:
        poly = poly * z + coefficient
    y = np.where(x < np.float32(1.0e17), z * poly, 0.0)
    asymptotic = result + np.log(x).astype(np.float64) - (x.dtype.type(0.5) / x).astype(np.float64) - y
    return np.where(x == 10, result + _PSI_10, asymptotic).astype(x.dtype)


def _beta_grad_alpha_small(x, alpha, beta):
    """A Taylor expansion for ``x`` near 0, in ``x``'s dtype (``_beta_grad_alpha_small``)."""
    t = x.dtype.type
    factor = _digamma_one(alpha) - _digamma_one(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + t(1) / alpha)
    for i in range(1, 11):
        numer = numer * ((t(i) - beta) * x / t(i))
        denom = alpha + t(i)
        series = series + numer / denom * (factor + t(1) / denom)
    result = x * np.power(t(1) - x, -beta) * series
    return np.where(np.isnan(result), t(0), result)


def _beta_grad_beta_small(x, alpha, beta):
    """A Taylor expansion for ``x`` near 0 of the gradient in ``beta`` (``_beta_grad_beta_small``)."""
    t = x.dtype.type
    factor = _digamma_one(alpha + beta) - _digamma_one(beta)
    numer, betas, dbetas, series = np.ones_like(x), np.ones_like(x), np.zeros_like(x), factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / t(i))
        dbetas = dbetas * (beta - t(i)) + betas
        betas = betas * (beta - t(i))
        series = series + numer / (alpha + t(i)) * (dbetas + factor * betas)
    result = -np.power(t(1) - x, t(1) - beta) * series
    return np.where(np.isnan(result), t(0), result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """A Rice saddle point expansion for large ``alpha`` and ``beta``, in double
    (``_beta_grad_alpha_mid``)."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = np.power(beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x)), -1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def dirichlet_grad(x, alpha, total):
    """``_dirichlet_grad``: ``dirichlet_grad_one`` elementwise, vectorised, as a numpy array of
    ``x``'s dtype: the scaled reparameterised gradient of a Beta(``alpha``, ``total - alpha``)
    draw ``x``, by the expansion that suits the region (near 0, near 1, both parameters large,
    else a rational correction to an analytic approximation)."""
    t = x.dtype.type
    beta = total - alpha
    boundary = total * x * (t(1) - x)
    x_, alpha_, total_ = (a.astype(np.float64) for a in (x, alpha, total))
    beta_ = total_ - alpha_
    with np.errstate(all="ignore"):
        near_zero = _beta_grad_alpha_small(x, alpha, beta)
        near_one = -_beta_grad_beta_small(t(1) - x, beta, alpha)
        mid = _beta_grad_alpha_mid(x_, alpha_, beta_)
        u = np.log(x_)
        a = np.log(alpha_) - u
        b = np.log(total_) - a
        p, q = np.zeros_like(x_), np.zeros_like(x_)
        for i, pow_u in enumerate((1.0, u, u * u)):
            for j, pow_a in enumerate((1.0, a, a * a)):
                ua = pow_u * pow_a
                cp, cq = _DIRICHLET_C[0, i, j], _DIRICHLET_C[1, i, j]
                p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
        approx = x_ * (_digamma_one(total_) - _digamma_one(alpha_)) / beta_
        rational = p / q * approx
    # the branches in PyTorch's order, with its float constants (0.5f, 2.5f, 0.75f)
    return np.where((x <= 0.5) & (boundary < 2.5), near_zero,
                    np.where((x >= 0.5) & (boundary < 0.75), near_one,
                             np.where((alpha > 6) & (beta > 6), mid, rational))).astype(x.dtype)
