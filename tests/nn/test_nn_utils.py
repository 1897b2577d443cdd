"""``nnref.nn.utils`` against ``torch.nn.utils``: gradient clipping (the returned norm and the
clipped gradients equal to PyTorch's bit for bit, for many norm types, maximum norms and parameter
mixes), parameters as one vector, and the padding and packing of variable-length sequences with
their gradients, and RNN/LSTM/GRU run on packed batches."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)


def _params(lib, grads, dtypes=None):
    """Parameters whose ``.grad`` are the given arrays (None: no gradient)."""
    params = []
    for i, g in enumerate(grads):
        dtype = getattr(lib, (dtypes or {}).get(i, "float32"))
        shape = (2,) if g is None else g.shape
        p = lib.nn.Parameter(lib.zeros(shape, dtype=dtype))
        if g is not None:
            p.grad = lib.tensor(np.array(g), dtype=dtype)
        params.append(p)
    return params


def _same_bits(ours, theirs):
    ours, theirs = np.asarray(ours.numpy()), np.asarray(theirs.numpy())
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def _clip_both(grads, max_norm, norm_type, dtypes=None, **kwargs):
    ours, theirs = _params(nnref, grads, dtypes), _params(torch, grads, dtypes)
    norm_ours = nnref.nn.utils.clip_grad_norm_(ours, max_norm, norm_type, **kwargs)
    norm_theirs = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type, **kwargs)
    return norm_ours, norm_theirs, ours, theirs


# norm types whose sums nnref makes exactly as ATen's CPU kernel; for other p its powers are libm's,
# which nnref matches in a wider type rounded back: the last bit differs about once in a thousand
EXACT_NORMS = [2.0, 1.0, float("inf"), 0.0, 2]
OTHER_NORMS = [0.5, 3.0, 1.5]

# under 32768 elements each: above that PyTorch splits the running sums (p != 2) between its threads
_shapes = st.lists(st.lists(st.integers(1, 30), min_size=0, max_size=3).map(tuple), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(shapes=_shapes, norm_type=st.sampled_from(EXACT_NORMS + OTHER_NORMS),
       max_norm=st.sampled_from([0.01, 0.5, 1.0, 5.0, 1e4]), scale=st.sampled_from([1e-3, 1.0, 30.0]),
       seed=st.integers(0, 2**16), foreach=st.sampled_from([None, True, False]))
def test_clip_grad_norm_matches_torch_bit_for_bit(shapes, norm_type, max_norm, scale, seed, foreach):
    rng = np.random.default_rng(seed)
    grads = [np.asarray(rng.standard_normal(s) * scale, dtype=np.float32) for s in shapes]
    norm_ours, norm_theirs, ours, theirs = _clip_both(grads, max_norm, norm_type, foreach=foreach)
    assert norm_ours.shape == () and norm_ours.dtype is nnref.float32
    if norm_type in EXACT_NORMS:
        _same_bits(norm_ours, norm_theirs)
        for a, b in zip(ours, theirs):
            _same_bits(a.grad, b.grad)
    else:
        np.testing.assert_allclose(norm_ours.numpy(), norm_theirs.numpy(), rtol=2e-6)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=4e-6, atol=1e-30)


@pytest.mark.parametrize("size", [1, 7, 8, 9, 255, 1000, 4099, 30000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_gradients_sum_in_torchs_order(size, dtype):
    """One long gradient: ATen's lane-wise 2-norm and running 1-norm give its last bits."""
    rng = np.random.default_rng(size)
    grads = [rng.standard_normal(size).astype(dtype), rng.standard_normal((3, size // 3 + 1)).astype(dtype)]
    for norm_type in (2.0, 1.0):
        norm_ours, norm_theirs, ours, theirs = _clip_both(grads, 0.25, norm_type, dtypes={0: dtype, 1: dtype})
        _same_bits(norm_ours, norm_theirs)
        for a, b in zip(ours, theirs):
            _same_bits(a.grad, b.grad)


def test_mixed_dtypes_grads_none_and_the_float64_total():
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 4)), None, rng.standard_normal(5), rng.standard_normal(2)]
    dtypes = {0: "float32", 2: "float64", 3: "float32"}
    norm_ours, norm_theirs, ours, theirs = _clip_both(grads, 0.3, 2.0, dtypes)
    _same_bits(norm_ours, norm_theirs)  # float64: the stack of a float32 and a float64 norm
    for a, b in zip(ours, theirs):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            _same_bits(a.grad, b.grad)


