"""The op cases shared by the first- and second-derivative tests.

Each case is a function ``case(draw, rng) -> (arrays, f)``: it draws shapes
(and dims, indices, ...) with hypothesis and values with numpy, and returns
the float64 input arrays and ``f(torch_module, *tensors)``, code that runs
unchanged with ``nnref`` and with ``torch``.
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes


# -- values ---------------------------------------------------------------------------------------
def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def away_from_zero(rng, shape):
    """|x| >= 0.3, so |x|, relu, clamp(0) ... are smooth within the finite-difference step."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)


def distinct(rng, *shapes):
    """Values at least 0.1 apart across all arrays: no ties for max/min/maximum."""
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    pool = (rng.permutation(sum(sizes)) - sum(sizes) / 2) * 0.25 + rng.uniform(0, 0.05)
    out, start = [], 0
    for shape, size in zip(shapes, sizes):
        out.append(pool[start:start + size].reshape(shape))
        start += size
    return out


def shapes(min_dims=0, max_dims=3, max_side=3):
    return array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side)


def broadcast_pair(min_dims=0, max_dims=3):
    return mutually_broadcastable_shapes(num_shapes=2, min_dims=min_dims, max_dims=max_dims,
                                         min_side=1, max_side=3).map(lambda s: s.input_shapes)


# -- cases ----------------------------------------------------------------------------------------
CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def unary(name, fn, values=normal, min_dims=0):
    @case(name)
    def build(draw, rng):
        return [values(rng, draw(shapes(min_dims=min_dims)))], fn


def binary(name, fn, left=normal, right=normal):
    @case(name)
    def build(draw, rng):
        a, b = draw(broadcast_pair())
        return [left(rng, a), right(rng, b)], fn


binary("add", lambda m, a, b: a + b)
binary("add_alpha", lambda m, a, b: m.add(a, b, alpha=2.5))
binary("sub", lambda m, a, b: a - b)
binary("sub_alpha", lambda m, a, b: a.sub(b, alpha=-0.5))
binary("mul", lambda m, a, b: a * b)
binary("div", lambda m, a, b: a / b, right=away_from_zero)
binary("pow_tensor_tensor", lambda m, a, b: a ** b, left=positive)
unary("add_scalar", lambda m, a: 1.5 + a)
unary("rsub_scalar", lambda m, a: 2 - a)
unary("mul_scalar", lambda m, a: a * 3)
unary("div_scalar", lambda m, a: a / 4)
unary("rdiv_scalar", lambda m, a: 2 / a, values=away_from_zero)
unary("div_number_by_tensor", lambda m, a: m.div(3.0, a), values=away_from_zero)
unary("pow_int", lambda m, a: a ** 3)
unary("pow_zero", lambda m, a: a ** 0)
unary("pow_fractional", lambda m, a: a ** 2.5, values=positive)
unary("pow_negative", lambda m, a: a.pow(-1.5), values=positive)
unary("pow_scalar_base", lambda m, a: 2.0 ** a)
unary("pow_function", lambda m, a: m.pow(a, 2))
unary("neg", lambda m, a: -a)
unary("exp", lambda m, a: m.exp(a))
unary("log", lambda m, a: a.log(), values=positive)
unary("sqrt", lambda m, a: m.sqrt(a), values=positive)
unary("abs", lambda m, a: a.abs(), values=away_from_zero)
unary("tanh", lambda m, a: m.tanh(a))
unary("sigmoid", lambda m, a: a.sigmoid())
unary("relu", lambda m, a: m.relu(a), values=away_from_zero)
unary("clamp_min", lambda m, a: a.clamp(min=0.1), values=away_from_zero)
unary("clamp_max", lambda m, a: m.clamp(a, max=-0.1), values=away_from_zero)
unary("clamp_both", lambda m, a: a.clamp(-0.1, 0.1), values=away_from_zero)
unary("clone", lambda m, a: a.clone())
unary("to_float64_copy", lambda m, a: a.to(m.float64, copy=True))
unary("reciprocal", lambda m, a: a.reciprocal(), values=away_from_zero)
unary("sin", lambda m, a: m.sin(a))
unary("cos", lambda m, a: a.cos())


def off_the_steps(rng, shape, step=1.0):
    """Values at least 0.1 * step away from any multiple of step / 2 (round flips there)."""
    return step * (rng.integers(-6, 6, shape) / 2 + rng.uniform(0.1, 0.4, shape))


unary("round", lambda m, a: m.round(a) + a, values=off_the_steps)


def inside_one(rng, shape):
    """|x| <= 0.8: asin and acos are smooth there."""
    return rng.uniform(-0.8, 0.8, shape)


unary("log1p", lambda m, a: m.log1p(a), values=positive)
unary("expm1", lambda m, a: a.expm1())
unary("log2", lambda m, a: m.log2(a), values=positive)
unary("log10", lambda m, a: a.log10(), values=positive)
unary("rsqrt", lambda m, a: m.rsqrt(a), values=positive)
unary("square", lambda m, a: m.square(a))
unary("tan", lambda m, a: m.tan(a), values=inside_one)
unary("sinh", lambda m, a: a.sinh())
unary("cosh", lambda m, a: m.cosh(a))
unary("asin", lambda m, a: m.asin(a), values=inside_one)
unary("acos", lambda m, a: a.arccos(), values=inside_one)
unary("atan", lambda m, a: m.arctan(a))
try:  # nnref takes erf's values from SciPy; without it, erf raises a RuntimeError saying so
    import scipy.special  # noqa: F401
