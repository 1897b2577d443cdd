"""The 'meta' device (shapes and dtypes without values) against PyTorch's meta tensors.

Every case runs the same code on ``torch`` and on ``nnref`` and compares what each prints:
reprs (size, dtype, grad_fn), error types and messages.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nnref
from nnref._meta import MetaArray, meta

torch = pytest.importorskip("torch")


def outcome(f, lib):
    try:
        return repr(f(lib))
    except Exception as exc:  # the type and message are what is compared
        return f"{type(exc).__name__}: {exc}"


def same(f, message=True):
    expected, got = outcome(f, torch), outcome(f, nnref)
    if not message:
        expected, got = expected.split(":")[0], got.split(":")[0]
    assert got == expected


M = dict(device="meta")

FACTORIES = {
    "empty": lambda L: L.empty(2, 3, **M),
    "zeros": lambda L: L.zeros(2, 3, dtype=L.int32, **M),
    "ones": lambda L: L.ones((4,), dtype=L.float64, **M),
    "full": lambda L: L.full((2,), 3, **M),
    "full_float": lambda L: L.full((2, 1), 1.5, **M),
    "rand": lambda L: L.rand(3, 2, **M),
    "randn": lambda L: L.randn(3, dtype=L.float16, **M),
    "randint": lambda L: L.randint(0, 5, (2, 2), **M),
    "arange": lambda L: L.arange(5, **M),
    "arange_float": lambda L: L.arange(0, 1, 0.25, **M),
    "tensor": lambda L: L.tensor([[1, 2], [3, 4]], **M),
    "tensor_float": lambda L: L.tensor([1.0, 2.0], **M),
    "scalar": lambda L: L.zeros((), **M),
    "empty_size": lambda L: L.zeros(0, 3, **M),
    "huge": lambda L: L.empty(10**12, **M),
    "zeros_like": lambda L: L.zeros_like(L.randn(2, 3, **M)),
    "ones_like_cpu": lambda L: L.ones_like(L.randn(2, 3), **M),
    "rand_like": lambda L: L.rand_like(L.randn(2, 3, **M)),
    "randn_like": lambda L: L.randn_like(L.randn(2, 3, **M)),
    "randint_like": lambda L: L.randint_like(L.randn(2, 3, **M), 4),
    "full_like": lambda L: L.full_like(L.randn(2, 3, **M), 7),
    "empty_like": lambda L: L.empty_like(L.randn(2, 3, **M)),
    "new_zeros": lambda L: L.randn(2, **M).new_zeros(4, 1),
    "new_ones": lambda L: L.randn(2, dtype=L.float64, **M).new_ones(3),
    "new_full": lambda L: L.randn(2, **M).new_full((2,), 1),
    "new_empty": lambda L: L.randn(2, **M).new_empty(5),
    "new_tensor": lambda L: L.randn(2, **M).new_tensor([1, 2, 3]),
    "requires_grad": lambda L: L.randn(3, requires_grad=True, **M),
    "to_meta": lambda L: L.randn(2, 3).to("meta"),
    "to_meta_dtype": lambda L: L.randn(2, 3).to("meta", L.float64),
    "device": lambda L: (L.device("meta"), L.randn(2, **M).device, L.randn(2, **M).is_meta, L.randn(2).is_meta),
    "parameter": lambda L: L.nn.Parameter(L.randn(4, 3, **M)),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factories(name):
    same(FACTORIES[name])


def x(L, *shape, dtype=None, grad=False):
    return L.randn(*shape, dtype=dtype, requires_grad=grad, **M)


OPS = {
    "add_broadcast": lambda L: x(L, 2, 1, 3) + x(L, 4, 1),
    "mul_scalar": lambda L: x(L, 2, 3) * 2,
    "int_times_float": lambda L: L.ones(2, dtype=L.int64, **M) * 2.5,
    "half_plus_number": lambda L: x(L, 3, dtype=L.float16) + 1.0,
    "compare": lambda L: x(L, 2, 3) > 0,
    "pow": lambda L: x(L, 3) ** 2,
    "floordiv_int": lambda L: L.ones(3, dtype=L.int64, **M) // 2,
    "exp_log": lambda L: x(L, 3).exp().log1p().tanh().sigmoid(),
    "where": lambda L: L.where(x(L, 2, 3) > 0, x(L, 2, 3), 0.0),
    "clamp": lambda L: x(L, 2, 3).clamp(0, 1),
    "zero_dim_cpu_joins": lambda L: x(L, 2, 3) + L.tensor(1.0),
    "broadcast_error": lambda L: x(L, 2, 3) + x(L, 4),
    "sum": lambda L: x(L, 2, 3).sum(),
    "sum_dim": lambda L: x(L, 2, 3, 4).sum((0, 2), keepdim=True),
    "sum_int": lambda L: L.ones(2, dtype=L.int32, **M).sum(),
    "mean": lambda L: x(L, 2, 3).mean(1),
    "var": lambda L: x(L, 2, 3).var(1),
    "std": lambda L: x(L, 2, 3).std(),
    "max_dim": lambda L: x(L, 2, 3).max(1),
    "max": lambda L: x(L, 2, 3).max(),
    "argmax": lambda L: x(L, 2, 3).argmax(-1),
    "any": lambda L: (x(L, 2, 3) > 0).any(),
    "softmax": lambda L: x(L, 2, 3).softmax(-1),
    "log_softmax": lambda L: x(L, 2, 3).log_softmax(0),
    "logsumexp": lambda L: x(L, 2, 3).logsumexp(1),
    "cumsum": lambda L: x(L, 2, 3).cumsum(1),
    "sort": lambda L: x(L, 2, 3).sort(1),
    "topk": lambda L: x(L, 2, 5).topk(2),
    "matmul": lambda L: x(L, 2, 3) @ x(L, 3, 4),
    "matmul_batched": lambda L: x(L, 5, 1, 2, 3) @ x(L, 7, 3, 4),
    "matmul_vector": lambda L: x(L, 3) @ x(L, 3, 4),
    "matmul_mismatch": lambda L: x(L, 2, 3) @ x(L, 2, 4),
    "mm": lambda L: L.mm(x(L, 2, 3), x(L, 3, 4)),
    "bmm": lambda L: L.bmm(x(L, 5, 2, 3), x(L, 5, 3, 4)),
    "einsum": lambda L: L.einsum("bij,bjk->bik", x(L, 2, 3, 4), x(L, 2, 4, 5)),
    "outer": lambda L: L.outer(x(L, 3), x(L, 4)),
    "cat": lambda L: L.cat([x(L, 2, 3), x(L, 2, 5)], 1),
    "stack": lambda L: L.stack([x(L, 2, 3)] * 3, 1),
    "reshape_chain": lambda L: x(L, 2, 3, 4).permute(2, 0, 1).reshape(4, -1).unsqueeze(0).expand(3, 4, 6),
    "view": lambda L: x(L, 2, 3, 4).view(6, 4),
    "transpose": lambda L: x(L, 2, 3).t(),
    "flatten": lambda L: x(L, 2, 3, 4).flatten(1),
    "squeeze": lambda L: x(L, 2, 1, 3).squeeze(),
    "basic_index": lambda L: x(L, 2, 3, 4)[:, None, 1:, ::2],
    "int_index": lambda L: x(L, 2, 3, 4)[1, ..., 0],
    "advanced_index": lambda L: x(L, 2, 3, 4)[L.tensor([0, 1, 1], **M), :, L.tensor([0], **M)],
    "list_index": lambda L: x(L, 3, 4)[[2, 0]],
    "index_select": lambda L: x(L, 3, 4).index_select(0, L.tensor([1, 0, 1], **M)),
    "gather": lambda L: x(L, 2, 3, 4).gather(1, L.zeros(2, 2, 4, dtype=L.int64, **M)),
    "scatter_add": lambda L: x(L, 2, 3).scatter_add(1, L.zeros(2, 2, dtype=L.int64, **M), x(L, 2, 2)),
    "chunk": lambda L: x(L, 2, 6).chunk(3, 1),
    "split": lambda L: x(L, 4, 3).split([1, 3], 0),
    "pad": lambda L: L.nn.functional.pad(x(L, 2, 3, 4), (1, 2, 3, 4)),
    "masked_fill": lambda L: x(L, 2, 3).masked_fill(x(L, 2, 3) > 0, 1.0),
    "diagonal": lambda L: x(L, 3, 4).diagonal(),
    "tril": lambda L: x(L, 3, 3).tril(),
    "flip": lambda L: x(L, 3, 4).flip(0),
    "repeat": lambda L: x(L, 2, 3).repeat(2, 1, 2),
    "conversions": lambda L: (x(L, 2).half(), x(L, 2).double().int(), x(L, 2).bool()),
    "one_hot": lambda L: L.nn.functional.one_hot(L.zeros(3, dtype=L.int64, **M), 4),
    "embedding": lambda L: L.nn.functional.embedding(L.zeros(2, 3, dtype=L.int64, **M), x(L, 10, 4)),
    "cross_entropy_out_of_range_target": lambda L: L.nn.functional.cross_entropy(
        x(L, 2, 3), L.tensor([0, 7], **M)),
    "cross_entropy_batch_mismatch": lambda L: L.nn.functional.cross_entropy(x(L, 2, 3), L.tensor([0, 7, 1], **M)),
    "cross_entropy_probabilities": lambda L: L.nn.functional.cross_entropy(x(L, 2, 3), x(L, 2, 3).softmax(1)),
    "mse": lambda L: L.nn.functional.mse_loss(x(L, 2, 3), x(L, 2, 3)),
    "bce": lambda L: L.nn.functional.binary_cross_entropy(L.rand(2, 3, **M), L.rand(2, 3, **M)),
    "grad_fns": lambda L: [(x(L, 2, 3, grad=True) * 2).sum(), x(L, 3, grad=True).exp(),
                           x(L, 2, 3, grad=True)[0], x(L, 2, 3, grad=True).t()],
}


# PyTorch's meta kernels word these errors differently from its CPU kernels; nnref gives its CPU
# message (the same type)
OTHER_WORDING = {"broadcast_error", "matmul_mismatch"}


@pytest.mark.parametrize("name", OPS)
def test_ops(name):
    same(OPS[name], message=name not in OTHER_WORDING)


@pytest.mark.parametrize("name", ["nonzero", "bool_mask", "unique", "bincount",
                                  "masked_select", "argwhere", "repeat_interleave_tensor"])
def test_data_dependent_ops_raise_not_implemented(name):
    f = {"nonzero": lambda L: x(L, 2, 3).nonzero(),
         "bool_mask": lambda L: x(L, 2, 3)[x(L, 2, 3) > 0],
         "unique": lambda L: x(L, 5).unique(),
         "bincount": lambda L: L.zeros(4, dtype=L.int64, **M).bincount(),
         "masked_select": lambda L: x(L, 2, 3).masked_select(x(L, 2, 3) > 0),
         "argwhere": lambda L: x(L, 2, 3).argwhere(),
         "repeat_interleave_tensor": lambda L: x(L, 2, 3).repeat_interleave(
             L.ones(2, dtype=L.int64, **M), dim=0)}[name]
    for L in (torch, nnref):
        with pytest.raises((NotImplementedError, RuntimeError)) as info:
            f(L)
        if L is torch:
            expected = info.type
    assert info.type is expected or name == "repeat_interleave_tensor"


def test_nonzero_message_is_pytorchs():
    same(lambda L: x(L, 2, 3).nonzero())


READS = {
    "item": lambda L: x(L, 1).item(),
    "item_many": lambda L: x(L, 2, 3).item(),
    "float": lambda L: float(x(L, 1)),
    "int": lambda L: int(x(L, 1)),
    "bool": lambda L: bool(x(L, 1)),
    "numpy": lambda L: x(L, 2).numpy(),
    "tolist": lambda L: x(L, 2).tolist(),
    "to_cpu": lambda L: x(L, 2).to("cpu"),
    "cpu": lambda L: x(L, 2).cpu(),
    "meta_plus_cpu": lambda L: x(L, 2, 3) + L.randn(2, 3),
    "cpu_plus_meta": lambda L: L.randn(2, 3) + x(L, 2, 3),
    "zero_dim_meta_plus_cpu": lambda L: L.tensor(1.0, **M) + L.randn(3),
}


@pytest.mark.parametrize("name", READS)
def test_reading_values_raises_as_pytorch(name):
    message = name not in ("item_many",)  # nnref's item message adds a hint
    same(READS[name], message=message)


def test_numpy_array_of_meta_tensor_raises():
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        np.asarray(x(nnref, 2))


def test_meta_array_refuses_every_read():
    a = meta.zeros((2, 3), np.float32)
    for read in (np.asarray, lambda v: v.tolist(), lambda v: v.tobytes()):
        with pytest.raises(NotImplementedError, match="no data"):
            read(a)
    for read in (bool, float, int, lambda v: v.item(), lambda v: range(v)):
        with pytest.raises(RuntimeError, match="meta tensors"):
            read(a[0, 0])
    with pytest.raises(NotImplementedError, match="no shape rule for numpy's fft"):
        meta.fft


def test_huge_meta_tensors_cost_nothing():
    import tracemalloc
    tracemalloc.start()
    t = nnref.empty(10**6, 10**6, **M)
    layer = nnref.nn.Linear(10**5, 10**5, **M)
    nnref.nn.init.kaiming_uniform_(t, a=5 ** 0.5)
    out = (t @ t.t()).sum(0).exp()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 10**6 and out.shape == (10**6,) and layer.weight.shape == (10**5, 10**5)


def test_meta_draws_leave_the_cpu_generator_alone():
    def stream(L):
        L.manual_seed(0)
        L.randn(3, **M)
        L.rand(2, 2, **M)
        L.empty(4, **M).normal_()
        L.nn.functional.dropout(x(L, 5), 0.5)
        drawn = L.randn(3)
        L.manual_seed(0)
        return bool((drawn == L.randn(3)).all())
    assert stream(nnref) is stream(torch) is True


def test_inplace_ops_are_shape_checked():
    same(lambda L: L.empty(3, **M).uniform_().add_(1).mul_(L.ones(3, **M)))
    same(lambda L: L.empty(3, **M).add_(L.ones(2, **M)), message=False)
    same(lambda L: L.nn.init.trunc_normal_(L.empty(10, 10, **M)))
    same(lambda L: L.nn.init.xavier_normal_(L.empty(10, 10, **M)))
    same(lambda L: L.nn.init.zeros_(L.empty(10, 10, **M)))


def build_cnn(L):
    nn = L.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.LazyLinear(10))


def test_cnn_forward_backward_on_meta():
    def run(L):
        with L.device("meta"):
            net = build_cnn(L)
            images = L.randn(4, 3, 16, 16)
        y = net(images)
        loss = L.nn.functional.cross_entropy(y, L.randint(0, 10, (4,), **M))
        loss.backward()
        return y, loss, [(n, p, p.grad) for n, p in net.named_parameters()], list(net.buffers())
    same(run)


def test_mlp_forward_backward_on_meta():
    def run(L):
        nn = L.nn
        model = nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Dropout(0.1), nn.LayerNorm(64),
                              nn.Linear(64, 5)).to("meta")
        inputs = x(L, 8, 20, grad=True)
        out = model(inputs).log_softmax(-1)
        loss = nn.functional.nll_loss(out, L.zeros(8, dtype=L.int64, **M))
        loss.backward()
        return out, loss, inputs.grad, model[0].weight.grad, model[4].bias.grad
    same(run)


def test_linear_on_meta_gives_addmm():
    same(lambda L: L.nn.Linear(3, 4, **M)(x(L, 2, 3)))


def test_device_context_manager():
    def run(L):
        with L.device("meta"):
            inside = (L.zeros(2), L.nn.Linear(2, 3).weight.device, L.get_default_device())
            with L.device("cpu"):
                nested = L.ones(1)
        return inside, nested, L.zeros(1), L.get_default_device()
    same(run)


def test_to_empty_after_meta_init():
    def run(L):
        L.manual_seed(0)
        with L.device("meta"):
            net = build_cnn(L)
            net(L.randn(1, 3, 8, 8))  # the lazy layer learns its input size
        net.to_empty(device="cpu")
        for module in net.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
        return (net[0].weight, net[5].weight.shape, net[1].running_var, net[1].num_batches_tracked,
                net(L.ones(2, 3, 8, 8)).shape)
    same(run)


def test_moving_to_or_from_meta_makes_new_parameters():
    """PyTorch swaps values in place (``param.data = ...``) only between compatible tensor types;
    a meta tensor is not one for a CPU tensor, so moving makes new Parameters."""
    for L in (torch, nnref):
        layer = L.nn.Linear(2, 3)
        weight = layer.weight
        layer.weight.grad = L.ones(3, 2)
        assert layer.to_empty(device="meta") is layer and layer.weight is not weight
        assert isinstance(layer.weight, L.nn.Parameter) and layer.weight.is_meta
        assert layer.weight.requires_grad and layer.weight.grad.is_meta
        meta_bias = layer.bias
        layer.to_empty(device="cpu")
        assert layer.bias is not meta_bias and not layer.bias.is_meta
        kept = layer.weight
        assert layer.double().weight is kept


def test_repr_of_parameter_and_grad_fn():
    same(lambda L: L.nn.Linear(3, 4, **M).weight)
    same(lambda L: str(x(L, 2, 2, grad=True) * 2))


# -- the namespace's shape rules against numpy on real arrays ------------------------------------
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(shapes, st.data())
def test_view_chains_match_cpu(shape, data):
    """A random chain of views and basic indexing gives the shape the CPU tensor gets."""
    cpu, on_meta = nnref.zeros(shape), nnref.zeros(shape, **M)
    for _ in range(data.draw(st.integers(1, 4))):
        ndim = cpu.dim()
        choice = data.draw(st.sampled_from(["permute", "reshape", "unsqueeze", "index", "t", "flatten"]))
        if choice == "permute":
            args = data.draw(st.permutations(range(ndim)))
            step = lambda t: t.permute(*args)
        elif choice == "reshape":
            step = lambda t: t.reshape(-1, *cpu.shape[1:][::-1]) if cpu.numel() else t.reshape(cpu.shape[::-1])
        elif choice == "unsqueeze":
            d = data.draw(st.integers(-ndim - 1, ndim))
            step = lambda t: t.unsqueeze(d)
        elif choice == "index":
            key = tuple(data.draw(st.one_of(st.just(slice(None)), st.just(slice(1, None, 2)),
                                             st.integers(0, size - 1) if size else st.just(slice(None))))
                        for size in cpu.shape[:data.draw(st.integers(0, ndim))])
            step = lambda t: t[key]
        elif choice == "t" and ndim <= 2:
            step = lambda t: t.t()
        else:
            step = lambda t: t.flatten()
        cpu, on_meta = step(cpu), step(on_meta)
        assert tuple(on_meta.shape) == tuple(cpu.shape) and on_meta.dtype == cpu.dtype


index_arrays = st.lists(st.integers(0, 2), min_size=1, max_size=3).map(lambda v: np.array(v))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.just(slice(None)), st.just(slice(1, None)), st.none(), st.just(Ellipsis),
                          st.integers(0, 2), index_arrays), max_size=4))
def test_advanced_indexing_matches_numpy(key):
    array = np.zeros((3, 3, 3, 3), np.float32)
    key = tuple(key)
    try:
        expected = array[key].shape
    except IndexError:
        with pytest.raises(IndexError):
            meta.zeros(array.shape, array.dtype)[key]
        return
    on_meta = meta.zeros(array.shape, array.dtype)[tuple(meta.asarray(k) if isinstance(k, np.ndarray)
                                                         else k for k in key)]
    assert isinstance(on_meta, MetaArray) and on_meta.shape == expected


@settings(max_examples=100, deadline=None)
@given(shapes, shapes, st.sampled_from([np.float16, np.float32, np.int64, np.bool_, np.int8]),
       st.sampled_from([np.float32, np.int32, np.uint8]), st.sampled_from([np.add, np.multiply, np.less,
                                                                           np.maximum, np.true_divide]))
def test_ufuncs_and_reductions_match_numpy(sa, sb, da, db, ufunc):
    a, b = np.ones(sa, da), np.ones(sb, db)
    try:
        expected = ufunc(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            getattr(meta, ufunc.__name__)(meta.asarray(a), meta.asarray(b))
        return
    got = getattr(meta, ufunc.__name__)(meta.asarray(a), meta.asarray(b))
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    for axis in [None] + list(range(expected.ndim)):
        for name in ("sum", "max", "argmax", "mean", "cumsum"):
            if name in ("max", "argmax") and not expected.size:
                continue
            want = getattr(np, name)(expected, axis=axis)
            have = getattr(meta, name)(got, axis=axis)
            assert (have.shape, have.dtype) == (np.shape(want), np.asarray(want).dtype), name


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple),
       st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple))
def test_matmul_matches_numpy(sa, sb):
    a, b = np.ones(sa, np.float32), np.ones(sb, np.float64)
    try:
        expected = np.matmul(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            meta.matmul(meta.asarray(a), meta.asarray(b))
        return
    got = meta.matmul(meta.asarray(a), meta.asarray(b))
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
