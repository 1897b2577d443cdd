"""A double becoming float16 or bfloat16 rounds as PyTorch's does: through float32 (``c10::Half(float)``,
``c10::BFloat16(float)``), so twice, on every path where nnref converts one (``nnref/_half.py``).

The values drawn sit just off a 16-bit half-way point (a 16-bit value, plus half its ulp, plus an
offset far below float32's resolution), where rounding once and rounding twice disagree.
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")

# numpy type, largest finite bit pattern, offset bound in ulps (well below float32's resolution)
_FORMATS = {"float16": (np.float16, 0x7BFF, 2.0**-16), "bfloat16": (ml_dtypes.bfloat16, 0x7F7F, 2.0**-19)}


@st.composite
def near_half_way(draw, dtype):
    """A double just off the half-way point between two neighbouring 16-bit values."""
    numpy_type, last, bound = _FORMATS[dtype]
    bits = np.array([draw(st.integers(0, last - 1))], np.uint16)
    low, high = (b.view(numpy_type).astype(np.float64)[0] for b in (bits, bits + 1))
    offset = draw(st.floats(-bound, bound)) * (high - low)
    return draw(st.sampled_from([1.0, -1.0])) * ((low + high) / 2 + offset)


def doubles(dtype):
    any_double = st.floats(allow_nan=False, width=64)
    return st.lists(st.one_of(near_half_way(dtype), near_half_way(dtype), any_double), min_size=1, max_size=6)


def _each(m, values, make):
    return m.stack([make(v) for v in values])


def _set_each(m, d, values):
    z = m.zeros(len(values), dtype=d)
    for i, v in enumerate(values):
        z[i] = v
    return z


def _set_region(m, d, values):
    z = m.zeros(len(values) + 1, dtype=d)
    z[1:] = m.tensor(values, dtype=m.float64)
    return z


def _set_indexed(m, d, values):
    z = m.zeros(len(values), dtype=d)
    z[m.arange(len(values))] = m.tensor(values, dtype=m.float64)
    return z


def _set_masked(m, d, v):
    z = m.zeros(2, dtype=d)
    z[m.tensor([True, False])] = v
    return z


def _loaded(m, d, values):
    layer = m.nn.Linear(len(values), 1).to(d)
    layer.load_state_dict({"weight": m.tensor([values], dtype=m.float64), "bias": m.zeros(1, dtype=m.float64)})
    return layer.weight.detach()


PATHS = {
    "tensor(list)": lambda m, d, vs: m.tensor(vs, dtype=d),
    "HalfTensor/BFloat16Tensor(list)": lambda m, d, vs: getattr(m, {"float16": "HalfTensor"}.get(
        str(d).split(".")[1], "BFloat16Tensor"))(vs),
    "tensor(ndarray)": lambda m, d, vs: m.tensor(np.array(vs), dtype=d),
    "tensor(number)": lambda m, d, vs: _each(m, vs, lambda v: m.tensor(v, dtype=d)),
    "tensor(np.float64)": lambda m, d, vs: _each(m, vs, lambda v: m.tensor(np.float64(v), dtype=d)),
    "tensor(list of 0-d tensors)": lambda m, d, vs: m.tensor([m.tensor(v, dtype=m.float64) for v in vs], dtype=d),
    "as_tensor": lambda m, d, vs: m.as_tensor(np.array(vs), dtype=d),
    "asarray": lambda m, d, vs: m.asarray(vs, dtype=d),
    "from_numpy().to": lambda m, d, vs: m.from_numpy(np.array(vs)).to(d),
    "Tensor.to": lambda m, d, vs: m.tensor(vs, dtype=m.float64).to(d),
    "Tensor.type": lambda m, d, vs: m.tensor(vs, dtype=m.float64).type(d),
    "Tensor.half/bfloat16": lambda m, d, vs: getattr(m.tensor(vs, dtype=m.float64), {"float16": "half"}.get(
        str(d).split(".")[1], "bfloat16"))(),
    "copy_": lambda m, d, vs: m.zeros(len(vs), dtype=d).copy_(m.tensor(vs, dtype=m.float64)),
    "full": lambda m, d, vs: _each(m, vs, lambda v: m.full((1,), v, dtype=d)),
    "full_like": lambda m, d, vs: _each(m, vs, lambda v: m.full_like(m.zeros(1), v, dtype=d)),
    "new_full": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d).new_full((1,), v)),
    "fill_(number)": lambda m, d, vs: _each(m, vs, lambda v: m.empty(1, dtype=d).fill_(v)),
    "fill_(0-d double)": lambda m, d, vs: _each(m, vs, lambda v: m.empty(1, dtype=d).fill_(m.tensor(v))),
    "t[i] = number": _set_each,
    "t[1:] = double tensor": _set_region,
    "t[indices] = double tensor": _set_indexed,
    "masked_fill": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d).masked_fill(m.tensor([True]), v)),
    "where(number)": lambda m, d, vs: _each(m, vs, lambda v: m.where(m.tensor([True]), v, m.zeros(1, dtype=d))),
    "clamp_min(number)": lambda m, d, vs: _each(m, vs, lambda v: m.full((1,), -math.inf, dtype=d).clamp_min(v)),
    "clamp_max(number)": lambda m, d, vs: _each(m, vs, lambda v: m.full((1,), math.inf, dtype=d).clamp_max(v)),
    "index_fill(number)": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d).index_fill(0, m.tensor([0]), v)),
    "index_fill(0-d double)": lambda m, d, vs: _each(
        m, vs, lambda v: m.zeros(1, dtype=d).index_fill(0, m.tensor([0]), m.tensor(v, dtype=m.float64))),
    "masked_fill(0-d double)": lambda m, d, vs: _each(
        m, vs, lambda v: m.zeros(1, dtype=d).masked_fill(m.tensor([True]), m.tensor(v, dtype=m.float64))),
    "scatter(value=number)": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d).scatter(0, m.tensor([0]), v)),
    "t[mask] = number": lambda m, d, vs: _each(m, vs, lambda v: _set_masked(m, d, v)),
    "new_tensor": lambda m, d, vs: m.zeros(1, dtype=d).new_tensor(vs),
    "clamp(min=number)": lambda m, d, vs: _each(m, vs, lambda v: m.full((1,), -math.inf, dtype=d).clamp(min=v)),
    "half + number": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d) + v),
    "half - number": lambda m, d, vs: _each(m, vs, lambda v: m.zeros(1, dtype=d) - v),
    "linspace": lambda m, d, vs: m.cat([m.zeros(0, dtype=d)] + [m.linspace(v, v, 1, dtype=d)
                                                                for v in vs if math.isfinite(v)]),
    "arange": lambda m, d, vs: m.cat([m.zeros(0, dtype=d)] + [m.arange(v, v + 1.0, 2.0, dtype=d)
                                                              for v in vs if v + 1.0 != v]),
    "F.pad(value=number)": lambda m, d, vs: _each(m, vs, lambda v: m.nn.functional.pad(m.zeros(1, dtype=d), (1, 0), value=v)),
    "nan_to_num": lambda m, d, vs: _each(m, vs, lambda v: m.nan_to_num(m.full((1,), math.nan, dtype=d), nan=v)),
    "F.threshold(value=number)": lambda m, d, vs: _each(
        m, vs, lambda v: m.nn.functional.threshold(m.zeros(1, dtype=d), 1.0, v)),
    "sum(dtype=)": lambda m, d, vs: _each(m, vs, lambda v: m.tensor([v], dtype=m.float64).sum(dtype=d)),
    "cumsum(dtype=)": lambda m, d, vs: m.tensor(vs, dtype=m.float64)[:, None].cumsum(1, dtype=d),
    "nn.init.constant_": lambda m, d, vs: _each(m, vs, lambda v: m.nn.init.constant_(m.empty(1, dtype=d), v)),
    "load_state_dict": _loaded,
}


def _run(path, module, dtype, values):
    """(dtype, values) of the path's result, or (exception type name, message) when it raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's overflow warnings: PyTorch is silent
        try:
            out = PATHS[path](module, getattr(module, dtype), values)
        except Exception as exc:  # noqa: BLE001 - PyTorch's refusals must be nnref's too
            return type(exc).__name__, str(exc).split("\n")[0]
    return str(out.dtype), out.float().numpy()