except ImportError:
    pass
else:
    unary("erf", lambda m, a: m.erf(a))
unary("floor", lambda m, a: m.floor(a) * a, values=off_the_steps)
unary("ceil", lambda m, a: a.ceil() * a, values=off_the_steps)
unary("trunc", lambda m, a: m.trunc(a) + a.fix(), values=off_the_steps)
unary("frac", lambda m, a: m.frac(a) * a, values=off_the_steps)


def away_from_the_bound(rng, shape):
    """|x - 0.2| >= 0.1: one-sided clamps at 0.2 are smooth there."""
    return 0.2 + rng.choice([-1.0, 1.0], shape) * rng.uniform(0.1, 1.5, shape)


unary("clamp_min_number", lambda m, a: m.clamp_min(a, 0.2), values=away_from_the_bound)
unary("clamp_max_number", lambda m, a: a.clamp_max(0.2), values=away_from_the_bound)
binary("clamp_min_tensor", lambda m, a, b: m.clamp_min(a, b), left=lambda rng, s: away_from_the_bound(rng, s),
       right=lambda rng, s: np.full(s, 0.2))
unary("flip", lambda m, a: a.flip(0) * a, min_dims=1)
unary("roll", lambda m, a: m.roll(a, 1) * a)
unary("roll_dims", lambda m, a: a.roll((1, -2), (0, -1)) * a, min_dims=2)
unary("index_select", lambda m, a: m.index_select(a, 0, m.tensor([0, 0, a.shape[0] - 1])) ** 2, min_dims=1)
unary("masked_select", lambda m, a: a.masked_select(a > 0.5) ** 2, values=away_from_zero)
unary("tile", lambda m, a: a.tile((2, 1)) ** 2)
unary("broadcast_to", lambda m, a: m.broadcast_to(a, (2,) + tuple(a.shape)) ** 2)
unary("movedim", lambda m, a: a.movedim(0, -1) * 2, min_dims=2)
unary("unflatten", lambda m, a: a.unflatten(0, (1, a.shape[0])) ** 2, min_dims=1)


@case("outer")
def _(draw, rng):
    n, k = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return [rng.standard_normal(n), rng.standard_normal(k)], lambda m, a, b: m.outer(a, b) ** 2
unary("round_decimals", lambda m, a: a.round(decimals=1) * a,
      values=lambda rng, shape: off_the_steps(rng, shape, 0.1))


@case("remainder")
def _(draw, rng):
    """a % b jumps where a / b is an integer: b is a power of two and a sits between multiples of 1/2."""
    a, b = draw(broadcast_pair())
    return [off_the_steps(rng, a), rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], b)], \
        lambda m, x, y: x % y


unary("remainder_scalar", lambda m, a: m.remainder(a, 0.5), values=off_the_steps)


@case("maximum")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return distinct(rng, a, b), lambda m, x, y: m.maximum(x, y)


@case("minimum")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return distinct(rng, a, b), lambda m, x, y: y.minimum(x)


# matmul: every dispatch case of aten::matmul.
MATMUL_SHAPES = {
    "1d_1d": ((3,), (3,)),
    "2d_1d": ((2, 3), (3,)),
    "1d_2d": ((3,), (3, 2)),
    "2d_2d": ((2, 3), (3, 4)),
    "3d_2d": ((2, 2, 3), (3, 2)),
    "3d_1d": ((2, 2, 3), (3,)),
    "1d_3d": ((3,), (2, 3, 2)),
    "2d_3d": ((2, 3), (2, 3, 2)),
    "3d_3d": ((2, 2, 3), (2, 3, 2)),
    "broadcast_batch": ((2, 1, 2, 3), (3, 3, 2)),
    "broadcast_4d": ((1, 2, 2, 3), (2, 1, 3, 1)),
}


def _matmul_case(name, sizes):
    @case(f"matmul_{name}")
    def build(draw, rng):
        return [normal(rng, s) for s in sizes], lambda m, a, b: a @ b


for _name, _sizes in MATMUL_SHAPES.items():
    _matmul_case(_name, _sizes)


@case("matmul_random_batch")
def _(draw, rng):
    batch_a, batch_b = draw(broadcast_pair(min_dims=0, max_dims=2))
    n, k, p = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return [normal(rng, batch_a + (n, k)), normal(rng, batch_b + (k, p))], lambda m, a, b: m.matmul(a, b)


@case("mm")
def _(draw, rng):
    n, k, p = (draw(st.integers(1, 3)) for _ in range(3))
    return [normal(rng, (n, k)), normal(rng, (k, p))], lambda m, a, b: m.mm(a, b)


@case("bmm")
def _(draw, rng):
    b, n, k, p = (draw(st.integers(1, 3)) for _ in range(4))
    return [normal(rng, (b, n, k)), normal(rng, (b, k, p))], lambda m, x, y: x.bmm(y)