def test_a_single_tensor_an_empty_list_and_an_empty_generator():
    g = np.asarray([3.0, 4.0], dtype=np.float32)
    (ours,), (theirs,) = _params(nnref, [g]), _params(torch, [g])
    _same_bits(nnref.nn.utils.clip_grad_norm_(ours, 1.0), torch.nn.utils.clip_grad_norm_(theirs, 1.0))
    _same_bits(ours.grad, theirs.grad)
    _same_bits(nnref.nn.utils.clip_grad_norm_([], 1.0), torch.nn.utils.clip_grad_norm_([], 1.0))
    _same_bits(nnref.nn.utils.get_total_norm([]), torch.nn.utils.get_total_norm([]))
    for lib in (nnref, torch):
        with pytest.warns(UserWarning, match="^`parameters` is an empty generator, no gradient clipping will occur.$"):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_the_coefficient_is_applied_even_when_it_is_one():
    """A norm under max_norm still multiplies by clamp(max_norm / (norm + 1e-6), max=1): a nan
    gradient stays nan, and an inf norm turns the finite gradients into zeros and itself to nan."""
    grads = [np.asarray([np.inf, 1.0, -2.0], dtype=np.float32), np.asarray([np.nan], dtype=np.float32)]
    for subset in (grads[:1], grads[1:]):
        norm_ours, norm_theirs, ours, theirs = _clip_both(subset, 1.0, 2.0)
        _same_bits(norm_ours, norm_theirs)
        for a, b in zip(ours, theirs):
            _same_bits(a.grad, b.grad)


def test_error_if_nonfinite_word_for_word():
    for norm_type in (2.0, float("inf"), 1):
        messages = []
        for lib in (nnref, torch):
            (p,) = _params(lib, [np.asarray([np.inf, 1.0], dtype=np.float32)])
            with pytest.raises(RuntimeError) as info:
                lib.nn.utils.clip_grad_norm_([p], 1.0, norm_type, error_if_nonfinite=True)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_deprecated_clip_grad_norm_warns_as_torch():
    grads = [np.asarray([3.0, 4.0], dtype=np.float32)]
    results = []
    for lib in (nnref, torch):
        (p,) = _params(lib, grads)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            norm = lib.nn.utils.clip_grad_norm([p], 2.0)
        results.append((norm.item(), p.grad.tolist(), [(w.category, str(w.message), w.filename) for w in caught]))
    assert results[0] == results[1]
    assert results[0][2][0][2] == __file__


def test_get_total_norm_and_clip_grads_with_norm_compose_to_clip_grad_norm_():
    rng = np.random.default_rng(3)
    grads = [np.asarray(rng.standard_normal(s), dtype=np.float32) for s in [(4, 5), (5,), (2, 2, 2)]]
    found = []
    for lib in (nnref, torch):
        params = _params(lib, grads)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], 3.0)
        assert lib.nn.utils.clip_grads_with_norm_(params, 0.5, total) is None
        found.append((total, [p.grad for p in params]))
    np.testing.assert_allclose(found[0][0].numpy(), found[1][0].numpy(), rtol=2e-6)
    grads_ours = _params(nnref, grads)
    total = nnref.nn.utils.get_total_norm([p.grad for p in grads_ours])
    nnref.nn.utils.clip_grads_with_norm_(grads_ours, 0.5, total)
    theirs = _params(torch, grads)
    torch.nn.utils.clip_grad_norm_(theirs, 0.5)
    for a, b in zip(grads_ours, theirs):
        _same_bits(a.grad, b.grad)


@pytest.mark.parametrize("clip_value", [0.1, 1, 2.5])
def test_clip_grad_value_(clip_value):
    rng = np.random.default_rng(4)
    grads = [np.asarray(rng.standard_normal(s) * 2, dtype=np.float32) for s in [(3, 4), (6,)]] + [None]
    for foreach in (None, False, True):
        ours, theirs = _params(nnref, grads), _params(torch, grads)
        assert nnref.nn.utils.clip_grad_value_(ours, clip_value, foreach=foreach) is None
        torch.nn.utils.clip_grad_value_(theirs, clip_value, foreach=foreach)
        for a, b in zip(ours, theirs):
            if b.grad is None:
                assert a.grad is None
            else:
                _same_bits(a.grad, b.grad)
    (single,) = _params(nnref, grads[:1])
    nnref.nn.utils.clip_grad_value_(single, 0.2)
    assert float(single.grad.abs().max()) == pytest.approx(0.2)


def test_clipping_runs_without_recording_a_graph():
    p = nnref.nn.Parameter(nnref.ones(3))
    p.grad = nnref.ones(3, requires_grad=True) * 5
    norm = nnref.nn.utils.clip_grad_norm_([p], 1.0)
    assert norm.grad_fn is None and not norm.requires_grad