def _assert_same(path, dtype, values):
    expected_kind, expected = _run(path, torch, dtype, values)
    got_kind, got = _run(path, nnref, dtype, values)
    assert got_kind == expected_kind, (got, expected)
    if isinstance(expected, str):
        assert got == expected
    else:
        np.testing.assert_array_equal(got, expected, err_msg=f"{path} {dtype} from {values!r}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_double_to_half_rounds_as_torch(path, dtype, data):
    _assert_same(path, dtype, data.draw(doubles(dtype)))


@pytest.mark.parametrize("path", PATHS)
def test_half_double_rounding_examples(path):
    """Doubles that numpy's direct rounding puts on the other float16 neighbour: the brief's
    7.822265834 and one in the subnormal range; then the float32 overflow edge."""
    _assert_same(path, "float16", [7.822265834, -7.822265834, 2.0**-24 * 1.5000001, 1e39, -3.5e38])


# The second operand of a binary op on a 16-bit float tensor, as a number or a 0-d tensor.
SCALARS = {"number": lambda m, v: v, "0-d double": lambda m, v: m.tensor(v, dtype=m.float64),
           "0-d float32": lambda m, v: m.tensor(v, dtype=m.float32)}
OPERATORS = {
    "x + s": lambda m, x, s: x + s, "x - s": lambda m, x, s: x - s, "s - x": lambda m, x, s: s - x,
    "x * s": lambda m, x, s: x * s, "s * x": lambda m, x, s: s * x, "x / s": lambda m, x, s: x / s,
    "s / x": lambda m, x, s: s / x, "div floor": lambda m, x, s: m.div(x, s, rounding_mode="floor"),
    "div trunc": lambda m, x, s: m.div(x, s, rounding_mode="trunc"), "x *= s": lambda m, x, s: x.mul_(s),
    "x /= s": lambda m, x, s: x.div_(s), "lerp": lambda m, x, s: m.lerp(x, x * 0 + 1, s),
    "addcdiv(value=s)": lambda m, x, s: m.addcdiv(x, x, x.abs() + 1, value=_number(s)),
    # (at most 6 elements: PyTorch's scalar loop, which rounds alpha * other to 16 bits; its
    # vectorised loop does not, see book/differences.md)
    "add(alpha=s)": lambda m, x, s: m.add(x, x.flip(0), alpha=_number(s)),
    "F.hardtanh(-1, s)": lambda m, x, s: m.nn.functional.hardtanh(x * 1e3, -1.0, abs(_number(s)) + 1),
    "F.softshrink(|s|)": lambda m, x, s: m.nn.functional.softshrink(x * 1e3, abs(_number(s))),
    "F.threshold(s, 0)": lambda m, x, s: m.nn.functional.threshold(x * 1e3, _number(s), 0.0),
}


def _number(s):
    return s if isinstance(s, float) else s.item()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("operator", OPERATORS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_half_op_with_a_scalar_rounds_as_torch(operator, scalar, dtype, data):
    """ATen's add rounds the scalar to the tensor's 16-bit type first; mul, div and lerp compute
    with it in float32 (the op-math type), rounding only the result."""
    numpy_type, last, _ = _FORMATS[dtype]
    bits = np.array(data.draw(st.lists(st.integers(0, last), min_size=1, max_size=6)), np.uint16)
    signs = np.array(data.draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=bits.size, max_size=bits.size)))
    values = (bits.view(numpy_type).astype(np.float64) * signs).tolist()
    s = data.draw(st.one_of(st.floats(-1e4, 1e4), near_half_way(dtype)))
    results = []
    for m in (torch, nnref):
        x = m.tensor(values, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's overflow warnings: PyTorch is silent
            out = OPERATORS[operator](m, x, SCALARS[scalar](m, s))
        results.append((str(out.dtype), out.float().numpy()))
    (got_dtype, got), (expected_dtype, expected) = results[1], results[0]
    assert got_dtype == expected_dtype
    np.testing.assert_array_equal(got, expected, err_msg=f"{operator} with {s!r} on {values!r}")