@case("dot")
def _(draw, rng):
    n = draw(st.integers(1, 4))
    return [normal(rng, (n,)), normal(rng, (n,))], lambda m, a, b: m.dot(a, b)


@case("mv")
def _(draw, rng):
    n, k = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return [normal(rng, (n, k)), normal(rng, (k,))], lambda m, a, b: a.mv(b)


@case("addmm")
def _(draw, rng):
    n, k, p = (draw(st.integers(1, 3)) for _ in range(3))
    bias = draw(st.sampled_from([(n, p), (p,), (1, p), ()]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2.0), (0, 1), (1, -1.5)]))
    return [normal(rng, bias), normal(rng, (n, k)), normal(rng, (k, p))], \
        lambda m, c, a, b: m.addmm(c, a, b, beta=beta, alpha=alpha)


# reductions
def _dim_and_keepdim(draw, ndim, allow_tuple=True):
    dim = draw(st.integers(-ndim, ndim - 1))
    if allow_tuple and ndim > 1 and draw(st.booleans()):
        dim = tuple(sorted(set([dim % ndim, draw(st.integers(0, ndim - 1))])))
    return dim, draw(st.booleans())


unary("sum", lambda m, a: a.sum())
unary("mean", lambda m, a: m.mean(a))
@case("var")
def _(draw, rng):
    shape = draw(shapes(min_dims=1).filter(lambda s: np.prod(s) > 1))  # N - 1 > 0
    return [normal(rng, shape)], lambda m, a: a.var()



unary("var_biased", lambda m, a: a.var(unbiased=False))


@case("std")
def _(draw, rng):
    shape = draw(shapes(min_dims=1).filter(lambda s: np.prod(s) > 1))
    return [normal(rng, shape)], lambda m, a: m.std(a)


unary("std_biased", lambda m, a: a.std(unbiased=False), min_dims=1)