def test_parameters_to_vector_and_back():
    results = []
    for lib in (nnref, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
        vec = lib.nn.utils.parameters_to_vector(model.parameters())
        vec.pow(2).sum().backward()
        grads = [p.grad.clone() for p in model.parameters()]
        lib.nn.utils.vector_to_parameters(lib.arange(vec.numel(), dtype=lib.float32), model.parameters())
        results.append((vec.detach().numpy().copy(), type(vec.grad_fn).__name__, [g.numpy() for g in grads],
                        [p.detach().numpy().copy() for p in model.parameters()]))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] == "CatBackward0"
    for a, b in zip(results[0][2] + results[0][3], results[1][2] + results[1][3]):
        np.testing.assert_array_equal(a, b)


def test_vector_to_parameters_refuses_a_non_tensor_as_torch():
    messages = []
    for lib in (nnref, torch):
        with pytest.raises(TypeError) as info:
            lib.nn.utils.vector_to_parameters([1.0, 2.0], [lib.nn.Parameter(lib.ones(2))])
        messages.append(str(info.value))
    assert messages[0] == messages[1] == "expected torch.Tensor, but got: list"


def test_the_namespace_is_torchs():
    assert set(nnref.nn.utils.__all__) <= set(torch.nn.utils.__all__)
    assert set(nnref.nn.utils.rnn.__all__) == set(torch.nn.utils.rnn.__all__)
    assert nnref.nn.utils is nnref.nn.__dict__["utils"]
    assert nnref.nn.utils.clip_grad_norm_.__name__ == "clip_grad_norm_"


# -- padding and packing ----------------------------------------------------------------------------
def _sequences(lib, lengths, features=(3,), seed=0, grad=True):
    rng = np.random.default_rng(seed)
    return [lib.tensor(np.asarray(rng.standard_normal((n, *features)), dtype=np.float32), requires_grad=grad)
            for n in lengths]


def _grads_after(outputs, inputs, seed=1):
    """Backpropagate fixed random weights through ``outputs``; the inputs' gradients."""
    rng = np.random.default_rng(seed)
    outputs = [o for o in outputs if o.requires_grad]
    total = sum((o * _like(o, rng)).sum() for o in outputs)
    total.backward()
    return [x.grad.numpy() for x in inputs]


def _like(t, rng):
    lib = nnref if isinstance(t, nnref.Tensor) else torch
    return lib.tensor(np.asarray(rng.standard_normal(tuple(t.shape)), dtype=np.float32))


def _equal(a, b):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def _packed_equal(a, b):
    assert type(a).__name__ == type(b).__name__ == "PackedSequence"
    _equal(a.data, b.data)
    _equal(a.batch_sizes, b.batch_sizes)
    for x, y in ((a.sorted_indices, b.sorted_indices), (a.unsorted_indices, b.unsorted_indices)):
        assert (x is None) == (y is None)
        if x is not None:
            _equal(x, y)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("features", [(), (3,), (2, 2)])
def test_pad_sequence_values_and_gradients(batch_first, padding_side, features):
    lengths = [4, 1, 3, 4]
    results = []
    for lib in (nnref, torch):
        seqs = _sequences(lib, lengths, features)
        out = lib.nn.utils.rnn.pad_sequence(seqs, batch_first, -1.5, padding_side)
        results.append((out, type(out.grad_fn).__name__, _grads_after([out], seqs)))
    _equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] == "CopySlices"
    for a, b in zip(results[0][2], results[1][2]):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(1, 6), min_size=1, max_size=6), batch_first=st.booleans(),
       enforce_sorted=st.booleans(), extra=st.integers(0, 2), seed=st.integers(0, 1000))
def test_pack_and_pad_round_trip_as_torch(lengths, batch_first, enforce_sorted, extra, seed):
    if enforce_sorted:
        lengths = sorted(lengths, reverse=True)
    results = []
    for lib in (nnref, torch):
        seqs = _sequences(lib, lengths, seed=seed)
        padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first)
        packed = lib.nn.utils.rnn.pack_padded_sequence(padded, lib.tensor(lengths), batch_first, enforce_sorted)
        total = max(lengths) + extra
        back, back_lengths = lib.nn.utils.rnn.pad_packed_sequence(packed, batch_first, 0.25, total)
        grads = _grads_after([back, packed.data], seqs, seed)
        results.append((packed, back, back_lengths, grads, type(packed.data.grad_fn).__name__,
                        type(back.grad_fn).__name__))
    _packed_equal(results[0][0], results[1][0])
    for a, b in zip(results[0][1:3], results[1][1:3]):
        _equal(a, b)
    for a, b in zip(results[0][3], results[1][3]):
        np.testing.assert_array_equal(a, b)
    assert results[0][4:] == results[1][4:]


