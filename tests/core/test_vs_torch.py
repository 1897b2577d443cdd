"""Differential tests: the same code with ``nnref`` and with ``torch`` must agree.

Values and gradients of random expressions, dtype inference and promotion,
``type()`` strings and the legacy constructors, the leaf rules, and the
structure of the recorded graph (node names, ``next_functions``, which leaf
each ``AccumulateGrad`` points at).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref
from core_helpers import assert_close, dtype_name, graph_signature, numpy_of

torch = pytest.importorskip("torch")


def outcome(fn, m):
    """What ``fn(m)`` gives, as something comparable: a dtype name, a value, or the error type."""
    try:
        result = fn(m)
    except Exception as exc:  # the error *type* must match PyTorch's
        return type(exc).__name__
    if hasattr(result, "dtype") and hasattr(result, "shape"):
        return dtype_name(result.dtype), tuple(result.shape)
    return result


def same(fn):
    assert outcome(fn, nnref) == outcome(fn, torch)


# -- dtype inference of tensor() --------------------------------------------------------------------
INFERENCE_DATA = {
    "int": 3, "float": 3.0, "bool": True, "int_list": [1, 2], "float_list": [1.0, 2.0],
    "mixed_int_float": [1, 2.5], "bool_list": [True, False], "bool_and_int": [True, 2],
    "bool_and_float": [True, 2.5], "nested": [[1, 2], [3, 4]], "nested_mixed": [[1], [2.0]],
    "empty": [], "empty_nested": [[]], "tuple": (1, 2),
    "np_float64_array": np.array([1.0, 2.0]), "np_float32_array": np.array([1.0], np.float32),
    "np_float16_array": np.array([1.0], np.float16), "np_int32_array": np.array([1], np.int32),
    "np_int64_array": np.array([1]), "np_bool_array": np.array([True]),
    "np_float64_scalar": np.float64(2.0), "np_int32_scalar": np.int32(2),
    "list_with_np_float64": [np.float64(1.0), 2], "list_with_np_int32": [np.int32(1)],
    "list_with_np_float16": [np.float16(1.0), 2.5],
}


@pytest.mark.parametrize("name", sorted(INFERENCE_DATA))
def test_tensor_infers_dtype_like_torch(name):
    data = INFERENCE_DATA[name]
    same(lambda m: m.tensor(data))


def test_tensor_of_tensors_keeps_their_dtype():
    same(lambda m: m.tensor([m.tensor(1, dtype=m.int32), m.tensor(2, dtype=m.int32)]))
    same(lambda m: m.tensor([m.tensor(1.5, dtype=m.float64), 2]))


def test_default_dtype_changes_float_inference():
    for m in (nnref, torch):
        m.set_default_dtype(m.float64)
        try:
            assert dtype_name(m.tensor([1.0]).dtype) == "float64"
            assert dtype_name(m.tensor([1]).dtype) == "int64"
            assert dtype_name((m.tensor([1]) * 0.5).dtype) == "float64"
            assert dtype_name(m.zeros(2).dtype) == "float64"
        finally:
            m.set_default_dtype(m.float32)


# -- type promotion ---------------------------------------------------------------------------------
DTYPES = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
BINARY_OPS = {
    "add": lambda a, b: a + b, "radd": lambda a, b: b + a, "sub": lambda a, b: a - b,
    "rsub": lambda a, b: b - a, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "rdiv": lambda a, b: b / a, "pow": lambda a, b: a ** b, "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
}


def make(m, dtype, zero_dim):
    return m.ones(() if zero_dim else (2,), dtype=getattr(m, dtype))


@pytest.mark.parametrize("op", sorted(BINARY_OPS))
@pytest.mark.parametrize("left", DTYPES)
def test_promotion_between_tensors(op, left):
    """Every pair of dtypes, dimensioned and 0-d on either side."""
    f = BINARY_OPS[op]
    for right in DTYPES:
        for left_0d, right_0d in [(False, False), (False, True), (True, False), (True, True)]:
            same(lambda m: f(make(m, left, left_0d), make(m, right, right_0d)))


SCALARS = {"True": True, "int": 2, "float": 2.5, "negative_int": -1}


@pytest.mark.parametrize("op", sorted(BINARY_OPS))
@pytest.mark.parametrize("scalar", sorted(SCALARS))
def test_promotion_with_python_scalars(op, scalar):
    """``int_tensor * 2.5`` is float32, ``half * 2.0`` stays half, ``int - True`` fails ..."""
    f, value = BINARY_OPS[op], SCALARS[scalar]
    for dtype in DTYPES:
        for zero_dim in (False, True):
            same(lambda m: f(make(m, dtype, zero_dim), value))


@pytest.mark.parametrize("case", [
    lambda m: m.ones(2, dtype=m.int32) + m.tensor(5),              # 0-d int64 does not widen int32
    lambda m: m.ones(2, dtype=m.int32) + m.tensor(5.0),            # ... but a 0-d float does
    lambda m: m.ones(2, dtype=m.float16) * m.tensor(2.0, dtype=m.float64),
    lambda m: m.ones(2, dtype=m.float16) + m.ones(2, dtype=m.bfloat16),
    lambda m: m.tensor(1, dtype=m.int32) + m.tensor(1, dtype=m.int64),
    lambda m: m.ones(2, dtype=m.bool) + m.ones(2, dtype=m.bool),
    lambda m: m.where(m.tensor([True, False]), m.ones(2, dtype=m.int32), 2.5),
    lambda m: m.maximum(m.ones(2, dtype=m.int64), m.ones(2)),
    lambda m: m.cat([m.ones(2, dtype=m.int64), m.ones(2)]),
    lambda m: m.stack([m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int64)]),
    lambda m: m.ones(2, dtype=m.int64).clamp(0.5),
    lambda m: m.ones(2, dtype=m.int64).exp(),
    lambda m: m.ones(2, dtype=m.bool).sigmoid(),
    lambda m: m.ones(2, dtype=m.int32).sqrt(),
    lambda m: m.ones(2, dtype=m.int64).sum(),
    lambda m: m.ones(2, dtype=m.bool).sum(0),
    lambda m: m.ones(2, dtype=m.int32).sum(),
    lambda m: m.ones(2, dtype=m.float16).sum(),
    lambda m: m.ones(2, dtype=m.int64).sum(dtype=m.float32),
    lambda m: m.ones(2, dtype=m.int64).mean(),
    lambda m: m.ones(2, dtype=m.int64).var(),
    lambda m: m.ones(2, dtype=m.int64).softmax(0),
    lambda m: m.ones(2, dtype=m.int64).softmax(0, dtype=m.float64),
    lambda m: m.ones(2, dtype=m.int32).max(),
    lambda m: m.ones(2, dtype=m.int64).abs(),
    lambda m: m.ones(2, dtype=m.int64).relu(),
    lambda m: -m.ones(2, dtype=m.int64),
    lambda m: -m.ones(2, dtype=m.bool),
    lambda m: m.ones(2, dtype=m.int64) ** -1,
    lambda m: 2 ** m.ones(2, dtype=m.int64),
    lambda m: 2.5 ** m.ones(2, dtype=m.int64),
    lambda m: m.ones(2, dtype=m.int64).argmax(),
    lambda m: m.ones(2, dtype=m.int64) @ m.ones(2, dtype=m.int64),
    lambda m: m.ones(2) @ m.ones(2, dtype=m.float64),
], ids=lambda f: "")
def test_op_result_dtypes(case):
    same(case)


def test_result_type_and_promote_types():
    for m in (nnref, torch):
        assert dtype_name(m.result_type(m.ones(2, dtype=m.int32), 2.5)) == "float32"
        assert dtype_name(m.promote_types(m.float16, m.bfloat16)) == "float32"
        assert dtype_name(m.promote_types(m.int32, m.bool)) == "int32"


# -- type() strings and legacy constructors ----------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_type_strings(dtype):
    t, tt = nnref.ones(2, dtype=getattr(nnref, dtype)), torch.ones(2, dtype=getattr(torch, dtype))
    assert t.type() == tt.type()  # nnref answers with the same 'torch.FloatTensor' strings
    assert t.is_floating_point() == tt.is_floating_point()
    assert t.element_size() == tt.element_size()
    assert dtype_name(t.type(t.type()).dtype) == dtype


def test_type_conversions():
    same(lambda m: m.ones(2).type(m.float64))
    same(lambda m: m.ones(2).type("torch.DoubleTensor"))
    same(lambda m: m.ones(2).type_as(m.ones(1, dtype=m.int64)))
    for method in ("float", "double", "half", "bfloat16", "long", "int", "bool"):
        same(lambda m: getattr(m.tensor([1.5, -2.0]), method)())


@pytest.mark.parametrize("ctor", ["Tensor", "FloatTensor", "DoubleTensor", "LongTensor",
                                  "IntTensor", "BoolTensor", "HalfTensor"])
@pytest.mark.parametrize("args", [([1, 2],), (2, 3), ([1.5, 2],), ((2,),), ([[True]],), ()],
                         ids=["ints", "sizes", "floats", "size_tuple", "bools", "nothing"])
def test_legacy_constructors(ctor, args):
    """``Tensor(...)`` is the default dtype (float32 here); ``LongTensor([1.5])`` truncates; no arguments: empty."""
    def build(m):
        t = getattr(m, ctor)(*args)
        return dtype_name(t.dtype), tuple(t.shape), t.tolist() if args and not isinstance(args[0], int) else None
    assert build(nnref) == build(torch)


def test_isinstance_of_legacy_types():
    for m in (nnref, torch):
        assert isinstance(m.ones(2), m.FloatTensor)
        assert not isinstance(m.ones(2), m.DoubleTensor)
        assert isinstance(m.ones(2, dtype=m.int64), m.LongTensor)
        assert isinstance(m.ones(2), m.Tensor)


@pytest.mark.parametrize("factory", [
    lambda m: m.zeros(2), lambda m: m.ones(2, 3), lambda m: m.empty(2), lambda m: m.full((2,), 3),
    lambda m: m.full((2,), 3.0), lambda m: m.full((2,), True), lambda m: m.arange(3),
    lambda m: m.arange(3.0), lambda m: m.arange(0, 1, 0.25), lambda m: m.arange(1, 7, 2),
    lambda m: m.linspace(0, 1, 5), lambda m: m.eye(3), lambda m: m.eye(2, 3),
    lambda m: m.randint(0, 3, (2,)), lambda m: m.randint(5, (3, 2)), lambda m: m.rand(2),
    lambda m: m.randn(2, 3, dtype=m.float64), lambda m: m.zeros_like(m.ones(2, dtype=m.int32)),
    lambda m: m.ones_like(m.ones(2), dtype=m.float16), lambda m: m.full_like(m.ones(2), 7),
    lambda m: m.rand_like(m.ones(3)), lambda m: m.randn_like(m.ones(1, dtype=m.float64)),
    lambda m: m.empty_like(m.ones(2, 2)), lambda m: m.zeros((2, 3)), lambda m: m.zeros([0]),
    lambda m: m.from_numpy(np.ones(3, dtype=np.float64)), lambda m: m.as_tensor([1, 2]),
    lambda m: m.as_tensor(m.ones(2), dtype=m.float64),
], ids=lambda f: "")
def test_factory_dtypes_and_shapes(factory):
    same(factory)


def test_factory_values():
    for f in [lambda m: m.arange(0, 1, 0.25), lambda m: m.linspace(-1, 1, 5), lambda m: m.eye(2, 3),
              lambda m: m.full((2, 2), 1.5), lambda m: m.arange(5, 0, -2)]:
        assert_close(f(nnref), f(torch))


def test_from_numpy_shares_memory():
    for m in (nnref, torch):
        array = np.zeros(3)
        t = m.from_numpy(array)
        array[0] = 5
        assert t[0].item() == 5
        t.add_(1)
        assert array.tolist() == [6.0, 1.0, 1.0]


# -- leaves and requires_grad -----------------------------------------------------------------------
def leaf_facts(m):
    a = m.tensor([1.0, 2.0], requires_grad=True)
    c = m.tensor([1.0, 2.0])
    facts = {
        "a": a, "a+1": a + 1, "c+1": c + 1, "a.sum()": a.sum(), "a.detach()": a.detach(),
        "a.data": a.data, "a.float()": a.float(), "a.double()": a.double(),
        "a.to(int64)": a.to(m.int64), "a > 1": a > 1, "a.argmax()": a.argmax(),
        "a.max(0).indices": a.max(0).indices, "a.max(0).values": a.max(0).values,
        "int * a": m.ones(2, dtype=m.int64) * a, "c * a": c * a,
        "a[0]": a[0], "a.view(2)": a.view(2), "a.clone()": a.clone(),
        "leaf int": m.ones(2, dtype=m.int64), "zeros rg": m.zeros(2, requires_grad=True),
    }
    with m.no_grad():
        facts["no_grad a*2"] = a * 2
        facts["no_grad a.sum()"] = a.sum()
    with m.enable_grad():
        facts["enable_grad a*2"] = a * 2
    return {k: (t.is_leaf, t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__)
            for k, t in facts.items()}


def test_leaf_rules_match_torch():
    assert leaf_facts(nnref) == leaf_facts(torch)


def test_requires_grad_flag_rules():
    for m in (nnref, torch):
        b = m.tensor([1.0]).requires_grad_()
        assert b.requires_grad and b.is_leaf
        b.requires_grad = False
        assert not b.requires_grad
        y = m.tensor([1.0], requires_grad=True) * 2
        y.requires_grad_(True)  # fine on a non-leaf that already requires grad
        with pytest.raises(RuntimeError):
            y.requires_grad_(False)
        with pytest.raises(RuntimeError, match="floating point"):
            m.tensor([1, 2]).requires_grad_()
        with pytest.raises(RuntimeError):
            m.tensor([1, 2], requires_grad=True)


# -- graph structure -------------------------------------------------------------------------------
EXPRESSIONS = {
    "notes_example": lambda m, x, w: (x + w) * (w + 1),
    "same_leaf_twice": lambda m, x, w: x * x,
    "scalar_operands": lambda m, x, w: 2 * x - 1 + x / 3,
    "rsub_and_rdiv": lambda m, x, w: 1 - x + 1 / w,
    "constant_tensor": lambda m, x, w: x * m.tensor([2.0, 3.0]) + m.tensor(1.0),
    "reductions": lambda m, x, w: x.sum() + w.mean() + (x * w).max(),
    "max_dim": lambda m, x, w: x.max(0).values + w.min(0)[0],
    "matmul_chain": lambda m, x, w: (x.view(1, 2) @ w.view(2, 1)).tanh().sum(),
    "cat_three": lambda m, x, w: m.cat([x, w, x]),
    "stack": lambda m, x, w: m.stack([x, w.detach(), w], 1),
    "where": lambda m, x, w: m.where(x > 0, x, w),
    "where_number": lambda m, x, w: m.where(x > 0, x, 0.0),
    "pow_forms": lambda m, x, w: x ** 2 + 2 ** x + x.abs() ** w,
    "softmax_mix": lambda m, x, w: m.log_softmax(x, 0) - m.softmax(w, -1).log(),
    "views": lambda m, x, w: x.unsqueeze(0).expand(3, 2).t().reshape(-1).flatten(),
    "indexing": lambda m, x, w: x[0] + w[1:] + x[[1, 1]],
    "detach_cuts": lambda m, x, w: x.detach() * w + x.data,
    "to_double": lambda m, x, w: x.double() * w.double(),
    "clone_masked": lambda m, x, w: x.clone().masked_fill(w > 1, 0.0),
    "clamp_relu": lambda m, x, w: m.relu(x).clamp(max=1.0) + w.sigmoid().sqrt(),
    "sum_dims": lambda m, x, w: (x.unsqueeze(1) * w).sum((0, 1), keepdim=True),
    "amax_var": lambda m, x, w: (x * w).amax() + x.var(),
    "addmm": lambda m, x, w: m.addmm(w, x.view(2, 1), w.view(1, 2)),
    "bmm_dot_mv": lambda m, x, w: m.bmm(x.view(1, 1, 2), w.view(1, 2, 1)).sum() + m.dot(x, w)
                                  + m.mv(x.view(1, 2), w).sum(),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_graph_structure_values_and_gradients(name):
    f = EXPRESSIONS[name]
    results = []
    for m in (nnref, torch):
        x = m.tensor([1.5, -0.5], requires_grad=True)
        w = m.tensor([2.0, 0.75], requires_grad=True)
        out = f(m, x, w)
        signature = graph_signature(out.grad_fn, (x, w))
        out.backward(m.ones_like(out))
        results.append((out, signature, x.grad, w.grad))
    (out, signature, xg, wg), (t_out, t_signature, t_xg, t_wg) = results
    assert signature == t_signature
    assert_close(out, t_out, rtol=1e-6)
    for g, tg in ((xg, t_xg), (wg, t_wg)):
        assert (g is None) == (tg is None)
        if g is not None:
            assert_close(g, tg, rtol=1e-6)


def test_accumulate_grad_is_shared_and_points_at_the_leaf():
    for m in (nnref, torch):
        x = m.tensor([1.0], requires_grad=True)
        a, b = x * 2, x * 3
        acc_a, acc_b = a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0]
        assert acc_a is acc_b  # one accumulator per leaf, while the graph is alive
        assert acc_a.variable is x
        assert acc_a.next_functions == ()
        assert acc_a.name() == "torch::autograd::AccumulateGrad"
        assert type(acc_a).__name__ == "AccumulateGrad"
        assert repr(acc_a).startswith("<AccumulateGrad object at 0x")


def test_multi_output_and_none_edges():
    for m in (nnref, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * m.tensor([3.0, 4.0])
        assert y.grad_fn.next_functions[1] == (None, 0)
        z = 5 * x
        assert z.grad_fn.next_functions[1] == (None, 0)
        assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
        assert y.grad_fn.name() == "MulBackward0"


# -- random expressions -----------------------------------------------------------------------------
UNARY = [
    lambda m, a: a.exp() * 0.1, lambda m, a: m.tanh(a), lambda m, a: a.sigmoid(),
    lambda m, a: (a * a + 1).log(), lambda m, a: (a.abs() + 0.5).sqrt(), lambda m, a: -a,
    lambda m, a: a.relu(), lambda m, a: a.clamp(-0.5, 0.5), lambda m, a: a ** 2,
    lambda m, a: m.softmax(a, -1), lambda m, a: a.log_softmax(0), lambda m, a: a.t() @ a,
    lambda m, a: a.sum(0, keepdim=True).expand(3, 3), lambda m, a: a.mean(-1, keepdim=True) * a,
    lambda m, a: a.amax(0).expand(3, -1), lambda m, a: a.max(1).values.unsqueeze(1) - a,
    lambda m, a: m.cat([a[::2], a[1:2]]), lambda m, a: a[[2, 0, 2]],
    lambda m, a: a.transpose(0, 1).reshape(a.shape), lambda m, a: a.clone(),
]
BINARY = [
    lambda m, a, b: a + b, lambda m, a, b: a - 2 * b, lambda m, a, b: a * b,
    lambda m, a, b: a / (b * b + 1), lambda m, a, b: m.maximum(a, b), lambda m, a, b: m.where(a > b, a, b),
    lambda m, a, b: a @ b.t(), lambda m, a, b: m.cat([a, b], 0)[: a.shape[0]],
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=st.lists(st.tuples(st.booleans(), st.integers(0, 100), st.integers(0, 100),
                                  st.integers(0, 100)), min_size=1, max_size=8),
       seed=st.integers(0, 2**32 - 1))
def test_random_expressions(program, seed):
    """A random program over 3x3 float64 tensors (every op keeps that shape), run with both libraries."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((3, 3)) for _ in range(2)]
    results = []
    for m in (nnref, torch):
        leaves = [m.tensor(a, requires_grad=True) for a in arrays]
        values = list(leaves)
        for binary, op, i, j in program:
            a, b = values[i % len(values)], values[j % len(values)]
            if binary:
                values.append(BINARY[op % len(BINARY)](m, a, b))
            else:
                values.append(UNARY[op % len(UNARY)](m, a))
        out = sum(v.sum() for v in values[2:])
        signature = graph_signature(out.grad_fn, leaves)
        out.backward()
        results.append((out, signature, [leaf.grad for leaf in leaves]))
    (out, signature, grads), (t_out, t_signature, t_grads) = results
    assert signature == t_signature
    assert_close(out, t_out, rtol=1e-9, atol=1e-12)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if g is not None:
            assert_close(g, tg, rtol=1e-9, atol=1e-12)