@case("std_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4).filter(lambda s: max(s) > 1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    reduced = np.prod([shape[d] for d in np.atleast_1d(dim)])
    correction = draw(st.sampled_from([0, 1] if reduced > 1 else [0]))
    # (One value per slice: std is 0 whatever x is, and PyTorch's gradient there is 0 too.)
    return [normal(rng, shape)], lambda m, a: a.std(dim, keepdim=keepdim, correction=correction)


unary("norm", lambda m, a: a.norm())


@case("norm_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    p = draw(st.sampled_from([2, 1, 3, 1.5, 0.5, float("inf"), -float("inf")]))
    # Away from 0 (|x| ** (p - 1) has no derivative there) and without ties (inf-norms).
    values = distinct(rng, shape)[0]
    values = values + np.where(values >= 0, 0.3, -0.3)
    return [values], lambda m, a: m.norm(a, p, dim, keepdim)


@case("sum_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    return [normal(rng, shape)], lambda m, a: a.sum(dim, keepdim=keepdim)


@case("mean_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    return [normal(rng, shape)], lambda m, a: m.mean(a, dim, keepdim)


@case("var_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4).filter(lambda s: max(s) > 1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    reduced = np.prod([shape[d] for d in np.atleast_1d(dim)])
    correction = draw(st.sampled_from([0, 1] if reduced > 1 else [0]))
    return [normal(rng, shape)], lambda m, a: a.var(dim, keepdim=keepdim, correction=correction)


@case("max_full")
def _(draw, rng):
    return distinct(rng, draw(shapes())), lambda m, a: a.max()


@case("min_full")
def _(draw, rng):
    return distinct(rng, draw(shapes())), lambda m, a: m.min(a)


@case("max_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape), allow_tuple=False)
    return distinct(rng, shape), lambda m, a: a.max(dim, keepdim=keepdim).values


@case("min_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape), allow_tuple=False)
    return distinct(rng, shape), lambda m, a: m.min(a, dim, keepdim)[0]


@case("amax")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    return distinct(rng, shape), lambda m, a: a.amax(dim, keepdim)


@case("softmax")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: m.softmax(a, dim)


@case("log_softmax")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: a.log_softmax(dim=dim)


# shapes
@case("reshape")
def _(draw, rng):
    shape = draw(shapes())
    target = draw(st.sampled_from([(-1,), (1, -1), (-1, 1), ()] if np.prod(shape) == 1 else
                                  [(-1,), (1, -1), (-1, 1)]))
    return [normal(rng, shape)], lambda m, a: a.reshape(target) * 2


@case("reshape_of_transpose")
def _(draw, rng):
    shape = draw(shapes(min_dims=2))
    return [normal(rng, shape)], lambda m, a: m.reshape(a.transpose(0, -1), (-1,))


@case("view")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    return [normal(rng, shape)], lambda m, a: a.view(-1).view(*shape[::-1]) * 1.5


@case("flatten")
def _(draw, rng):
    shape = draw(shapes())
    ndim = max(len(shape), 1)
    start = draw(st.integers(0, ndim - 1))
    end = draw(st.integers(start, ndim - 1))
    return [normal(rng, shape)], lambda m, a: m.flatten(a, start, end) * 2


@case("squeeze")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    return [normal(rng, shape)], lambda m, a: a.squeeze() if dim is None else m.squeeze(a, dim)


@case("unsqueeze")
def _(draw, rng):
    shape = draw(shapes())
    dim = draw(st.integers(-len(shape) - 1, len(shape)))
    return [normal(rng, shape)], lambda m, a: a.unsqueeze(dim)


@case("transpose")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    d0, d1 = draw(st.integers(-len(shape), len(shape) - 1)), draw(st.integers(0, len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: m.transpose(a, d0, d1) * a.transpose(d0, d1)


@case("permute")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    order = draw(st.permutations(range(len(shape))))
    return [normal(rng, shape)], lambda m, a: a.permute(*order).exp()


@case("t")
def _(draw, rng):
    shape = draw(shapes(min_dims=0, max_dims=2))
    return [normal(rng, shape)], lambda m, a: m.t(a) * 3


@case("T")
def _(draw, rng):
    shape = draw(shapes(min_dims=2, max_dims=2))  # PyTorch deprecates .T on other ranks
    return [normal(rng, shape)], lambda m, a: a.T * 2


@case("mT")
def _(draw, rng):
    shape = draw(shapes(min_dims=2))
    return [normal(rng, shape)], lambda m, a: a.mT * 2


@case("expand")
def _(draw, rng):
    source, target = draw(mutually_broadcastable_shapes(num_shapes=1, min_dims=0, max_dims=3,
                                                        max_side=3))
    source = source[0]
    return [normal(rng, source)], lambda m, a: a.expand(*target) * 2 if target else a * 2


@case("expand_minus_one")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_dims=2))
    return [normal(rng, shape)], lambda m, a: a.expand(2, *([-1] * len(shape))).tanh()


@case("getitem_basic")
def _(draw, rng):
    shape = draw(shapes(min_dims=2, max_side=4))
    index = (draw(st.integers(-shape[0], shape[0] - 1)),
             slice(draw(st.sampled_from([None, 0, 1])), None, draw(st.sampled_from([None, 1, 2]))),
             None, Ellipsis)
    return [normal(rng, shape)], lambda m, a: a[index] * 2


@case("getitem_slice_negative")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4))
    return [normal(rng, shape)], lambda m, a: a[-2:] + 0 if shape[0] > 1 else a[:, None] + 0


@case("getitem_integer_array")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4))
    picks = draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=5))
    as_tensor = draw(st.booleans())

    def f(m, a):
        index = m.tensor(picks) if as_tensor else picks
        return a[index] * 2  # repeated picks must accumulate
    return [normal(rng, shape)], f


@case("getitem_two_integer_arrays")
def _(draw, rng):
    shape = draw(shapes(min_dims=2, max_side=4))
    rows = [draw(st.integers(0, shape[0] - 1)) for _ in range(3)]
    cols = [draw(st.integers(0, shape[1] - 1)) for _ in range(3)]
    return [normal(rng, shape)], lambda m, a: a[m.tensor(rows), m.tensor(cols)]


@case("getitem_bool_mask")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    x = normal(rng, shape)
    mask = x > 0
    full = draw(st.booleans())  # a mask over all dims, or a 1-D mask over the first
    row_mask = rng.random(shape[0]) > 0.5
    return [x], lambda m, a: (a[m.tensor(mask)] if full else a[m.tensor(row_mask)]) * 3


@case("masked_fill")
def _(draw, rng):
    shape = draw(shapes())
    mask_shape = draw(st.sampled_from([shape, shape[1:] if shape else shape]))
    mask = rng.random(mask_shape) > 0.5
    return [normal(rng, shape)], lambda m, a: a.masked_fill(m.tensor(mask), -1.0) * a


@case("where")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    condition = rng.random(np.broadcast_shapes(a, b)) > 0.5
    return [normal(rng, a), normal(rng, b)], lambda m, x, y: m.where(m.tensor(condition), x, y)


@case("where_scalar")
def _(draw, rng):
    shape = draw(shapes())
    return [normal(rng, shape)], lambda m, x: m.where(x > 0, x, 0.5) + x.where(x < 0, -1.0)


@case("cat")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    other = list(shape)
    other[dim] = draw(st.integers(1, 3))
    return [normal(rng, shape), normal(rng, tuple(other))], lambda m, a, b: m.cat([a, b, a], dim)


@case("stack")
def _(draw, rng):
    shape = draw(shapes())
    dim = draw(st.integers(-len(shape) - 1, len(shape)))
    return [normal(rng, shape), normal(rng, shape)], lambda m, a, b: m.stack((a, b), dim=dim)


@case("composite")
def _(draw, rng):
    n = draw(st.integers(1, 3))

    def f(m, x, w, b):
        h = m.tanh(x @ w + b)
        return m.log_softmax(h * h.sigmoid(), dim=-1).sum(0) / (1 + h.abs().mean())
    return [normal(rng, (n, 3)), normal(rng, (3, 2)), normal(rng, (2,))], f


@case("unbind")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: m.stack(a.unbind(dim)[::-1], dim) * 2


@case("unbind_partly_used")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    return [normal(rng, shape)], lambda m, a: m.unbind(a, -1)[-1] * 3  # other slices get zeros


@case("iteration")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    return [normal(rng, shape)], lambda m, a: m.stack([row * (i + 1) for i, row in enumerate(a)])


binary("atan2", lambda m, a, b: m.atan2(a, b), right=away_from_zero)
binary("hypot", lambda m, a, b: m.hypot(a, b), left=away_from_zero)
binary("lerp_number", lambda m, a, b: m.lerp(a, b, 0.3) ** 2)
binary("lerp_tensor", lambda m, a, b: a.lerp(b, b.sigmoid()) ** 2)
binary("addcmul", lambda m, a, b: m.addcmul(a, a, b, value=0.7) ** 2)
binary("addcdiv", lambda m, a, b: m.addcdiv(a, a, b, value=0.7), right=away_from_zero)
unary("trace", lambda m, a: (a.reshape(-1, 1) * a.reshape(1, -1)).trace() ** 2)
unary("repeat_interleave", lambda m, a: a.repeat_interleave(2) ** 2)
unary("repeat_interleave_counts", lambda m, a: a.repeat_interleave(m.tensor([2, 0, 1]), dim=-1) ** 2,
      values=lambda rng, shape: rng.standard_normal(tuple(shape[:-1]) + (3,)), min_dims=1)


@case("take_along_dim")
def _(draw, rng):
    return [rng.standard_normal((3, 4))], lambda m, a: m.take_along_dim(a, m.tensor([[0], [3], [1]]), dim=1) ** 2



@case("index_add")
def _(draw, rng):
    return [rng.standard_normal((3, 4)), rng.standard_normal((3, 2))], \
        lambda m, a, b: m.index_add(a, 1, m.tensor([3, 0]), b, alpha=1.5) ** 2

unary("diag_of_a_vector", lambda m, a: m.diag(a.reshape(-1), 1) ** 2)


@case("diag_of_a_matrix")
def _(draw, rng):
    return [rng.standard_normal((3, 4))], lambda m, a: m.diag(a, -1) ** 2 + a.diag(1).sum()


# running ops: cumprod (also through zeros), logcumsumexp, cummax, cummin
@case("cumprod")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: m.cumprod(a, dim)


@case("cumprod_with_zeros")
def _(draw, rng):
    values = rng.standard_normal((3, 4))
    values[0, 1] = values[1, 2] = values[1, 3] = 0.0
    return [values], lambda m, a: a.cumprod(1) * a


@case("logcumsumexp")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return [normal(rng, shape)], lambda m, a: m.logcumsumexp(a, dim)


@case("cummax")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return distinct(rng, shape), lambda m, a: m.cummax(a, dim).values ** 2


@case("cummin")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return distinct(rng, shape), lambda m, a: a.cummin(dim)[0] * a


# special functions, signs, inverse hyperbolic functions, more binary ops
def above_one(rng, shape):
    return rng.uniform(1.2, 3.0, shape)


def inside_unit(rng, shape):
    """(0.1, 0.9): logit is smooth there."""
    return rng.uniform(0.1, 0.9, shape)


unary("acosh", lambda m, a: m.acosh(a), values=above_one)
unary("asinh", lambda m, a: a.arcsinh())
unary("atanh", lambda m, a: m.atanh(a), values=inside_one)
unary("deg2rad", lambda m, a: m.deg2rad(a) * a)
unary("rad2deg", lambda m, a: a.rad2deg() * a)
unary("exp2", lambda m, a: m.exp2(a))
unary("sinc", lambda m, a: m.sinc(a))
unary("logit", lambda m, a: m.logit(a), values=inside_unit)
unary("logit_eps", lambda m, a: a.logit(eps=0.05), values=inside_unit)
unary("sgn", lambda m, a: m.sgn(a) * a, values=away_from_zero)
unary("copysign_number", lambda m, a: m.copysign(a, -1.5), values=away_from_zero)
binary("copysign", lambda m, a, b: m.copysign(a, b), left=away_from_zero, right=away_from_zero)
binary("logaddexp", lambda m, a, b: m.logaddexp(a, b))
binary("logaddexp2", lambda m, a, b: a.logaddexp2(b))
binary("xlogy", lambda m, a, b: m.xlogy(a, b), right=positive)
unary("xlogy_number_other", lambda m, a: m.xlogy(a, 3.0))
unary("xlogy_number_self", lambda m, a: m.xlogy(2.0, a), values=positive)
unary("float_power", lambda m, a: m.float_power(a, 3))
binary("float_power_tensors", lambda m, a, b: a.float_power(b), left=positive)
unary("fmod_number", lambda m, a: m.fmod(a, 0.5), values=off_the_steps)


@case("fmod")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return [off_the_steps(rng, a), rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], b)], lambda m, x, y: m.fmod(x, y)


