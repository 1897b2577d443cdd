"""The reordering, picking, logical and one-sided clamp ops, and PyTorch's other names for views:
values, dtypes, grad_fn names and error types as PyTorch's."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def run(case, m):
    try:
        return shown(case(m))
    except Exception as exc:  # the type must match PyTorch's
        return ("raises", type(exc).__name__)


def shown(result):
    if isinstance(result, (tuple, list)):
        return [shown(r) for r in result]
    if isinstance(result, (nnref.Tensor, torch.Tensor)):
        values = result.detach().numpy()
        if values.dtype.kind == "f":  # libm and numpy may differ in the last bit of atan2, hypot, ...
            values = np.round(values.astype(np.float64), 5)
            # NaN is not equal to itself: compare a name for it (the shape is compared on its own)
            return (["nan" if v != v else v for v in values.ravel().tolist()], repr(result.dtype),
                    tuple(result.shape), type(result.grad_fn).__name__ if result.grad_fn is not None else None)
        return (values.tolist(), repr(result.dtype), tuple(result.shape),
                type(result.grad_fn).__name__ if result.grad_fn is not None else None)
    return result


def _no_nan(result):
    """NaN replaced by -7 (NaN is not equal to itself, so the tables could not compare it)."""
    return [r.nan_to_num(-7.0) if r.is_floating_point() else r for r in result]


def grid(m, requires_grad=False):
    return m.arange(6.0).reshape(2, 3).requires_grad_(requires_grad)


CASES = {
    "flip": lambda m: grid(m, True).flip(1),
    "flip_two_dims": lambda m: m.flip(grid(m), (0, 1)),
    "flip_0d": lambda m: m.tensor(3.0).flip(0),
    "flip_duplicate_dims": lambda m: grid(m).flip(0, 0),
    "roll": lambda m: m.roll(grid(m, True), 1),
    "roll_dims": lambda m: grid(m).roll((1, -1), (0, 1)),
    "roll_misaligned": lambda m: grid(m).roll((1, 2), 0),
    "index_select": lambda m: m.index_select(grid(m, True), 1, m.tensor([2, 0, 2])),
    "index_select_int32": lambda m: grid(m).index_select(0, m.tensor([1], dtype=m.int32)),
    "index_select_float_index": lambda m: grid(m).index_select(1, m.tensor([0.0])),
    "index_select_out_of_range": lambda m: grid(m).index_select(1, m.tensor([3])),
    "index_select_negative": lambda m: grid(m).index_select(1, m.tensor([-1])),
    "index_select_matrix_index": lambda m: grid(m).index_select(1, m.tensor([[0]])),
    "masked_select": lambda m: m.masked_select(grid(m, True), m.tensor([True, False, True])),
    "masked_select_int_mask": lambda m: m.masked_select(m.arange(6.0), m.tensor([1, 0, 1, 0, 1, 0])),
    "logical": lambda m: (m.logical_and(m.tensor([1, 0, 2]), m.tensor([True, True, False])),
                          m.tensor([0.0, 1.0]).logical_not(), m.logical_xor(m.tensor([1, 0]), m.tensor([1, 1])),
                          m.logical_or(m.tensor([0.0, 0.5]), m.tensor(0))),
    "logical_with_a_number": lambda m: m.logical_and(m.tensor([1, 0]), 1),
    "count_nonzero": lambda m: (m.count_nonzero(m.tensor([[0, 1], [2, 0]])),
                                m.tensor([[0, 1], [2, 3]]).count_nonzero(dim=0),
                                m.count_nonzero(m.zeros(2, 3, 4), dim=(0, 2))),
    "broadcast_to": lambda m: m.broadcast_to(m.tensor([1.0, 2.0], requires_grad=True), (3, 2)),
    "movedim": lambda m: m.movedim(m.zeros(2, 3, 4, requires_grad=True), 0, -1),
    "moveaxis_many": lambda m: m.zeros(2, 3, 4, 5).moveaxis((0, 1), (3, 0)).shape,
    "swapaxes": lambda m: m.zeros(2, 3, requires_grad=True).swapaxes(0, 1),
    "swapdims": lambda m: m.swapdims(m.zeros(2, 3, 4), 0, 2).shape,
    "unflatten": lambda m: m.arange(12.0).requires_grad_().unflatten(0, (3, -1)),
    "ravel": lambda m: m.arange(6.0).reshape(2, 3).t().ravel(),
    "tile": lambda m: m.tile(m.tensor([[1.0, 2.0]], requires_grad=True), (2,)),
    "outer": lambda m: m.outer(m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3.0, 4.0, 5.0])),
    "ger": lambda m: m.tensor([1, 2]).ger(m.tensor([3, 4])),
    "negative_positive": lambda m: (m.negative(m.tensor([1.0, -2.0], requires_grad=True)),
                                    m.positive(m.tensor([1, 2]))),
    "clamp_min": lambda m: m.clamp_min(m.tensor([1.0, -2.0], requires_grad=True), 0.5),
    "clamp_max": lambda m: m.tensor([1.0, -2.0], requires_grad=True).clamp_max(0.5),
    "clamp_min_tensor": lambda m: m.clamp_min(m.tensor([1.0, -2.0], requires_grad=True),
                                              m.tensor([0.0, 0.5], requires_grad=True)),
    "clamp_in_place": lambda m: (m.tensor([1.0, -2.0]).clamp_min_(0.0), m.tensor([1.0, -2.0]).clamp_max_(0.0)),
    "properties": lambda m: (m.zeros(2, 3).ndimension(), m.zeros(2, 3).is_cpu, m.zeros(2, 3).itemsize,
                             m.zeros(2, 3, dtype=m.float64).nbytes, m.is_floating_point(m.zeros(1)),
                             m.is_floating_point(m.zeros(1, dtype=m.int64))),
    # blends of two or three tensors, nan_to_num, trace
    "atan2": lambda m: (m.atan2(grid(m, True), m.tensor([1.0, -2.0, 0.5])), m.arctan2(m.tensor([1, 2]), m.tensor([3, 4]))),
    "hypot": lambda m: m.hypot(grid(m, True), m.tensor([1.0, 2.0, 3.0])),
    "hypot_integers": lambda m: m.hypot(m.tensor([1]), m.tensor([2])),
    "lerp_number": lambda m: m.lerp(grid(m, True), m.zeros(2, 3), 0.25),
    "lerp_tensor": lambda m: grid(m, True).lerp(m.zeros(3), m.tensor([0.1, 0.5, 0.9], requires_grad=True)),
    "lerp_integers": lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5),
    "lerp_mixed_dtypes": lambda m: m.lerp(m.tensor([1.0]), m.tensor([3.0], dtype=m.float64), 0.5),
    "addcmul": lambda m: (m.addcmul(grid(m, True), m.tensor([1.0, 2.0, 3.0]), m.ones(2, 1), value=0.5),
                          m.addcmul(m.tensor([1]), m.tensor([2]), m.tensor([3]), value=2)),
    "addcdiv": lambda m: m.addcdiv(grid(m, True), m.tensor([1.0, 2.0, 3.0]), m.tensor([2.0, 4.0, 8.0]), value=2),
    "addcdiv_integers": lambda m: m.addcdiv(m.tensor([1]), m.tensor([2]), m.tensor([3])),
    "nan_to_num": lambda m: (m.nan_to_num(m.tensor([float("nan"), float("inf"), -float("inf"), 1.0], requires_grad=True)),
                             m.tensor([float("nan"), float("inf"), -float("inf")]).nan_to_num(nan=2.0, posinf=9.0),
                             m.nan_to_num(m.tensor([1, 2]))),
    "trace": lambda m: (m.trace(m.arange(12.0).reshape(3, 4).requires_grad_()), m.arange(9).reshape(3, 3).trace()),
    "trace_of_a_vector": lambda m: m.trace(m.zeros(3)),
    "in_place_blends": lambda m: (m.tensor([1.0, 2.0]).lerp_(m.tensor([3.0, 4.0]), 0.5),
                                  m.tensor([1.0, 2.0]).addcmul_(m.tensor([1.0, 1.0]), m.tensor([2.0, 2.0])),
                                  m.tensor([1.0, 2.0]).atan2_(m.tensor([1.0, 1.0])), m.tensor([float("nan")]).nan_to_num_()),
    # composites: PyTorch builds them from other ops, and so does nnref
    "meshgrid_ij": lambda m: m.meshgrid(m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3.0, 4.0, 5.0]), indexing="ij"),
    "meshgrid_xy": lambda m: m.meshgrid(m.tensor([1, 2]), m.tensor([3, 4, 5]), indexing="xy"),
    "meshgrid_graph": lambda m: [[f.name() for f, _ in g.grad_fn.next_functions] for g in m.meshgrid(
        m.tensor([1.0, 2.0], requires_grad=True), m.tensor(3.0, requires_grad=True), indexing="xy")],
    "meshgrid_list": lambda m: m.meshgrid([m.tensor([1, 2]), m.tensor([3])], indexing="ij"),
    "meshgrid_bad_indexing": lambda m: m.meshgrid(m.tensor([1, 2]), indexing="yx"),
    "take_along_dim": lambda m: (m.take_along_dim(grid(m, True), m.tensor([[0], [2]]), dim=1),
                                 grid(m).take_along_dim(m.tensor([0, 5])),
                                 m.take_along_dim(grid(m), m.tensor([[0, 1, 1]]), dim=0)),
    "argwhere": lambda m: m.argwhere(m.tensor([[0, 1], [2, 0]])),
    "repeat_interleave": lambda m: (m.arange(3.0).requires_grad_().repeat_interleave(2),
                                    m.repeat_interleave(grid(m, True), 3, dim=1),
                                    m.arange(3.0).requires_grad_().repeat_interleave(m.tensor([1, 0, 2])),
                                    grid(m).repeat_interleave(m.tensor([2, 1]), dim=0),
                                    m.repeat_interleave(m.tensor([2, 0, 1])), m.repeat_interleave(grid(m), 2)),
    "repeat_interleave_negative": lambda m: m.arange(3.0).repeat_interleave(-1),
    "index_add": lambda m: (m.zeros(3, 2, requires_grad=True).index_add(0, m.tensor([0, 2, 0]), m.ones(3, 2), alpha=2),
                            m.zeros(2, 3).index_add_(1, m.tensor([2, 2]), m.arange(4.0).reshape(2, 2)),
                            m.index_add(m.zeros(2, 3, dtype=m.int64), 1, m.tensor([2, 0]), m.arange(4).reshape(2, 2))),
    "diag": lambda m: (m.diag(m.tensor([1.0, 2.0, 3.0], requires_grad=True), 1), m.diag(m.tensor([1, 2]), -1),
                       m.diag(m.arange(12.0).reshape(3, 4).requires_grad_()), m.arange(12.0).reshape(3, 4).diag(-2),
                       m.diag(m.arange(12.0).reshape(3, 4), 5)),
    "diag_of_a_cube": lambda m: m.diag(m.zeros(2, 2, 2)),
    "diag_of_a_number": lambda m: m.diag(m.tensor(5.0)),
    "index_add_float_index": lambda m: m.zeros(3).index_add(0, m.tensor([0.0]), m.ones(1)),
    "index_add_out_of_range": lambda m: m.zeros(3).index_add(0, m.tensor([5]), m.ones(1)),
    "unique": lambda m: (m.unique(m.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)),
                         m.unique(m.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True),
                         m.unique(m.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True, return_counts=True),
                         m.tensor([[5, 1], [9, 5]]).unique(sorted=False, return_inverse=True)),
    # running ops
    "cumprod": lambda m: (m.cumprod(grid(m, True), 1), m.cumprod(m.tensor([1, 2, 3]), 0),
                          m.tensor([True, False]).cumprod(0), m.cumprod(m.tensor([1, 2]), 0, dtype=m.float32),
                          m.cumprod(m.tensor(2.0), 0), m.tensor([1.0, 2.0]).cumprod_(0), m.cumsum(m.tensor(2.0), 0)),
    "cumprod_bad_dim": lambda m: m.cumprod(grid(m), 2),
    "logcumsumexp": lambda m: (m.logcumsumexp(grid(m, True), 0), m.tensor([-1000.0, 0.0, -float("inf")]).logcumsumexp(0),
                               m.logcumsumexp(m.tensor([-float("inf"), -float("inf")]), 0),
                               m.logcumsumexp(m.tensor(2.0, dtype=m.float64), -1)),
    "logcumsumexp_integers": lambda m: m.logcumsumexp(m.tensor([1, 2]), 0),
    "cummax": lambda m: (*_no_nan(m.cummax(m.tensor([1.0, 3.0, 3.0, 2.0, 5.0, float("nan"), 7.0, float("nan")]), 0)),
                         m.cummax(m.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], requires_grad=True), 1),
                         m.tensor([[1, 3], [3, 2], [0, 5]]).cummax(0), m.cummax(m.tensor([True, False, True]), 0),
                         m.cummax(m.tensor(3.0), 0), m.cummax(m.zeros(0, 2), 1)),
    "cummin": lambda m: (*_no_nan(m.cummin(m.tensor([2.0, 1.0, 1.0, 3.0, float("nan"), 0.0]), 0)),
                         m.cummin(m.tensor([2.0, 1.0, 1.0, 3.0], requires_grad=True), 0),
                         m.tensor([[1, 3], [3, 2], [0, 5]]).cummin(1)),
    # special functions, signs, inverse hyperbolic functions, more binary ops
    "unary_integers_become_float": lambda m: [getattr(m, n)(t) for n in (
        "acosh", "asinh", "atanh", "deg2rad", "rad2deg", "exp2", "sinc", "logit", "erfc", "erfinv", "lgamma",
        "digamma") for t in (m.tensor([1, 2]), m.tensor([True, False]))],
    "unary_float64_and_grad": lambda m: [getattr(m, n)(m.tensor([0.25, 0.75], dtype=m.float64, requires_grad=True))
                                         for n in ("asinh", "atanh", "deg2rad", "rad2deg", "exp2", "sinc", "logit",
                                                   "erfc", "erfinv", "lgamma", "digamma", "sgn")],
    "unary_half": lambda m: [getattr(m, n)(m.tensor([0.25, 0.75, 180.0], dtype=m.float16)) for n in (
        "asinh", "deg2rad", "rad2deg", "exp2", "sinc")],
    "edges": lambda m: _no_nan([m.acosh(m.tensor([0.5, 1.0])), m.atanh(m.tensor([-1.0, 1.0, 2.0])),
                                m.logit(m.tensor([0.0, 1.0, -0.5])), m.logit(m.tensor([0.0, 1.0, -0.5]), eps=0.25),
                                m.sinc(m.tensor([0.0, 1.0, -0.5])), m.erfinv(m.tensor([-1.0, 1.0, 1.5])),
                                m.lgamma(m.tensor([0.0, -1.0, -2.5])), m.digamma(m.tensor([0.0, -1.0, -2.5])),
                                m.polygamma(1, m.tensor([0.0, -1.5, -2.5, 0.3])), m.polygamma(2, m.tensor([0.0, 0.3, 4.0])),
                                m.polygamma(3, m.tensor([0.7], dtype=m.float64))]),
    "polygamma": lambda m: (m.polygamma(1, m.tensor([0.5, 2.0], requires_grad=True)), m.tensor([1, 2]).polygamma(2),
                            m.tensor([0.5, 2.0]).polygamma_(0)),
    "polygamma_negative_n": lambda m: m.polygamma(-1, m.tensor([1.0])),
    "sinc_second_derivative_at_zero": lambda m: m.autograd.grad(m.autograd.grad(
        m.sinc(_leaf(m, [0.0, 0.5])).sum(), _LEAF[0], create_graph=True)[0].sum(), _LEAF[0])[0].nan_to_num(-7.0),
    "logaddexp": lambda m: (m.logaddexp(grid(m, True), m.tensor([1.0, 1000.0, -1000.0])),
                            m.logaddexp2(m.tensor([-float("inf"), 1.0]), m.tensor([-float("inf"), 1.0]))),
    "logaddexp_integers": lambda m: m.logaddexp(m.tensor([1]), m.tensor([2])),
    "logaddexp_number": lambda m: m.logaddexp(m.tensor([1.0]), 2.0),
    "logaddexp_broadcast_error": lambda m: m.logaddexp(m.zeros(2), m.zeros(3)),
    "xlogy_broadcast_error": lambda m: m.xlogy(m.zeros(2), m.zeros(3)),
    "xlogy": lambda m: (m.xlogy(m.tensor([0.0, 0.0, 1.0, 2.0], requires_grad=True), m.tensor([0.0, float("nan"), 0.0, 3.0])),
                        m.xlogy(2, m.tensor([1, 2])), m.xlogy(m.tensor([1, 2]), 3),
                        m.xlogy(m.tensor([1.0], dtype=m.float64), m.tensor([2.0])),
                        m.tensor([1.0, 0.0]).xlogy_(m.tensor([2.0, 0.0]))),
    # PyTorch's xlogy gradient at x = 0 is log(y) where y > 0 (the limit), 0 where y <= 0
    "xlogy_gradient_at_zero": lambda m: (
        m.autograd.grad(m.xlogy(_leaf(m, [0.0, 0.0, 0.0, 1.0]), m.tensor([0.5, 0.0, -1.0, 2.0])).sum(), _LEAF[0])[0],
        m.autograd.grad(m.xlogy(_leaf(m, [0.0, 1.0]), 0.5).sum(), _LEAF[0])[0],
        m.autograd.grad(m.xlogy(_leaf(m, [0.0, 1.0]), 0.0).sum(), _LEAF[0])[0]),
    "signs": lambda m: (m.sgn(m.tensor([-2.0, 0.0, 3.0], requires_grad=True)), m.sgn(m.tensor([-2, 0, 3])),
                        m.sgn(m.tensor([True, False])), m.signbit(m.tensor([-0.0, 0.0, -1.0, float("nan")])),
                        m.signbit(m.tensor([-1, 2])), m.signbit(m.tensor([True])), m.tensor([-1.0]).sgn_()),
    "copysign": lambda m: (m.copysign(m.tensor([1.0, -2.0, 0.0], requires_grad=True), m.tensor([-1.0, 1.0, -0.0])),
                           m.copysign(m.tensor([1.0, -2.0], requires_grad=True), -1.0),
                           m.copysign(m.tensor([1, 2]), m.tensor([-1, 2])), m.copysign(m.tensor([1, 2]), -1),
                           m.tensor([1.0, 2.0]).copysign_(-1.0)),
    "copysign_gradients": lambda m: _grads(m, lambda a, b: m.copysign(a, b), [1.0, -2.0, 0.0], [-1.0, 1.0, -0.0]),
    "heaviside": lambda m: (m.heaviside(m.tensor([-1.0, 0.0, 2.0], requires_grad=True), m.tensor([0.5])),
                            m.heaviside(m.tensor([1, 0]), m.tensor([5])), m.tensor([0.0, 3.0]).heaviside_(m.tensor([0.25]))),
    "heaviside_mixed_dtypes": lambda m: m.heaviside(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64)),
    "heaviside_number": lambda m: m.heaviside(m.tensor([1.0]), 0.5),
    "heaviside_backward": lambda m: m.heaviside(m.tensor([1.0], requires_grad=True), m.tensor([0.5])).sum().backward(),
    "fmod": lambda m: (m.fmod(m.tensor([5.0, -5.0, 4.5], requires_grad=True), -3), m.fmod(m.tensor([5, -5]), 3),
                       m.fmod(m.tensor([5.0, -5.0]), m.tensor([3.0, 2.0], requires_grad=True)),
                       m.fmod(m.tensor([True, False]), 2), m.tensor([7, -7]).fmod_(4), m.fmod(m.tensor([1.0]), 0.0)),
    "fmod_integer_by_zero": lambda m: m.fmod(m.tensor([5, -5]), 0),
    "fmod_gradients": lambda m: _grads(m, lambda a, b: m.fmod(a, b), [5.0, -5.0, 4.5], [3.0, 2.0, -2.0]),
    "fmax_fmin": lambda m: (m.fmax(m.tensor([1.0, float("nan"), 2.0], requires_grad=True), m.tensor([float("nan"), 0.0, 2.0])),
                            m.fmin(m.tensor([1, 5]), m.tensor([2.0, 3.0])), m.tensor([1, 5]).fmax(m.tensor([3]))),
    "fmax_number": lambda m: m.fmax(m.tensor([1.0]), 2.0),
    "fmax_gradients": lambda m: _grads(m, lambda a, b: m.fmax(a, b), [1.0, float("nan"), 2.0, 3.0], [float("nan"), 0.0, 2.0, 1.0]),
    "fmin_gradients": lambda m: _grads(m, lambda a, b: m.fmin(a, b), [1.0, float("nan"), 2.0, 3.0], [float("nan"), 0.0, 2.0, 1.0]),
    "float_power": lambda m: (m.float_power(m.tensor([2.0, 3.0], requires_grad=True), 2),
                              m.float_power(2, m.tensor([2, 3])), m.float_power(m.tensor([2]), m.tensor([0.5])),
                              m.tensor([2.0], dtype=m.float64).float_power_(3)),
    "float_power_graph": lambda m: [type(f).__name__ for f, _ in m.float_power(
        m.tensor([2.0], requires_grad=True), m.tensor([3.0], requires_grad=True)).grad_fn.next_functions],
    "float_power_in_place_float32": lambda m: m.tensor([2.0]).float_power_(2),
    "aliases": lambda m: (m.true_divide(m.tensor([1, 2]), 2), m.tensor([1.0]).true_divide_(2), m.tensor([3.0]).divide(2),
                          m.tensor([3.0]).multiply_(2), m.tensor([3.0]).subtract_(1, alpha=2), m.absolute(m.tensor([-1])),
                          m.tensor([-1.5]).absolute_(), m.greater(m.tensor([1, 2]), 1), m.tensor([1, 2]).greater_equal(2),
                          m.less(m.tensor([1.0]), m.tensor([2])), m.tensor([1]).less_equal(1), m.not_equal(m.tensor([1, 2]), 2),
                          m.arccosh(m.tensor([2.0])), m.tensor([0.5]).arcsinh_(), m.arctanh(m.tensor([0.5], requires_grad=True))),
    "out": lambda m: [f(out=o) for f, o in (
        (lambda out: m.erfc(m.tensor([0.5]), out=out), m.empty(1)),
        (lambda out: m.fmod(m.tensor([5.0]), 3, out=out), m.empty(1, dtype=m.float64)),
        (lambda out: m.signbit(m.tensor([-1.0]), out=out), m.empty(1, dtype=m.bool)),
        (lambda out: m.greater(m.tensor([1]), 0, out=out), m.empty(1, dtype=m.bool)))],
    # order statistics (rows with a repeated value compare values only: PyTorch leaves that index unspecified)
    "median": lambda m: (m.median(_rows(m, True)), m.median(_rows(m, True), 1), m.median(_rows(m), 0, keepdim=True),
                         m.median(m.tensor([1, 2, 3, 4])), m.tensor([4, 1, 3]).median(0), m.median(m.tensor(3.0)),
                         m.median(m.tensor(3.0), 0), m.median(m.zeros(0, 3), 1), m.median(m.tensor([]))),
    "median_with_nan": lambda m: (m.median(m.tensor([1.0, float("nan"), 2.0], requires_grad=True)),
                                  m.median(m.tensor([[1.0, float("nan"), 2.0], [3.0, 1.0, 2.0]]), 1)),
    "median_ties_values": lambda m: (m.median(m.tensor([[3.0, 1.0, 2.0, 1.0], [2.0, 5.0, 4.0, 4.0]]), 1).values,
                                     m.kthvalue(m.tensor([[3.0, 1.0, 2.0, 1.0], [2.0, 5.0, 4.0, 4.0]]), 2).values),
    "median_ties_gradient": lambda m: _grad_of(m, lambda x: m.median(x), [1.0, 2.0, 2.0, 3.0, 2.0]),
    "median_bool": lambda m: m.median(m.tensor([True, False])),
    "median_empty_dim": lambda m: m.median(m.zeros(0, 3), 0),
    "median_bad_dim": lambda m: m.median(_rows(m), 2),
    "nanmedian": lambda m: (m.nanmedian(m.tensor([[1.0, float("nan"), 2.0, 5.0], [6.0, 5.0, float("nan"), float("nan")]],
                                                  requires_grad=True), 1),
                            m.nanmedian(m.tensor([[1.0, 2.0], [float("nan")] * 2]), 1).values,  # (all NaN: any index)
                            m.nanmedian(m.tensor([float("nan"), 1.0, 3.0], requires_grad=True)),
                            m.nanmedian(m.tensor([float("nan")] * 2)), m.nanmedian(m.tensor([3, 1, 2]))),
    "nanmedian_all_nan_gradient": lambda m: _grad_of(m, lambda x: m.nanmedian(x), [float("nan"), 1.0, float("nan")]),
    "kthvalue": lambda m: (m.kthvalue(_rows(m, True), 2), m.kthvalue(_rows(m, True), 1, 0, keepdim=True),
                           _rows(m).kthvalue(3, dim=-1), m.kthvalue(m.tensor([3, 1, 2]), 3), m.kthvalue(m.tensor(3.0), 1),
                           m.kthvalue(m.tensor([float("nan"), 1.0, 2.0]), 3)),
    "kthvalue_k_too_large": lambda m: m.kthvalue(_rows(m), 5),
    "kthvalue_k_zero": lambda m: m.kthvalue(_rows(m), 0, 0),
    "mode": lambda m: (m.mode(m.tensor([[1, 2, 2, 1], [3, 3, 1, 1], [5, 4, 4, 7]]), 1), m.mode(m.tensor([1, 2, 2, 3, 3])),
                       m.mode(m.tensor([2.0, float("nan"), float("nan"), 1.0])), m.mode(m.tensor([True, False, False])),
                       m.mode(m.tensor([[1.0, 2.0], [1.0, 3.0], [4.0, 3.0]], requires_grad=True), 0, keepdim=True),
                       m.mode(m.tensor(3.0)), m.tensor([3.0, 1.0]).mode()),
    "mode_empty": lambda m: m.mode(m.zeros(0, 3), 0),
    # pairs from one node, NaN-skipping sums
    "var_mean": lambda m: (m.var_mean(_rows(m, True), 1), m.var_mean(_rows(m), 1, False), m.var_mean(_rows(m), (0, 1), keepdim=True),
                           m.var_mean(_rows(m), correction=0), m.std_mean(_rows(m, True), 0), m.std_mean(_rows(m), dim=1, unbiased=False),
                           m.var_mean(m.tensor([1.0, 2.0], dtype=m.float64)), m.std_mean(m.tensor([1.0, 2.0], dtype=m.float16))),
    "var_mean_same_node": lambda m: [v.grad_fn is mu.grad_fn for v, mu in (m.var_mean(_rows(m, True)), m.std_mean(_rows(m, True), 1))],
    "var_mean_integers": lambda m: m.var_mean(m.tensor([1, 2])),
    "var_mean_gradients": lambda m: _grad_of(m, lambda x: sum(t.sum() for t in m.var_mean(x.reshape(2, 2), 0)), [1.0, 2.0, 4.0, 0.0]),
    "std_mean_gradients": lambda m: _grad_of(m, lambda x: m.std_mean(x.reshape(2, 2), 1)[0].sum() * 3 + m.std_mean(x)[1],
                                             [1.0, 1.0, 4.0, 0.0]),
    "aminmax": lambda m: (m.aminmax(_rows(m, True)), m.aminmax(_rows(m, True), dim=0), _rows(m).aminmax(dim=-1, keepdim=True),
                          m.aminmax(_rows(m), keepdim=True), m.aminmax(m.tensor([1, 2])), m.aminmax(m.tensor(3.0)),
                          m.aminmax(m.tensor([True, False])), m.aminmax(m.tensor([1.0, float("nan")]))),
    "aminmax_ties_gradient": lambda m: _grad_of(m, lambda x: sum(t.sum() * (i + 1) for i, t in enumerate(m.aminmax(x))),
                                                [1.0, 3.0, 1.0, 3.0, 2.0]),
    "aminmax_empty": lambda m: m.aminmax(m.zeros(0)),
    "aminmax_positional_dim": lambda m: m.aminmax(_rows(m), 0),
    "nansum": lambda m: (m.nansum(m.tensor([[1.0, float("nan")], [2.0, 3.0]], requires_grad=True), 1, keepdim=True),
                         m.nansum(m.tensor([1, 2], dtype=m.int8)), m.tensor([True, True]).nansum(),
                         m.nansum(m.tensor([float("nan"), 1.0]), dtype=m.float64), m.nansum(m.tensor([float("nan")])),
                         m.nansum(m.tensor([[1.0, float("nan")], [2.0, 3.0]]), (0, 1))),
    "nansum_gradient": lambda m: _grad_of(m, lambda x: m.nansum(x), [1.0, float("nan"), 2.0]),
    "nanmean": lambda m: (m.nanmean(m.tensor([[1.0, float("nan")], [2.0, 3.0]], requires_grad=True), 0),
                          m.tensor([float("nan"), float("nan")]).nanmean(), m.nanmean(m.tensor([1.0, 2.0]), dtype=m.float64),
                          m.nanmean(m.tensor([[1.0, float("nan")], [float("nan"), float("nan")]]), 1, keepdim=True)),
    "nanmean_gradient": lambda m: _grad_of(m, lambda x: m.nanmean(x), [1.0, float("nan"), 2.0]),
    "nanmean_integers": lambda m: m.nanmean(m.tensor([1, 2])),
    # shape composites
    "diff": lambda m: (m.diff(grid(m, True)), m.diff(grid(m, True), n=2, dim=0), m.tensor([1, 4, 9]).diff(),
                       m.diff(m.tensor([True, False, False])), m.diff(m.tensor([1.0, 2.0], requires_grad=True), n=0),
                       m.diff(m.tensor([1.0, 3.0]), n=5), m.diff(m.tensor([1, 2]), prepend=m.tensor([0.5]), append=m.tensor([7]))),
    "diff_0d": lambda m: m.diff(m.tensor(1.0)),
    "diff_negative_n": lambda m: m.diff(m.tensor([1.0]), n=-1),
    "diff_0d_prepend": lambda m: m.diff(m.tensor([1.0]), prepend=m.tensor(0.0)),
    "rot90": lambda m: (m.rot90(grid(m, True)), grid(m).rot90(2), m.rot90(grid(m), -1, [1, 0]), m.rot90(grid(m), 0),
                        m.rot90(m.arange(8).reshape(2, 2, 2), 3, (2, 0))),
    "rot90_1d": lambda m: m.rot90(m.zeros(3)),
    "rot90_same_dims": lambda m: m.rot90(grid(m), 1, (1, 1)),
    "rot90_three_dims": lambda m: m.rot90(grid(m), 1, (0, 1, 1)),
    "fliplr_flipud": lambda m: (m.fliplr(grid(m, True)), grid(m).flipud(), m.flipud(m.tensor([1, 2]))),
    "fliplr_1d": lambda m: m.fliplr(m.zeros(3)),
    "flipud_0d": lambda m: m.flipud(m.tensor(1.0)),
    "tensor_split": lambda m: (m.tensor_split(m.arange(7.0, requires_grad=True), 3), grid(m).tensor_split([1, 5], dim=1),
                               m.tensor_split(grid(m), m.tensor(2), 1), m.tensor_split(m.arange(5), m.tensor([1, 3])),
                               m.tensor_split(m.arange(2), 4), m.tensor_split(m.arange(4), [3, 1]),
                               m.tensor_split(m.arange(4), [-1, 2]), m.tensor_split(m.arange(4), (-3, 6))),
    "tensor_split_zero_sections": lambda m: m.tensor_split(m.arange(4), 0),
    "tensor_split_0d": lambda m: m.tensor_split(m.tensor(1.0), 1),
    "tensor_split_float_indices": lambda m: m.tensor_split(m.arange(4), m.tensor([1.0])),
    "hsplit_vsplit_dsplit": lambda m: (m.hsplit(grid(m, True), 3), m.hsplit(m.arange(4), [1]), m.vsplit(grid(m), 2),
                                       m.zeros(2, 2, 4).dsplit([1, 3]), grid(m).hsplit([2])),
    "hsplit_not_divisible": lambda m: m.hsplit(grid(m), 2),
    "vsplit_1d": lambda m: m.vsplit(m.arange(4), 2),
    "dsplit_2d": lambda m: m.dsplit(grid(m), 1),
    "stacks": lambda m: (m.hstack([m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3])]), m.hstack((grid(m), grid(m))),
                         m.vstack([m.tensor([1, 2]), m.tensor([[3, 4]])]), m.vstack([m.tensor(1.0), m.tensor(2.0)]),
                         m.dstack([grid(m), grid(m, True)]), m.dstack([m.tensor([1, 2]), m.tensor([3, 4])]),
                         m.column_stack([m.tensor([1.0, 2.0]), m.tensor([[3.0], [4.0]]), m.tensor([5, 6])]),
                         m.column_stack((m.tensor(1.0), m.tensor(2.0)))),
    "hstack_empty": lambda m: m.hstack([]),
    "vstack_mismatch": lambda m: m.vstack([m.zeros(2), m.zeros(3)]),
    "atleast": lambda m: (m.atleast_1d(m.tensor(1.0, requires_grad=True)), m.atleast_1d(m.tensor(1), m.tensor([2])),
                          m.atleast_2d(m.tensor([1.0, 2.0], requires_grad=True)), m.atleast_2d([m.tensor(1.0)]),
                          m.atleast_3d(grid(m, True)), m.atleast_3d(m.tensor([1, 2]), m.tensor(3), m.zeros(1, 2, 3, 4)),
                          m.atleast_1d()),
    "broadcast_tensors": lambda m: (m.broadcast_tensors(grid(m, True), m.tensor([1.0, 2.0, 3.0], requires_grad=True)),
                                    m.broadcast_tensors(m.tensor(1), m.zeros(2, 1), m.ones(3)), m.broadcast_tensors(grid(m)),
                                    (lambda t: [u is t for u in m.broadcast_tensors(t, m.zeros(3))])(grid(m))),
    "broadcast_tensors_mismatch": lambda m: m.broadcast_tensors(m.zeros(2), m.zeros(3)),
    # beta * input + alpha * product, vdot, kron, cross
    "addmv": lambda m: (m.addmv(m.tensor([1.0, 2.0], requires_grad=True), grid(m, True), m.tensor([1.0, 0.5, -1.0])),
                        m.addmv(m.tensor(1.0), grid(m), m.ones(3), beta=0.5, alpha=2),
                        m.addmv(m.tensor([float("nan"), 1.0]), grid(m), m.ones(3), beta=0),
                        m.tensor([1, 2]).addmv(m.tensor([[1, 2], [3, 4]]), m.tensor([1, 1]), beta=2, alpha=3),
                        m.tensor([1.0, 2.0]).addmv_(grid(m), m.ones(3)),
                        m.addmv(m.tensor([1.0, 2.0], dtype=m.float16), grid(m).half(), m.ones(3, dtype=m.float16))),
    "addmv_sizes": lambda m: m.addmv(m.zeros(2), grid(m), m.ones(4)),
    "addmv_ranks": lambda m: m.addmv(m.zeros(2), m.ones(3), m.ones(3)),
    "addmv_dtypes": lambda m: m.addmv(m.zeros(2, dtype=m.float64), grid(m), m.ones(3)),
    "float_scalars_on_integers": lambda m: (m.addmv(m.tensor([1]), m.tensor([[1]]), m.tensor([1]), alpha=0.5),
                                            m.addmv(m.tensor([1]), m.tensor([[1]]), m.tensor([1]), beta=2.5, alpha=1.5),
                                            m.baddbmm(m.ones(1, 1, 1, dtype=m.int64), m.ones(1, 1, 1, dtype=m.int64),
                                                      m.ones(1, 1, 1, dtype=m.int64), beta=0.5)),
    "addr_float_alpha_on_integers": lambda m: m.addr(m.tensor([[1]]), m.tensor([1]), m.tensor([1]), alpha=0.5),
    "addr": lambda m: (m.addr(grid(m, True), m.tensor([1.0, 2.0], requires_grad=True), m.tensor([1.0, 0.5, -1.0])),
                       m.addr(m.tensor([[1, 2]]), m.tensor([1]), m.tensor([2, 3]), beta=2, alpha=3),
                       grid(m).addr_(m.ones(2), m.ones(3), alpha=-1)),
    "addr_matrix": lambda m: m.addr(grid(m), grid(m), m.ones(3)),
    "baddbmm": lambda m: (m.baddbmm(m.ones(2, 2, 2, requires_grad=True), m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2), beta=0.5),
                          m.ones(2, 2).baddbmm(m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2), alpha=2),
                          m.ones(2, 2, 2).baddbmm_(m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2))),
    "baddbmm_batches": lambda m: m.baddbmm(m.zeros(2, 2, 2), m.zeros(2, 2, 3), m.zeros(3, 3, 2)),
    "addbmm": lambda m: (m.addbmm(m.ones(2, 2, requires_grad=True), m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2)),
                         m.ones(2).addbmm(m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2), beta=0.5, alpha=2),
                         m.ones(2, 2).addbmm_(m.arange(8.0).reshape(2, 2, 2), m.ones(2, 2, 2))),
    "addbmm_inner_sizes": lambda m: m.addbmm(m.zeros(2, 2), m.zeros(2, 2, 3), m.zeros(2, 2, 2)),
    "vdot": lambda m: (m.vdot(m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3.0, 4.0])), m.tensor([1, 2]).vdot(m.tensor([3, 4]))),
    "vdot_dtypes": lambda m: m.vdot(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64)),
    "vdot_matrices": lambda m: m.vdot(grid(m), grid(m)),
    "kron": lambda m: (m.kron(grid(m, True), m.tensor([1.0, 10.0])), m.kron(m.tensor([1, 2]), m.tensor([[1], [3]])),
                       m.tensor(2.0).kron(m.tensor([1.0, 2.0])), m.kron(m.tensor(2), m.tensor(3))),
    "kron_graph": lambda m: (lambda f: [f.name(), [n.name() for n, _ in f.next_functions[0][0].next_functions]])(
        m.kron(grid(m, True), m.tensor([1.0, 10.0], requires_grad=True)).grad_fn),
    "cross": lambda m: (m.cross(m.tensor([1.0, 0.0, 0.0], requires_grad=True), m.tensor([0.0, 1.0, 0.0]), dim=0),
                        m.cross(m.arange(6.0).reshape(2, 3), m.tensor([[1.0, 2.0, 0.5]]), dim=1),
                        m.tensor([[1, 0], [0, 1], [0, 0]]).cross(m.tensor([[0, 0], [1, 0], [0, 1]]), dim=0)),
    "cross_no_dim": lambda m: m.cross(m.arange(6.0).reshape(2, 3), m.ones(2, 3)),
    "cross_ranks": lambda m: m.cross(m.ones(2, 3), m.ones(3), dim=1),
    "cross_length": lambda m: m.cross(m.ones(4), m.ones(4), dim=0),
    # writing into picked places, and take
    "take": lambda m: (m.take(grid(m, True), m.tensor([[0, 5], [-1, 0]])), grid(m).take(m.tensor(3)), m.take(m.tensor(7), m.tensor([0, -1]))),
    "take_out_of_range": lambda m: grid(m).take(m.tensor([6])),
    "take_int32_index": lambda m: grid(m).take(m.tensor([1], dtype=m.int32)),
    "take_float_index": lambda m: grid(m).take(m.tensor([1.0])),
    "index_copy": lambda m: (m.index_copy(grid(m, True), 1, m.tensor([2, 0]), m.tensor([[10.0, 11.0], [12.0, 13.0]], requires_grad=True)),
                             m.arange(6).reshape(3, 2).index_copy(0, m.tensor([1]), m.tensor([[7, 8]])),
                             grid(m).index_copy_(0, m.tensor([0]), m.ones(1, 3))),
    "index_copy_int32_index": lambda m: grid(m).index_copy(0, m.tensor([0], dtype=m.int32), m.ones(1, 3)),
    "index_copy_out_of_range": lambda m: grid(m).index_copy(0, m.tensor([2]), m.ones(1, 3)),
    "index_copy_negative": lambda m: grid(m).index_copy(0, m.tensor([-1]), m.ones(1, 3)),
    "index_copy_slice_shape": lambda m: grid(m).index_copy(0, m.tensor([0]), m.ones(1, 2)),
    "index_copy_dtypes": lambda m: grid(m).index_copy(0, m.tensor([0]), m.ones(1, 3, dtype=m.float64)),
    "index_fill": lambda m: (m.index_fill(grid(m, True), 1, m.tensor([0, -1]), -1), m.arange(3).index_fill(0, m.tensor([0]), 1.5),
                             grid(m, True).index_fill(0, m.tensor([1]), m.tensor(2.0, requires_grad=True)),
                             grid(m).index_fill_(1, m.tensor([1, 1]), 0.5)),
    "index_fill_out_of_range": lambda m: grid(m).index_fill(1, m.tensor([3]), 0),
    "index_fill_vector_value": lambda m: grid(m).index_fill(0, m.tensor([0]), m.tensor([1.0, 2.0])),
    "index_fill_value_gradient": lambda m: _grad_of(m, lambda v: grid(m).index_fill(1, m.tensor([2, 0, 2]), v).sum(), 3.0),
    "index_fill_negative_value_gradient": lambda m: _grad_of(m, lambda v: grid(m).index_fill(1, m.tensor([-1]), v).sum(), 3.0),
    "masked_scatter": lambda m: (m.masked_scatter(grid(m, True), grid(m) > 2, m.arange(10.0, 20.0, requires_grad=True)),
                                 grid(m).masked_scatter(m.tensor([True, False, True]), -m.arange(12.0).reshape(3, 4)),
                                 grid(m).masked_scatter_(grid(m) < 1, m.tensor([9.0]))),
    "masked_scatter_gradients": lambda m: _grads(m, lambda a, b: m.masked_scatter(a, m.tensor([True, False, True]), b) * 2,
                                                 [1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]),
    "masked_scatter_too_few": lambda m: grid(m).masked_scatter(grid(m) > 1, m.arange(3.0)),
    "masked_scatter_dtypes": lambda m: grid(m).masked_scatter(grid(m) > 1, m.arange(9)),
    "masked_scatter_int_mask": lambda m: grid(m).masked_scatter((grid(m) > 1).int(), m.arange(9.0)),
    "select_scatter": lambda m: (m.select_scatter(grid(m, True), m.tensor([7.0, 8.0, 9.0], requires_grad=True), 0, -1),
                                 m.select_scatter(grid(m), m.ones(2, dtype=m.int64), 1, 0)),
    "select_scatter_size": lambda m: m.select_scatter(grid(m), m.ones(2), 0, 0),
    "select_scatter_index": lambda m: m.select_scatter(grid(m), m.ones(3), 0, 2),
    "slice_scatter": lambda m: (m.slice_scatter(grid(m, True), m.ones(2, 2, requires_grad=True), 1, 0, 3, 2),
                                m.slice_scatter(grid(m), m.zeros(2, 3)), m.slice_scatter(grid(m), m.ones(2, 1), 1, -1),
                                grid(m).slice_scatter(m.ones(1, 3), start=1)),
    "slice_scatter_size": lambda m: m.slice_scatter(grid(m), m.ones(2, 2), 1),
    "diagonal_scatter": lambda m: (m.diagonal_scatter(grid(m, True), m.tensor([7.0, 8.0], requires_grad=True)),
                                   m.diagonal_scatter(m.zeros(3, 4), m.ones(2), 2), m.zeros(3, 4).diagonal_scatter(m.ones(2), -1),
                                   m.diagonal_scatter(m.zeros(2, 3, 3), m.ones(3, 2), 0, 0, 2),
                                   m.diagonal_scatter(m.zeros(3, 4), m.ones(3, dtype=m.int64))),
    "diagonal_scatter_size": lambda m: m.diagonal_scatter(m.zeros(3, 4), m.ones(2)),
    "diagonal_scatter_same_dims": lambda m: m.diagonal_scatter(m.zeros(3, 3), m.ones(3), 0, 1, 1),
    "scatter_reduce": lambda m: [m.full((3, 3), 10.0).scatter_reduce(0, m.tensor([[0, 1, 0], [1, 1, 0]]),
                                                                     m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), r,
                                                                     include_self=i)
                                 for r in ("sum", "prod", "mean", "amax", "amin", "max", "min") for i in (True, False)],
    "scatter_reduce_integers": lambda m: [m.tensor([5, 7, 9]).scatter_reduce(0, m.tensor([0, 0, 1, 1]), m.tensor([2, 3, -4, 1]),
                                                                             r, include_self=i)
                                          for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False)],
    "scatter_reduce_gradients": lambda m: [_grads(m, lambda a, b: m.scatter_reduce(a, 0, m.tensor([0, 2, 0, 0]), b, r,
                                                                                   include_self=i) * m.tensor([1.0, 2.0, 3.0]),
                                                  [2.0, 0.0, 3.0], [2.0, 0.0, 1.0, 2.0])
                                           for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False)],
    "scatter_reduce_node": lambda m: (m.scatter_reduce(grid(m, True), 1, m.tensor([[0], [2]]), m.ones(2, 1), "sum"),
                                      grid(m).scatter_reduce_(1, m.tensor([[0, 0]]), m.ones(1, 2), "mean")),
    "scatter_reduce_bad_reduce": lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]), m.ones(1), "add"),
    "scatter_reduce_dtypes": lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]), m.ones(1, dtype=m.float64), "sum"),
    "scatter_reduce_larger_src_backward": lambda m: m.scatter_reduce(
        m.zeros(3, requires_grad=True), 0, m.tensor([0]), m.ones(2, requires_grad=True), "sum").sum().backward(),
    # searching, index factories, bitwise ops
    "searchsorted": lambda m: (m.searchsorted(_sorted_rows(m), m.tensor([[3, 6, 9], [3, 6, 9]])),
                               m.searchsorted(_sorted_rows(m), m.tensor([[3, 6, 9], [3, 6, 9]]), right=True),
                               m.searchsorted(_sorted_rows(m)[0], m.tensor(5)), m.searchsorted(_sorted_rows(m)[0], 5),
                               m.searchsorted(_sorted_rows(m)[0], m.tensor([[3, 6, 9]]), side="right", out_int32=True),
                               m.searchsorted(m.tensor([1.0, 2.0, float("nan")]), m.tensor([float("nan"), 2.0, 3.0])),
                               m.searchsorted(m.tensor([3, 1, 2]), m.tensor([2]), sorter=m.tensor([1, 2, 0])),
                               m.searchsorted(m.tensor([1, 2]), m.tensor([1.5])),
                               m.searchsorted(m.tensor([1.0, 2.0, float("nan"), float("nan")]), m.tensor([3.0, 0.5, 2.0, 1.0])),
                               m.searchsorted(m.tensor([1.0, 2.0, float("nan"), float("nan")]), m.tensor([3.0, 0.5, 2.0, 1.0]),
                                              right=True),
                               m.searchsorted(m.tensor([1, 2, 2, 2, 3, 5, 8]), m.tensor([[2, 0, 9], [5, 3, 2]]), right=True),
                               m.searchsorted(m.zeros(0), m.tensor([1.0])), m.searchsorted(m.zeros(2, 0), m.zeros(2, 1))),
    "searchsorted_shapes": lambda m: m.searchsorted(_sorted_rows(m), m.tensor([1])),
    "searchsorted_scalar_with_rows": lambda m: m.searchsorted(_sorted_rows(m), 1),
    "searchsorted_side": lambda m: m.searchsorted(m.tensor([1]), m.tensor([1]), side="middle"),
    "bucketize": lambda m: (m.bucketize(m.tensor([[3, 6, 9], [1, 10, 0]]), m.tensor([1, 3, 5, 7, 9]), right=True),
                            m.bucketize(5, m.tensor([1, 3, 5])), m.bucketize(m.tensor([0.5, 7.0]), m.tensor([1, 3]), out_int32=True)),
    "bucketize_2d_boundaries": lambda m: m.bucketize(m.tensor([1.0]), m.tensor([[1.0]])),
    "isin": lambda m: (m.isin(m.tensor([1, 2, 3]), m.tensor([2, 5])), m.isin(m.tensor([1.0, 2.0]), 2),
                       m.isin(2, m.tensor([1, 2])), m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([[2], [4]]), invert=True),
                       m.isin(m.tensor([1, 2]), m.tensor([1.5, 2.0]))),
    "isin_bool": lambda m: m.isin(m.tensor([True]), m.tensor([1])),
    "tril_triu_indices": lambda m: (m.tril_indices(3, 3), m.triu_indices(3, 4, 1), m.tril_indices(2, 3, -1, dtype=m.int32),
                                    m.triu_indices(0, 3), m.tril_indices(4, 2, 5), m.triu_indices(3, 3, -5)),
    "tril_indices_float": lambda m: m.tril_indices(3, 3, dtype=m.float32),
    "bitwise": lambda m: (m.bitwise_and(m.tensor([12, 10]), m.tensor([10, 6])), m.tensor([12, 10]).bitwise_or(m.tensor([10, 6])),
                          m.bitwise_xor(m.tensor([12, 10]), 3), m.bitwise_not(m.tensor([12, 10])), 3 & m.tensor([12, 10]),
                          3 | m.tensor([12, 10]), 3 ^ m.tensor([12, 10]), m.tensor([12, 10]).bitwise_and_(m.tensor([10, 6])),
                          m.tensor([12, 10]).bitwise_not_(), m.tensor([True, False]) & True, m.bitwise_not(m.tensor([True])),
                          _augmented(m)),
    "bitwise_floats": lambda m: m.bitwise_and(m.tensor([1.0]), m.tensor([1.0])),
    "comparisons_in_place": lambda m: [_compared(m, name, other) for name in (
        "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_")
        for other in (2.0, m.tensor([3.0, 2.0, 1.0], requires_grad=True))] + [
        m.tensor([1, 2, 3]).lt_(1.5), m.tensor([True, False]).eq_(m.tensor([True, True]))],
    "comparison_in_place_broadcast": lambda m: m.tensor([1.0]).lt_(m.tensor([1.0, 2.0])),
    # matrices from diagonals and blocks, msort, logspace
    "diag_embed": lambda m: (m.diag_embed(grid(m, True)), m.diag_embed(grid(m), 1, 0, 2), grid(m).diag_embed(-1, 2, 0),
                             m.diag_embed(m.tensor(2.0)), m.diag_embed(m.tensor([1, 2]), 0, 1, -2)),
    "diag_embed_same_dims": lambda m: m.diag_embed(grid(m), 0, 1, 1),
    "diagflat": lambda m: (m.diagflat(grid(m, True)), m.tensor([3.0, 1.0], requires_grad=True).diagflat(-1),
                           m.diagflat(m.tensor(3)), m.diagflat(grid(m).t(), 2)),
    "block_diag": lambda m: (m.block_diag(grid(m, True), m.tensor([3.0, 1.0]), m.tensor(5.0)),
                             m.block_diag(m.tensor([[1, 2]]), m.tensor([1.5])), m.block_diag()),
    "block_diag_gradients": lambda m: _grads(m, lambda a, b: m.block_diag(a.reshape(2, 2), b) * m.arange(15.0).reshape(3, 5),
                                             [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0]),
    "block_diag_3d": lambda m: m.block_diag(m.zeros(1, 1, 1)),
    "msort": lambda m: (m.msort(grid(m, True).t()), m.tensor([3, 1, 2]).msort()),
    "logspace": lambda m: (m.logspace(0, 2, 3), m.logspace(-1, 1, 3, dtype=m.int64), m.logspace(0, 3, 4, base=2, dtype=m.float64),
                           m.logspace(1, 0, 1), m.logspace(0, 1, 0)),
    "logspace_negative_steps": lambda m: m.logspace(0, 1, -1),
    # gcd, lcm, cartesian_prod, unique_consecutive, top-level cosine_similarity and pairwise_distance
    "gcd_lcm": lambda m: (m.gcd(m.tensor([12, -18, 0]), m.tensor([8, 12, 0])), m.lcm(m.tensor([4, -6, 0]), m.tensor([6, 4, 5])),
                          m.gcd(m.tensor([12], dtype=m.int32), m.tensor([8])), m.tensor([12]).gcd_(m.tensor([8])),
                          m.tensor([4]).lcm(m.tensor([6])), m.tensor([4]).lcm_(m.tensor([6]))),
    "gcd_number": lambda m: m.gcd(m.tensor([9, 6]), 6),
    "gcd_floats": lambda m: m.gcd(m.tensor([1.0]), m.tensor([1.0])),
    "cartesian_prod": lambda m: (m.cartesian_prod(m.tensor([1.0, 2.0], requires_grad=True), m.tensor([3.0, 4.0, 5.0])),
                                 m.cartesian_prod(m.tensor([1, 2]), m.tensor([3]), m.tensor([4, 5])),
                                 (lambda v: m.cartesian_prod(v) is v)(m.tensor([1.0]))),
    "cartesian_prod_2d": lambda m: m.cartesian_prod(m.zeros(2, 2)),
    "unique_consecutive": lambda m: (m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1]), return_inverse=True, return_counts=True),
                                     m.unique_consecutive(m.tensor([[1, 1], [1, 1], [2, 3]]), dim=0),
                                     m.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(return_inverse=True),
                                     m.unique_consecutive(m.tensor(3)), m.unique_consecutive(m.tensor([]), return_counts=True),
                                     m.unique_consecutive(m.tensor([[1, 1], [1, 1], [2, 3]]), dim=1, return_inverse=True,
                                                          return_counts=True),
                                     m.unique_consecutive(m.tensor([1.0, 1.0, 2.0], requires_grad=True))),
    "unique_consecutive_backward": lambda m: m.unique_consecutive(m.tensor([1.0, 1.0, 2.0], requires_grad=True)).sum().backward(),
    "top_level_distances": lambda m: (m.cosine_similarity(m.ones(2, 3), m.arange(6.0).reshape(2, 3)),
                                      m.pairwise_distance(m.ones(2, 3), m.arange(6.0).reshape(2, 3))),
    "dist": lambda m: [_grads(m, lambda a, b: m.dist(a.reshape(2, 2), b, p), [1.0, 2.0, 3.0, 4.0], [1.0, 0.0])
                       for p in (2, 1, float("inf"), -float("inf"), 3, 0.5)] + [
        m.dist(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64)), m.tensor([1.0, 2.0]).dist(m.tensor([0.0, 0.0]), 1),
        m.dist(m.tensor([1.0, 2.0]).half(), m.tensor([0.5, 1.0]).half()), m.dist(m.zeros(2, 2), m.zeros(2), 0)],
    "dist_p0_backward": lambda m: (lambda a: (m.dist(a, m.zeros(2, 2), 0).backward(), a.grad))(m.ones(2, requires_grad=True)),
    "dist_p0_backward_to_other": lambda m: m.dist(m.ones(2), m.zeros(2, requires_grad=True), 0).backward(),
    "dist_integers": lambda m: m.dist(m.tensor([1, 2]), m.tensor([0, 0])),
    "dist_broadcast": lambda m: m.dist(m.zeros(2, 2), m.zeros(3)),
    "trapezoid": lambda m: (m.trapezoid(grid(m, True)), m.trapezoid(grid(m, True), dx=2.0), m.trapz(grid(m), dx=2),
                            m.trapezoid(grid(m, True), m.tensor([0.0, 1.0, 3.0], requires_grad=True)),
                            m.trapezoid(grid(m), dim=0), m.trapezoid(m.tensor([1, 2, 3])), m.trapezoid(m.zeros(2, 0)),
                            m.trapezoid(m.zeros(2, 1)), m.trapezoid(grid(m), m.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]]))),
    "trapezoid_x_length": lambda m: m.trapezoid(grid(m), m.tensor([0.0, 1.0])),
    "trapezoid_dx_none": lambda m: m.trapezoid(grid(m), dx=None),
    "trapezoid_number_x": lambda m: m.trapezoid(grid(m), 2.0),
    "cumulative_trapezoid": lambda m: (m.cumulative_trapezoid(grid(m, True)), m.cumulative_trapezoid(grid(m, True), dim=0, dx=0.5),
                                       m.cumulative_trapezoid(grid(m, True), m.tensor([0.0, 1.0, 3.0], requires_grad=True)),
                                       m.cumulative_trapezoid(m.tensor([1, 2, 3]), dx=3)),
    "histc": lambda m: (m.histc(m.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3), m.histc(m.tensor([1.0, 2.0, 1.0, 4.0]), 3),
                        m.histc(m.tensor([2.0, 2.0]), 3), m.histc(m.tensor([1.0, float("nan")]), 4, 0, 2),
                        m.histc(m.tensor([1.0, 2.0], dtype=m.float64), 2), m.histc(m.tensor([1.0, 2.0], requires_grad=True), 2),
                        m.histc(m.tensor([]), 3), m.histc(m.tensor([0.1, 0.2, 0.3]), 3, 0.1, 0.3),
                        m.tensor([0.5, 0.25, 3.0]).histc(5, -1, 1), m.histc(m.tensor([1.0, 2.0]).half(), 2),
                        m.histc(m.linspace(-3.0, 3.0, 1001) ** 3, 17, -20.0, 20.0)),
    "histc_integers": lambda m: m.histc(m.tensor([1, 2]), 3),
    "histc_no_bins": lambda m: m.histc(m.tensor([1.0]), 0),
    "histc_reversed_range": lambda m: m.histc(m.tensor([1.0]), 3, min=2, max=1),
    "histc_infinite_range": lambda m: m.histc(m.tensor([1.0, -1.0, float("inf")]), 4),
    "frexp_ldexp": lambda m: (m.frexp(m.tensor([1.0, 3.0, -0.5, 0.0, 1e-30], requires_grad=True)),
                              m.frexp(m.tensor([1.0], dtype=m.float64)), m.frexp(m.tensor([1.0, float("inf"), float("nan")]).half()),
                              m.tensor([5.0]).frexp(), m.ldexp(m.tensor([1.0, 3.0], requires_grad=True), m.tensor([1, -2])),
                              m.ldexp(m.tensor([1, 2]), m.tensor([1, 2])), m.tensor([1.0, 2.0]).ldexp_(m.tensor([3])),
                              m.ldexp(m.tensor([1.0], dtype=m.float16), m.tensor([20]))),
    "frexp_integers": lambda m: m.frexp(m.tensor([1, 2])),
    "ldexp_number": lambda m: m.ldexp(m.tensor([1.0]), 2),
    "cov_corrcoef": lambda m: (m.cov(_rows(m, True)), m.corrcoef(_rows(m, True)), _rows(m).cov(correction=0),
                               m.cov(m.tensor([1, 2, 4])), m.cov(_rows(m), fweights=m.tensor([1, 2, 1, 0])),
                               m.cov(_rows(m), aweights=m.tensor([0.5, 1.0, 2.0, 1.0])),
                               m.cov(_rows(m), fweights=m.tensor([1, 2, 1, 1]), aweights=m.tensor([0.5, 1.0, 2.0, 1.0]), correction=2),
                               m.corrcoef(m.tensor([1.0, 2.0, 3.0])), m.corrcoef(m.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]))),
    "cov_graph": lambda m: [f.name() for f, _ in m.corrcoef(_rows(m, True)).grad_fn.next_functions],
    "cov_3d": lambda m: m.cov(m.zeros(2, 2, 2)),
    "cov_float_fweights": lambda m: m.cov(_rows(m), fweights=m.tensor([1.0, 2.0, 1.0, 1.0])),
    "cov_negative_aweights": lambda m: m.cov(_rows(m), aweights=m.tensor([-1.0, 2.0, 1.0, 1.0])),
    "cov_zero_weights": lambda m: m.cov(_rows(m), fweights=m.tensor([0, 0, 0, 0])),
    "cov_weights_length": lambda m: m.cov(_rows(m), fweights=m.tensor([1, 2])),
    "cov_bool": lambda m: m.cov(m.tensor([True])),
    "renorm": lambda m: [_grad_of(m, lambda x: (m.renorm(x.reshape(3, 3), p, dim, top) * m.arange(9.0).reshape(3, 3)).sum(),
                                  [1.0, 2.0, 3.0, 0.1, 0.2, 0.1, 4.0, 0.0, -3.0])
                         for p, dim, top in ((2, 0, 2.0), (1, 1, 3.0), (3, 0, 1.5), (float("inf"), 1, 2.0))] + [
        m.renorm(grid(m, True), 2, 0, 1.0), m.ones(2, 2).renorm_(2, 0, 1.0), m.ones(2, 2).half().renorm(2, 1, 0.5)],
    "renorm_integers": lambda m: m.renorm(m.tensor([[1, 2]]), 2, 0, 1.0),
    "renorm_p_zero": lambda m: m.renorm(m.ones(2, 2), 0, 0, 1.0),
    "renorm_negative_maxnorm": lambda m: m.renorm(m.ones(2, 2), 2, 0, -1.0),
    "renorm_1d": lambda m: m.renorm(m.ones(2), 2, 0, 1.0),
    "narrow_copy": lambda m: (m.narrow_copy(grid(m, True), 1, 0, 2), m.narrow_copy(m.arange(6).reshape(2, 3), -1, 1, 2),
                              m.arange(6).reshape(2, 3).narrow_copy(0, -1, 1),
                              _grad_of(m, lambda x: (m.narrow_copy(x.reshape(2, 3), 1, 1, 2) ** 2).sum(), [1.0, 2, 3, 4, 5, 6])),
    "narrow_copy_too_long": lambda m: m.narrow_copy(grid(m), 1, 2, 2),
    "queries": lambda m: (m.is_nonzero(m.tensor([[0.0]])), m.tensor([3]).is_nonzero(), m.is_same_size(grid(m), grid(m)),
                          grid(m).is_same_size(m.zeros(3, 2)),
                          [m.can_cast(a, b) for a in (m.float64, m.float32, m.float16, m.bfloat16, m.int64, m.int32, m.int8,
                                                      m.uint8, m.bool)
                           for b in (m.float64, m.float16, m.int64, m.int8, m.uint8, m.bool)]),
    "is_nonzero_empty": lambda m: m.is_nonzero(m.tensor([])),
    "is_nonzero_many": lambda m: m.is_nonzero(m.tensor([1, 2])),
}

_LEAF = []


def test_cov_warns_without_degrees_of_freedom_as_pytorch_does():
    for m in (torch, nnref):
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            m.cov(m.tensor([[1.0]]))


def _compared(m, name, other):
    """``name`` (an in-place comparison) on a non-leaf copy: its values and node, then both gradients."""
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = getattr(x.clone(), name)(other)
    shown_now = (y.detach().clone(), type(y.grad_fn).__name__)
    (y * 2).sum().backward()
    return [*shown_now, x.grad, other.grad if isinstance(other, m.Tensor) else None]


def _sorted_rows(m):
    return m.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])


def _augmented(m):
    a, b, c = m.tensor([12, 10]), m.tensor([12, 10]), m.tensor([12, 10])
    a &= 6
    b |= 1
    c ^= 15
    return a, b, c


def _rows(m, requires_grad=False):
    """Distinct values: the indices of medians and k-th values are then PyTorch's."""
    return m.tensor([[3.0, 1.0, 2.0, 0.5], [6.0, 5.0, 4.0, 7.0], [-1.0, 8.0, 0.0, 9.0]], requires_grad=requires_grad)


def _grad_of(m, f, values):
    x = m.tensor(values, requires_grad=True)
    f(x).backward()
    return x.grad


def _leaf(m, values):
    _LEAF[:] = [m.tensor(values, dtype=m.float64, requires_grad=True)]
    return _LEAF[0]


def _grads(m, f, a, b):
    """The gradients of ``f(a, b).sum()`` for both inputs."""
    x, y = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
    f(x, y).sum().backward()
    return [x.grad, y.grad]


def test_meshgrid_without_indexing_warns_as_pytorch_does():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grids = nnref.meshgrid(nnref.tensor([1, 2]), nnref.tensor([3, 4, 5]))
    assert [tuple(g.shape) for g in grids] == [(2, 3), (2, 3)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    assert run(CASES[name], nnref) == run(CASES[name], torch)


def test_unique_has_no_derivative_as_in_pytorch():
    for m in (torch, nnref):
        with pytest.raises(NotImplementedError, match="the derivative for '_unique2' is not implemented"):
            m.unique(m.tensor([3.0, 1.0], requires_grad=True)).sum().backward()