def test_pack_sequence_unpack_sequence_and_unpad_sequence():
    for enforce_sorted, lengths in ((True, [5, 3, 3, 1]), (False, [2, 5, 1, 3])):
        results = []
        for lib in (nnref, torch):
            seqs = _sequences(lib, lengths, (2,))
            packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted)
            unpacked = lib.nn.utils.rnn.unpack_sequence(packed)
            padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
            unpadded = lib.nn.utils.rnn.unpad_sequence(padded, lib.tensor(lengths), batch_first=True)
            results.append((packed, unpacked, unpadded, [type(t.grad_fn).__name__ for t in unpacked],
                            _grads_after(unpacked + unpadded, seqs)))
        _packed_equal(results[0][0], results[1][0])
        for a, b in zip(results[0][1] + results[0][2], results[1][1] + results[1][2]):
            _equal(a, b)
        assert results[0][3] == results[1][3]
        for a, b in zip(results[0][4], results[1][4]):
            np.testing.assert_array_equal(a, b)


def test_unpad_sequence_time_major():
    seqs = _sequences(nnref, [3, 2], grad=False)
    padded = nnref.nn.utils.rnn.pad_sequence(seqs)
    out = nnref.nn.utils.rnn.unpad_sequence(padded, nnref.tensor([3, 2]))
    for a, b in zip(out, seqs):
        _equal(a, b)


def test_packed_sequence_repr_fields_and_conversions():
    reprs = []
    for lib in (nnref, torch):
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            lib.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]]), [2, 1, 3], batch_first=True, enforce_sorted=False)
        assert packed.to(lib.int64) is packed and packed.cpu() is packed
        double = packed.double()
        reprs.append((repr(packed), repr(double), repr(packed.float().data), tuple(packed._fields),
                      isinstance(packed, tuple), packed.is_cuda,
                      repr(lib.nn.utils.rnn.invert_permutation(lib.tensor([2, 0, 1]))),
                      lib.nn.utils.rnn.invert_permutation(None)))
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        rebuilt = lib.nn.utils.rnn.PackedSequence(data, batch_sizes, sorted_indices)
        reprs.append(repr(rebuilt))
        reprs.append(repr(lib.nn.utils.rnn.PackedSequence((data, batch_sizes))))
    assert reprs[:3] == reprs[3:]


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type and message are what is compared
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("name, call", [
    ("unsorted", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2), [2, 3])),
    ("zero length", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2), [3, 0])),
    ("zero unsorted", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2), [0, 3], enforce_sorted=False)),
    ("count", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2), [3])),
    ("empty", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(0, 2), [3, 1])),
    ("2-D lengths", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 2), lib.tensor([[3, 1]]))),
    ("total_length", lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(2)]), total_length=2)),
    ("no sequences", lambda lib: lib.nn.utils.rnn.pad_sequence([])),
    ("side", lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="up")),
    ("not iterable", lambda lib: lib.nn.utils.rnn.pad_sequence(3)),
    ("unsorted list", lambda lib: lib.nn.utils.rnn.pack_sequence([lib.ones(1), lib.ones(2)])),
    ("bad tuple", lambda lib: lib.nn.utils.rnn.PackedSequence(lib.ones(3))),
    ("unpad lengths", lambda lib: lib.nn.utils.rnn.unpad_sequence(lib.ones(2, 3), lib.tensor([1]), batch_first=True)),
])
def test_packing_errors_word_for_word(name, call):
    ours, theirs = _error(lambda: call(nnref)), _error(lambda: call(torch))
    assert theirs is not None
    assert ours == theirs