@case("fmax")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return distinct(rng, a, b), lambda m, x, y: m.fmax(x, y)


@case("fmin")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return distinct(rng, a, b), lambda m, x, y: x.fmin(y)


try:  # SciPy's special functions (see erf above)
    import scipy.special  # noqa: F401
except ImportError:
    pass
else:
    unary("erfc", lambda m, a: m.erfc(a))
    unary("erfinv", lambda m, a: m.erfinv(a), values=inside_one)
    unary("lgamma", lambda m, a: m.lgamma(a), values=positive)
    unary("digamma", lambda m, a: a.digamma(), values=positive)
    unary("polygamma", lambda m, a: m.polygamma(1, a) + a.polygamma(0), values=positive)


# order statistics (distinct values: with ties PyTorch leaves the index unspecified)
@case("median_full")
def _(draw, rng):
    return distinct(rng, draw(shapes())), lambda m, a: m.median(a) * a


@case("nanmedian_full")
def _(draw, rng):
    return distinct(rng, draw(shapes())), lambda m, a: a.nanmedian() ** 2


def _order_statistic_case(name, pick):
    @case(name)
    def build(draw, rng):
        shape = draw(shapes(min_dims=1))
        dim, keepdim = _dim_and_keepdim(draw, len(shape), allow_tuple=False)
        return distinct(rng, shape), lambda m, a: pick(m, a, dim, keepdim, shape[dim]) ** 2


