"""Float sums round as PyTorch's do, bit for bit: ``sum``, ``mean`` (and so the losses that reduce
with them), the gradients autograd sums over broadcast dimensions, ``nll_loss``/``cross_entropy``'s
own reduction, ``nansum``/``nanmean``, and ``var``/``std`` of a whole tensor, over shapes, layouts (transposes, strided slices) and reduced
dimensions drawn by hypothesis.  numpy's pairwise sum
disagrees with PyTorch's in the last bit on most float32 tensors of more than a few elements."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

SIZES = [1, 2, 3, 5, 8, 9, 16, 17, 31, 33, 64, 129, 257]


@pytest.fixture(autouse=True)
def one_thread():
    """PyTorch splits sums of 32768 or more elements between its threads: compare one thread's."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def same_bits(ours, theirs):
    if ours.is_contiguous() != theirs.is_contiguous():
        return False
    ours, theirs = np.ascontiguousarray(ours.detach().numpy()), np.ascontiguousarray(theirs.detach().numpy())
    return ours.dtype == theirs.dtype and ours.shape == theirs.shape and \
        np.array_equal(np.atleast_1d(ours).view(np.uint8), np.atleast_1d(theirs).view(np.uint8))


@st.composite
def layouts(draw):
    """A float tensor in both libraries with the same values and strides, and dims to reduce."""
    shape = draw(st.lists(st.sampled_from(SIZES), min_size=1, max_size=4).filter(
        lambda s: np.prod(s) <= 60000))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2 ** 16))
    base = (np.random.default_rng(seed).standard_normal(shape) * 100).astype(dtype)
    ours, theirs = nnref.tensor(base), torch.tensor(base)
    view = draw(st.sampled_from(["contiguous", "permuted", "strided"]))
    if view == "permuted":
        order = draw(st.permutations(range(len(shape))))
        ours, theirs = ours.permute(*order), theirs.permute(*order)
    elif view == "strided":
        steps = tuple(slice(None, None, draw(st.sampled_from([1, 2, 3]))) for _ in shape)
        ours, theirs = ours[steps], theirs[steps]
    dims = draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                               max_size=len(shape), unique=True)))
    keepdim = draw(st.booleans())
    return ours, theirs, dims, keepdim


def assert_reductions_match(names, ours, theirs, dims, keepdim):
    """Each method in ``names``, over every element (``dims`` None) or over ``dims``."""
    arguments = ((), {}) if dims is None else ((dims,), {"keepdim": keepdim})
    for name in names:
        assert same_bits(getattr(ours, name)(*arguments[0], **arguments[1]),
                         getattr(theirs, name)(*arguments[0], **arguments[1])), name


@settings(max_examples=300, deadline=None)
@given(layouts())
def test_sum_and_mean_round_as_pytorch(case):
    assert_reductions_match(("sum", "mean"), *case)


@settings(max_examples=150, deadline=None)
@given(layouts(), st.integers(0, 2))
def test_variance_of_a_whole_tensor_is_pytorchs(case, correction):
    """PyTorch's CPU var/std with one value to give: the float mean in double, deviations squared
    and added in double in memory order (std_var_all_cpu); numpy's var differed on a third."""
    ours, theirs, _, keepdim = case
    dims = list(range(ours.dim()))
    assert same_bits(ours.var(correction=correction), theirs.var(correction=correction))
    assert same_bits(ours.std(dims, correction=correction, keepdim=keepdim),
                     theirs.std(dims, correction=correction, keepdim=keepdim))


@settings(max_examples=150, deadline=None)
@given(layouts(), st.integers(0, 2 ** 16))
def test_nansum_and_nanmean_add_as_pytorch(case, seed):
    """nansum is the sum kernel with NaN read as 0, in the input's own loop order."""
    ours, theirs, dims, keepdim = case
    holes = np.random.default_rng(seed).random(tuple(ours.shape)) < 0.2
    ours = ours.masked_fill(nnref.tensor(holes), float("nan"))
    theirs = theirs.masked_fill(torch.tensor(holes), float("nan"))
    assert_reductions_match(("nansum", "nanmean"), ours, theirs, dims, keepdim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_vectors_of_every_length_up_to_600_and_some_long_ones(dtype):
    rng = np.random.default_rng(0)
    for length in list(range(0, 600)) + [4096, 4097, 65536 + 123, 300001]:
        data = rng.standard_normal(length).astype(dtype)
        assert same_bits(nnref.tensor(data).sum(), torch.tensor(data).sum()), length


def test_casting_sums_and_integer_inputs():
    data = np.random.default_rng(1).standard_normal((37, 19)).astype(np.float32)
    ours, theirs = nnref.tensor(data), torch.tensor(data)
    assert same_bits(ours.sum(dtype=nnref.float64), theirs.sum(dtype=torch.float64))
    assert same_bits(ours.double().sum(0, dtype=nnref.float32), theirs.double().sum(0, dtype=torch.float32))
    assert same_bits(ours.mean(1, dtype=nnref.float64), theirs.mean(1, dtype=torch.float64))
    counts = np.arange(1000).reshape(40, 25) * 7919 % 1013
    assert same_bits(nnref.tensor(counts).sum(1, dtype=nnref.float32),
                     torch.tensor(counts).sum(1, dtype=torch.float32))
    assert same_bits(nnref.tensor(counts).sum(), torch.tensor(counts).sum())
    assert same_bits(nnref.zeros(0, 3).mean(0), torch.zeros(0, 3).mean(0))  # 0 / 0: nan


@pytest.mark.parametrize("batch", [1, 16, 17, 64, 300])
def test_gradients_summed_over_broadcast_dimensions_are_pytorchs(batch):
    """A bias's gradient, and a 0-d parameter's broadcast over a batch (the polynomial fits of
    "Learning PyTorch with Examples"), are sums over the batch."""
    rng = np.random.default_rng(batch)
    x, w = rng.standard_normal((batch, 40)).astype(np.float32), rng.standard_normal((33, 40)).astype(np.float32)
    b, g = rng.standard_normal(33).astype(np.float32), rng.standard_normal((batch, 33)).astype(np.float32)
    grads = []
    for lib in (nnref, torch):
        weight, bias = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
        scalar = lib.tensor(b[0], requires_grad=True)
        (lib.nn.functional.linear(lib.tensor(x), weight, bias) * lib.tensor(g) + scalar).sum().backward()
        grads.append((bias.grad, scalar.grad))
    for ours, theirs in zip(*grads):
        assert same_bits(ours, theirs)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2 ** 16), st.sampled_from([(1, 5), (64, 10), (300, 7), (20, 4, 9), (6, 3, 5, 7)]),
       st.sampled_from(["mean", "sum"]), st.booleans(), st.booleans(), st.sampled_from([np.float32, np.float64]))
def test_nll_loss_adds_its_losses_as_pytorch(seed, shape, reduction, weighted, some_ignored, dtype):
    rng = np.random.default_rng(seed)
    log_probs = torch.log_softmax(torch.tensor(rng.standard_normal(shape)), 1).numpy().astype(dtype)
    target = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    if some_ignored:
        target[rng.random(target.shape) < 0.3] = -100
    weight = rng.random(shape[1]).astype(dtype) if weighted else None
    ours = nnref.nn.functional.nll_loss(nnref.tensor(log_probs), nnref.tensor(target),
                                        None if weight is None else nnref.tensor(weight), reduction=reduction)
    theirs = torch.nn.functional.nll_loss(torch.tensor(log_probs), torch.tensor(target),
                                          None if weight is None else torch.tensor(weight), reduction=reduction)
    assert same_bits(ours, theirs)