# -- 16-bit floats ---------------------------------------------------------------------------------
HALF_OPS = {
    "matmul": lambda m, a, b: a @ b.t(), "mv": lambda m, a, b: m.mv(a, b[0]),
    "dot": lambda m, a, b: m.dot(a[0], b[1]), "bmm": lambda m, a, b: m.bmm(a[None], b.t()[None]),
    "addmm": lambda m, a, b: m.addmm(b[0, :8], a, b.t()), "sum": lambda m, a, b: a.sum() + b.sum(0),
    "mean": lambda m, a, b: a.mean(1) + b.mean(), "var": lambda m, a, b: a.var(0),
    "softmax": lambda m, a, b: m.softmax(a, -1), "log_softmax": lambda m, a, b: a.log_softmax(0),
    "pointwise": lambda m, a, b: (a.exp() * b.tanh() - a.sigmoid()) / (b.abs() + 1),
    "max": lambda m, a, b: a.amax(1)[:, None] + a.max(0).values,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", sorted(HALF_OPS))
def test_16_bit_floats_accumulate_like_torch(op, dtype):
    """Long sums in float16/bfloat16 must accumulate in float32, as PyTorch's CPU kernels do."""
    rng = np.random.default_rng(0)
    a_values = rng.uniform(0.05, 0.15, (8, 600))
    b_values = rng.uniform(-0.5, 0.5, (8, 600))
    results = []
    for m in (nnref, torch):
        a = m.tensor(a_values, dtype=getattr(m, dtype), requires_grad=True)
        b = m.tensor(b_values, dtype=getattr(m, dtype), requires_grad=True)
        out = HALF_OPS[op](m, a, b)
        out.sum().backward()
        results.append((out, a.grad, b.grad))
    for ours, theirs in zip(*results):
        if theirs is None:
            assert ours is None
            continue
        # Backward formulas round their intermediates to 16 bits in nnref (PyTorch fuses them in
        # float32), so 1 - 1.06 may be off by one bfloat16 step of the operands (2**-8).
        scale = max(float(np.abs(numpy_of(theirs)).max()), 1e-3 if dtype == "float16" else 1.0)
        assert_close(ours, theirs, rtol=2e-2, atol=1e-2 * scale)


def test_hand_written_training_loop_matches_torch():
    """Linear regression by hand, the way the course first writes it: same losses, same weights."""
    rng = np.random.default_rng(1)
    xs, ys = rng.standard_normal((32, 3)), rng.standard_normal((32, 1))
    w0, b0 = rng.standard_normal((3, 1)), rng.standard_normal(1)

    def train(m):
        x, y = m.tensor(xs, dtype=m.float32), m.tensor(ys, dtype=m.float32)
        w = m.tensor(w0, dtype=m.float32, requires_grad=True)
        b = m.tensor(b0, dtype=m.float32, requires_grad=True)
        losses = []
        for step in range(30):
            loss = ((x @ w + b - y) ** 2).mean()
            loss.backward()
            losses.append(loss.item())
            if step % 2:
                with m.no_grad():
                    w -= 0.1 * w.grad
                    b.sub_(b.grad, alpha=0.1)
            else:
                w.data -= 0.1 * w.grad.data
                b.data = b.data - 0.1 * b.grad
            w.grad.zero_()
            b.grad = None
        return losses, w, b, w.is_leaf, w.requires_grad, w._version
    ours, theirs = train(nnref), train(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    assert_close(ours[1], theirs[1], rtol=1e-5)
    assert_close(ours[2], theirs[2], rtol=1e-5)
    assert ours[3:] == theirs[3:]