_order_statistic_case("median_dim", lambda m, a, dim, keepdim, n: m.median(a, dim, keepdim).values)
_order_statistic_case("nanmedian_dim", lambda m, a, dim, keepdim, n: a.nanmedian(dim, keepdim)[0])
_order_statistic_case("kthvalue", lambda m, a, dim, keepdim, n: m.kthvalue(a, n, dim, keepdim).values)
_order_statistic_case("mode", lambda m, a, dim, keepdim, n: a.mode(dim, keepdim).values)


# pairs from one node, and NaN-skipping sums
@case("var_mean")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4).filter(lambda s: max(s) > 1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    reduced = np.prod([shape[d] for d in np.atleast_1d(dim)])
    correction = draw(st.sampled_from([0, 1] if reduced > 1 else [0]))

    def f(m, a):
        var, mean = m.var_mean(a, dim, keepdim=keepdim, correction=correction)
        return var * mean.exp()
    return [normal(rng, shape)], f


@case("var_mean_one_output_used")
def _(draw, rng):
    shape = draw(shapes(min_dims=1).filter(lambda s: np.prod(s) > 1))
    which = draw(st.integers(0, 1))
    return [normal(rng, shape)], lambda m, a: m.var_mean(a)[which] * 2


@case("std_mean")
def _(draw, rng):
    shape = draw(shapes(min_dims=2, max_side=4).filter(lambda s: s[-1] > 1))
    return [normal(rng, shape)], lambda m, a: m.std_mean(a, -1)[0] + m.std_mean(a, -1, keepdim=True)[1].squeeze(-1) ** 2


@case("aminmax")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    keepdim = draw(st.booleans())

    def f(m, a):
        low, high = m.aminmax(a, dim=dim, keepdim=keepdim)
        return low * high + high
    return distinct(rng, shape), f


unary("nansum", lambda m, a: m.nansum(a) * a)


@case("nansum_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    return [normal(rng, shape)], lambda m, a: a.nansum(dim, keepdim=keepdim) ** 2


@case("nanmean_dim")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim, keepdim = _dim_and_keepdim(draw, len(shape))
    return [normal(rng, shape)], lambda m, a: m.nanmean(a, dim, keepdim) ** 2


# PyTorch's shape composites (their graphs are PyTorch's: slices, cat, unsqueeze, flip, sub)
@case("rot90")
def _(draw, rng):
    shape = draw(shapes(min_dims=2))
    k = draw(st.integers(-5, 5))
    dims = draw(st.permutations(range(len(shape))))[:2]
    return [normal(rng, shape)], lambda m, a: m.rot90(a, k, dims) ** 2


@case("diff")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=4))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    n = draw(st.integers(1, 3))
    return [normal(rng, shape)], lambda m, a: m.diff(a, n, dim) ** 2


@case("diff_prepend_append")
def _(draw, rng):
    return [normal(rng, (2, 3)), normal(rng, (2, 1)), normal(rng, (2, 2))], \
        lambda m, a, b, c: a.diff(dim=1, prepend=b, append=c) ** 2


@case("tensor_split")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_side=5))
    split = draw(st.one_of(st.integers(1, 4), st.lists(st.integers(0, 5), max_size=3).map(sorted)))
    return [normal(rng, shape)], lambda m, a: m.cat([p * (i + 1) for i, p in enumerate(m.tensor_split(a, split))])


@case("hsplit_vsplit_dsplit")
def _(draw, rng):
    return [normal(rng, (2, 4, 2))], lambda m, a: m.cat(
        [m.hsplit(a, 2)[1].reshape(-1), m.vsplit(a, [1])[0].reshape(-1) * 2, a.dsplit(2)[1].reshape(-1)]) ** 2


@case("stacks")
def _(draw, rng):
    return [normal(rng, (3,)), normal(rng, (2, 3)), normal(rng, ())], lambda m, v, x, s: m.cat([
        m.hstack([v, v * 2]), m.vstack([v, x]).reshape(-1), m.dstack([x, x * 3]).reshape(-1),
        m.column_stack([v, x.t(), v]).reshape(-1), m.hstack([s, v])]) ** 2