# -- RNN, LSTM and GRU on packed batches -------------------------------------------------------------
def _run_packed(lib, name, lengths, batch_first, bidirectional, num_layers, enforce_sorted, with_hx, seed):
    lib.manual_seed(seed)
    module = getattr(lib.nn, name)(3, 4, num_layers=num_layers, bidirectional=bidirectional,
                                   batch_first=batch_first)
    rng = np.random.default_rng(seed)
    seqs = [lib.tensor(np.asarray(rng.standard_normal((n, 3)), dtype=np.float32), requires_grad=True)
            for n in lengths]
    padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first)
    packed = lib.nn.utils.rnn.pack_padded_sequence(padded, lengths, batch_first, enforce_sorted)
    hx = None
    if with_hx:
        shape = (num_layers * (2 if bidirectional else 1), len(lengths), 4)
        made = [lib.tensor(np.asarray(rng.standard_normal(shape), dtype=np.float32), requires_grad=True)
                for _ in range(2 if name == "LSTM" else 1)]
        hx = tuple(made) if name == "LSTM" else made[0]
    output, hidden = module(packed, hx)
    states = list(hidden) if name == "LSTM" else [hidden]
    padded_out, out_lengths = lib.nn.utils.rnn.pad_packed_sequence(output, batch_first)
    grads = _grads_after([output.data, *states], seqs + ([] if hx is None else list(made)), seed)
    params = [p.grad.numpy() for p in module.parameters()]
    names = [type(output).__name__, type(output.data.grad_fn).__name__, type(states[0].grad_fn).__name__]
    return [padded_out, out_lengths, *states, output.batch_sizes], grads + params, names


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["RNN", "LSTM", "GRU"]), lengths=st.lists(st.integers(1, 5), min_size=1, max_size=5),
       batch_first=st.booleans(), bidirectional=st.booleans(), num_layers=st.sampled_from([1, 2]),
       enforce_sorted=st.booleans(), with_hx=st.booleans(), seed=st.integers(0, 100))
def test_recurrent_layers_on_packed_batches_match_torch(name, lengths, batch_first, bidirectional, num_layers,
                                                        enforce_sorted, with_hx, seed):
    if enforce_sorted:
        lengths = sorted(lengths, reverse=True)
    ours = _run_packed(nnref, name, lengths, batch_first, bidirectional, num_layers, enforce_sorted, with_hx, seed)
    theirs = _run_packed(torch, name, lengths, batch_first, bidirectional, num_layers, enforce_sorted, with_hx, seed)
    if name == "LSTM" and len(set(lengths)) == 1:
        # batch sizes all equal: PyTorch's CPU LSTM runs its oneDNN kernel (output ViewBackward0),
        # as on a padded batch, where nnref records the cell's ops (see nn/modules/rnn.py)
        ours[2][1] = theirs[2][1]
    assert ours[2] == theirs[2]
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        a = a.detach().numpy() if hasattr(a, "detach") else a
        b = b.detach().numpy() if hasattr(b, "detach") else b
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_final_states_are_each_sequences_last_step():
    """The packed run's final state of a sequence equals the padded run's state at its last step."""
    lengths = [2, 5, 3]
    nnref.manual_seed(0)
    lstm = nnref.nn.LSTM(3, 4, batch_first=True)
    seqs = _sequences(nnref, lengths, grad=False)
    padded = nnref.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
    with nnref.no_grad():
        packed_out, (h, c) = lstm(nnref.nn.utils.rnn.pack_padded_sequence(padded, lengths, True, False))
        full_out, _ = lstm(padded)
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(h[0, b].numpy(), full_out[b, n - 1].numpy(), rtol=1e-6, atol=1e-7)
    unpacked, _ = nnref.nn.utils.rnn.pad_packed_sequence(packed_out, batch_first=True)
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(unpacked[b, :n].numpy(), full_out[b, :n].numpy(), rtol=1e-6, atol=1e-7)
        assert not unpacked[b, n:].any()


def test_packed_input_errors():
    lstm = nnref.nn.LSTM(3, 4)
    packed = nnref.nn.utils.rnn.pack_sequence([nnref.ones(3, 3), nnref.ones(2, 3)])
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]$"):
        lstm(packed, (nnref.zeros(1, 3, 4), nnref.zeros(1, 3, 4)))
    with pytest.raises(RuntimeError, match="^input.size\\(-1\\) must be equal to input_size. Expected 3, got 2$"):
        lstm(nnref.nn.utils.rnn.pack_sequence([nnref.ones(3, 2)]))


@pytest.mark.parametrize("view", ["permuted", "strided", "column", "offset"])
@pytest.mark.parametrize("ord", [2.0, 1.0])
def test_vector_norm_of_views_sums_in_torchs_order(view, ord):
    """A transposed gradient is walked in memory order; one that is not a block of memory
    takes ATen's one-by-one loop instead of the lanes."""
    pick = {"permuted": lambda t: t.permute(2, 0, 1), "strided": lambda t: t[:, ::2],
            "column": lambda t: t[:, :, 1], "offset": lambda t: t[1:]}[view]
    rng = np.random.default_rng(7)
    for shape in [(5, 9, 3), (31, 17, 3), (64, 40, 3)]:
        data = np.asarray(rng.standard_normal(shape), dtype=np.float32)
        _same_bits(nnref.linalg.vector_norm(pick(nnref.tensor(data)), ord),
                   torch.linalg.vector_norm(pick(torch.from_numpy(data)), ord))