@case("atleast")
def _(draw, rng):
    return [normal(rng, ()), normal(rng, (3,)), normal(rng, (2, 3))], lambda m, s, v, x: m.cat([
        m.atleast_1d(s), *(t.reshape(-1) for t in m.atleast_2d(s, v)), *(t.reshape(-1) for t in m.atleast_3d([s, v, x]))]) ** 2


@case("broadcast_tensors")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    return [normal(rng, a), normal(rng, b)], lambda m, x, y: m.stack(m.broadcast_tensors(x, y)) ** 2


unary("fliplr_flipud", lambda m, a: (m.fliplr(a) * a.flipud()) ** 2, min_dims=2)


# beta * input + alpha * product, vdot, kron, cross
@case("addmv")
def _(draw, rng):
    n, k = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bias = draw(st.sampled_from([(n,), (1,), ()]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2.0), (0, -1.5)]))
    return [normal(rng, bias), normal(rng, (n, k)), normal(rng, (k,))], \
        lambda m, c, a, b: m.addmv(c, a, b, beta=beta, alpha=alpha)


@case("addr")
def _(draw, rng):
    n, k = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bias = draw(st.sampled_from([(n, k), (k,), (n, 1), ()]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2.0), (0, -1.5)]))
    return [normal(rng, bias), normal(rng, (n,)), normal(rng, (k,))], \
        lambda m, c, a, b: c.addr(a, b, beta=beta, alpha=alpha)


@case("baddbmm")
def _(draw, rng):
    b, n, k, p = (draw(st.integers(1, 3)) for _ in range(4))
    bias = draw(st.sampled_from([(b, n, p), (n, p), (1, 1, p)]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2.0)]))
    return [normal(rng, bias), normal(rng, (b, n, k)), normal(rng, (b, k, p))], \
        lambda m, c, x, y: m.baddbmm(c, x, y, beta=beta, alpha=alpha)


@case("addbmm")
def _(draw, rng):
    b, n, k, p = (draw(st.integers(1, 3)) for _ in range(4))
    bias = draw(st.sampled_from([(n, p), (p,), ()]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2.0)]))
    return [normal(rng, bias), normal(rng, (b, n, k)), normal(rng, (b, k, p))], \
        lambda m, c, x, y: m.addbmm(c, x, y, beta=beta, alpha=alpha)


@case("vdot")
def _(draw, rng):
    n = draw(st.integers(1, 4))
    return [normal(rng, (n,)), normal(rng, (n,))], lambda m, a, b: m.vdot(a, b) * a


@case("kron")
def _(draw, rng):
    return [normal(rng, draw(shapes(max_dims=3))), normal(rng, draw(shapes(max_dims=3)))], lambda m, a, b: m.kron(a, b)


@case("cross")
def _(draw, rng):
    a, b = draw(broadcast_pair(max_dims=2))
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b  # cross wants equal ranks
    dim = draw(st.integers(0, ndim))
    return [normal(rng, a[:dim] + (3,) + a[dim:]), normal(rng, b[:dim] + (3,) + b[dim:])], \
        lambda m, x, y: m.cross(x, y, dim=dim)


# writing into picked places, and take
@case("index_copy")
def _(draw, rng):
    return [normal(rng, (3, 4)), normal(rng, (3, 2))], lambda m, a, b: m.index_copy(a, 1, m.tensor([3, 0]), b) ** 2


@case("index_fill")
def _(draw, rng):
    return [normal(rng, (3, 4)), normal(rng, ())], lambda m, a, v: a.index_fill(0, m.tensor([2, 0, 2]), v) ** 2 \
        + m.index_fill(a, 1, m.tensor([1, -1]), -1.5) * a


@case("masked_scatter")
def _(draw, rng):
    a = normal(rng, (3, 4))
    mask = a > 0
    return [a, normal(rng, (5, 3))], lambda m, x, s: x.masked_scatter(m.tensor(mask), s) ** 2


@case("masked_scatter_broadcast_mask")
def _(draw, rng):
    return [normal(rng, (3, 4)), normal(rng, (12,))], \
        lambda m, x, s: m.masked_scatter(x, m.tensor([True, False, False, True]), s) ** 2


@case("select_scatter")
def _(draw, rng):
    return [normal(rng, (3, 4)), normal(rng, (3,))], lambda m, x, s: m.select_scatter(x, s, 1, -2) ** 2


@case("slice_scatter")
def _(draw, rng):
    return [normal(rng, (3, 5)), normal(rng, (3, 2))], lambda m, x, s: x.slice_scatter(s, 1, 1, 5, 2) ** 2


@case("take")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    size = int(np.prod(shape))
    picks = rng.integers(-size, size, (2, 3))
    return [normal(rng, shape)], lambda m, a: m.take(a, m.tensor(picks)) ** 2


def _scatter_reduce_case(reduce, include_self):
    @case(f"scatter_reduce_{reduce}_{'with' if include_self else 'without'}_self")
    def build(draw, rng):
        values = distinct(rng, (3, 4), (3, 4)) if reduce in ("amax", "amin") else [normal(rng, (3, 4)), normal(rng, (3, 4))]
        index = rng.integers(0, 3, (3, 4))  # (PyTorch's backward refuses a src larger than index)
        return values, lambda m, a, s: m.scatter_reduce(a, 0, m.tensor(index), s, reduce, include_self=include_self)


for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _include_self in (True, False):
        _scatter_reduce_case(_reduce, _include_self)


@case("scatter_reduce_prod_zeros")
def _(draw, rng):
    a, s = normal(rng, (2, 3)), normal(rng, (2, 3))
    a[0, 0] = s[1, 1] = s[0, 2] = 0.0
    return [a, s], lambda m, x, y: x.scatter_reduce(1, m.tensor([[0, 0, 1], [2, 1, 1]]), y, "prod")


# matrices from diagonals and blocks, msort
@case("diag_embed")
def _(draw, rng):
    shape = draw(shapes(min_dims=1, max_dims=2))
    offset = draw(st.integers(-2, 2))
    dims = draw(st.permutations(range(len(shape) + 1)))[:2]
    return [normal(rng, shape)], lambda m, a: m.diag_embed(a, offset, *dims) ** 2


unary("diagflat", lambda m, a: m.diagflat(a, -1) ** 2)


@case("block_diag")
def _(draw, rng):
    return [normal(rng, (2, 3)), normal(rng, (2,)), normal(rng, ())], lambda m, a, b, c: m.block_diag(a, b, c, a) ** 2


@case("msort")
def _(draw, rng):
    return distinct(rng, draw(shapes(min_dims=1))), lambda m, a: m.msort(a) * a


@case("cartesian_prod")
def _(draw, rng):
    return [normal(rng, (2,)), normal(rng, (3,))], lambda m, a, b: m.cartesian_prod(a, b, a) ** 2


@case("dist")
def _(draw, rng):
    a, b = draw(broadcast_pair())
    p = draw(st.sampled_from([2, 1, 3, 1.5]))  # (inf-norms tie too easily after broadcasting: see the tables)
    x, y = distinct(rng, a, b)
    return [x, y + 0.05], lambda m, u, v: m.dist(u, v, p)


# the trapezoidal rule (PyTorch's graph: MulBackward1 and DivBackward1 for the products with numbers)
@case("trapezoid")
def _(draw, rng):
    shape = draw(shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    dx = draw(st.sampled_from([None, 0.5, 2]))
    return [normal(rng, shape)], lambda m, y: (m.trapezoid(y, dim=dim) if dx is None else m.trapezoid(y, dx=dx, dim=dim)) ** 2


@case("trapezoid_x")
def _(draw, rng):
    return [normal(rng, (2, 4)), np.sort(normal(rng, (4,)))], lambda m, y, x: m.trapezoid(y, x) ** 2


@case("cumulative_trapezoid")
def _(draw, rng):
    return [normal(rng, (3, 4)), np.sort(normal(rng, (3,)))], \
        lambda m, y, x: m.cumulative_trapezoid(y, dx=0.5) ** 2 + m.cumulative_trapezoid(y, x, dim=0).sum()


binary("ldexp", lambda m, a, b: m.ldexp(a, b))
unary("ldexp_integer_exponent", lambda m, a: a.ldexp(m.tensor(2)) * a)
unary("frexp", lambda m, a: m.frexp(a).mantissa * a, values=away_from_zero)


@case("cov")
def _(draw, rng):
    shape = draw(st.sampled_from([(3,), (2, 4), (3, 3)]))
    weighted = draw(st.booleans())

    def f(m, x):
        if weighted:
            return m.cov(x, fweights=m.tensor([1, 2, 1, 3][:shape[-1]]), aweights=m.tensor([0.5, 1.0, 2.0, 1.5][:shape[-1]]))
        return m.cov(x, correction=draw_correction)
    draw_correction = draw(st.sampled_from([0, 1]))
    return [normal(rng, shape)], f


@case("corrcoef")
def _(draw, rng):
    return [normal(rng, (3, 5))], lambda m, x: m.corrcoef(x)


@case("diagonal_scatter")
def _(draw, rng):
    offset = draw(st.integers(-1, 2))
    size = 3 - max(-offset, 0) if offset <= 0 else min(3, 4 - offset)
    return [normal(rng, (2, 3, 4)), normal(rng, (2, size))], \
        lambda m, x, s: m.diagonal_scatter(x, s, offset, 1, 2) ** 2


@case("renorm")
def _(draw, rng):
    p = draw(st.sampled_from([2, 1, 3]))
    dim = draw(st.integers(-2, 1))
    values = rng.standard_normal((3, 4)) + np.where(rng.random((3, 4)) > 0.5, 0.5, -0.5)
    return [values], lambda m, a: m.renorm(a, p, dim, 1.0) ** 2  # (norms away from maxnorm: smooth)


unary("narrow_copy", lambda m, a: m.narrow_copy(a, -1, 1, 2) ** 2,
      values=lambda rng, shape: rng.standard_normal(tuple(shape[:-1]) + (3,)), min_dims=1)
