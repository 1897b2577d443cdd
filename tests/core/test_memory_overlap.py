"""Writing into memory that an input shares (``a[1:].add_(a[:3])``, ``torch.exp(x, out=y)`` with
``y`` a view of ``x``), against PyTorch.

PyTorch refuses a partial overlap of tensors that fill their memory (``assert_no_partial_overlap``)
and computes the other layouts in its own loop order; nnref must give PyTorch's error, PyTorch's
values, or a ``NotImplementedError`` that says it cannot: never other values.
"""
import numpy as np
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref

torch = pytest.importorskip("torch")


def outcome(run):
    try:
        values = run()
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    return "ok", values


def assert_same(ours, theirs):
    """PyTorch's error, or its values (to the last bits of SLEEF's ``exp`` and SciPy's ``digamma``: Differences page)."""
    if ours[0] == theirs[0] == "ok" and ours[1] is not None:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-7)
    else:
        assert ours == theirs


def storage(lib):
    return (lib.arange(48, dtype=lib.float32) % 11 + 1).reshape(6, 8)


INPLACE = {
    "add_": lambda lib, out, x: out.add_(x),
    "add_ alpha": lambda lib, out, x: out.add_(x, alpha=2),
    "sub_": lambda lib, out, x: out.sub_(x),
    "mul_": lambda lib, out, x: out.mul_(x),
    "div_": lambda lib, out, x: out.div_(x),
    "copy_": lambda lib, out, x: out.copy_(x),
    "setitem": lambda lib, out, x: out.__setitem__(Ellipsis, x),
    "maximum out=": lambda lib, out, x: lib.maximum(out.clone(), x, out=out),
    "clamp_": lambda lib, out, x: out.clamp_(min=x),
    "lerp_": lambda lib, out, x: out.lerp_(x, 0.25),
    "addcmul_": lambda lib, out, x: out.addcmul_(x, x),
}

# Views of one storage that PyTorch checks (both dense) and that it does not.
CASES = {
    "shift right, dense": ((lambda s: s.view(-1)[1:9]), (lambda s: s.view(-1)[0:8])),
    "shift left, dense": ((lambda s: s.view(-1)[0:8]), (lambda s: s.view(-1)[1:9])),
    "same memory, other view object": ((lambda s: s[1:3]), (lambda s: s[1:3])),
    "transposed onto itself": ((lambda s: s[:6, :6]), (lambda s: s[:6, :6].t())),
    "rows, reading ahead": ((lambda s: s[:, :6]), (lambda s: s[:, 1:7])),
    "rows, reading behind": ((lambda s: s[:, 1:7]), (lambda s: s[:, :6])),
    "columns of a transpose, behind": ((lambda s: s.t()[1:4]), (lambda s: s.t()[:3])),
    "strided, reading behind": ((lambda s: s.view(-1)[2::2]), (lambda s: s.view(-1)[:-2:2])),
    "strided, interleaved, no common element": ((lambda s: s.view(-1)[::2]), (lambda s: s.view(-1)[1::2])),
    "broadcast row": ((lambda s: s[1:]), (lambda s: s[0])),
    "broadcast row inside": ((lambda s: s[:, :4]), (lambda s: s[2, :4])),
}


def run(lib, out_view, in_view, op):
    s = storage(lib)
    out, x = out_view(s), in_view(s)
    if op == "lerp_" and x.shape != out.shape:
        x = x.expand(out.shape)
    INPLACE[op](lib, out, x)
    return s.tolist()


@pytest.mark.parametrize("op", sorted(INPLACE))
@pytest.mark.parametrize("case", sorted(CASES))
def test_writes_into_shared_memory_are_pytorchs_or_refused(case, op):
    out_view, in_view = CASES[case]
    ours = outcome(lambda: run(nnref, out_view, in_view, op))
    theirs = outcome(lambda: run(torch, out_view, in_view, op))
    if ours[0] == "NotImplementedError" and theirs[0] == "ok":
        assert "nnref cannot reproduce" in ours[1]
        return
    assert_same(ours, theirs)


def test_the_cases_refused_are_those_whose_result_is_pytorchs_loop_order():
    """Reading behind the write in a layout PyTorch does not check: its result is not what a copy
    of the input would give (each write is read again), which is why nnref refuses it."""
    out_view, in_view = CASES["rows, reading behind"]
    s = storage(torch)
    expected = s.clone()
    expected[:, 1:7] = s[:, :6].clone()
    s[:, 1:7].copy_(s[:, :6])
    assert not torch.equal(s, expected)
    with pytest.raises(NotImplementedError, match="loop visits the elements"):
        run(nnref, out_view, in_view, "copy_")


def test_reading_ahead_gives_what_pytorch_gives():
    """The rolling buffer ``buf[:, :-1] = buf[:, 1:]`` (no clone) works, as in PyTorch."""
    def roll(lib):
        buf = storage(lib)
        buf[:, :-1] = buf[:, 1:]
        return buf.tolist()
    assert roll(nnref) == roll(torch)


SETITEM = ["a[1:] = a[:7]", "a[:7] = a[1:]", "a[[1, 2]] = a[5]", "a[[1, 2]] = a[5:7]", "a[[1, 2]] = a[1:3]",
           "a[:3] = a[2]", "a[1:3] = a[1:3]", "b[:, 1:] = b[0, :3]", "b[1:, 1:] = b[0, :3]",
           "b[:, :3] = b[1:, 1:]", "b[:1, :3] = b[1:, 1:]", "b[0, :3] = b[:1, 1:]", "b[:, :3] = b[:, 1:]",
           "b[:, 1:] = b[:, :3]", "b[b > 3] = b[0, 0]", "b[b > 3] = b[0, :2].sum()", "a[a > 3] = a[:4]", "b[..., 0] = b[..., 1]"]


@pytest.mark.parametrize("statement", SETITEM)
def test_setitem_from_the_same_tensor(statement):
    """``t[index] = value`` is ``copy_`` into the region (``fill_`` for a 0-d value, ``index_put_``
    through index arrays, which refuses any overlap at all)."""
    def go(lib):
        a = lib.arange(8.0)
        b = a.view(2, 4)  # noqa: F841 - used by the statements
        exec(statement)
        return a.tolist()
    ours, theirs = outcome(lambda: go(nnref)), outcome(lambda: go(torch))
    if ours[0] == "NotImplementedError" and theirs[0] == "ok":
        assert "nnref cannot reproduce" in ours[1]
        return
    assert_same(ours, theirs)


views = st.tuples(st.integers(0, 3), st.integers(0, 4), st.sampled_from([1, 2]), st.sampled_from([1, 2]),
                  st.booleans())


def _view_of(s, spec, shape):
    """A ``shape`` view of the storage ``s``: from (row, col), every row_step-th row and
    col_step-th column, of the transpose if ``transposed``; None where ``s`` is too small."""
    row, col, row_step, col_step, transposed = spec
    rows, cols = (shape[1], shape[0]) if transposed else shape
    view = s[row:row + rows * row_step:row_step, col:col + cols * col_step:col_step]
    if tuple(view.shape) != (rows, cols):
        return None
    return view.t() if transposed else view


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.tuples(st.integers(1, 3), st.integers(1, 4)), out_spec=views, in_spec=views,
       op=st.sampled_from(["add_", "copy_", "mul_", "maximum out="]))
def test_any_two_views_of_one_storage(shape, out_spec, in_spec, op):
    def go(lib):
        s = storage(lib)
        out, x = _view_of(s, out_spec, shape), _view_of(s, in_spec, shape)
        if out is None or x is None:
            return None
        INPLACE[op](lib, out, x)
        return s.tolist()
    ours, theirs = outcome(lambda: go(nnref)), outcome(lambda: go(torch))
    if ours[0] == "NotImplementedError" and theirs[0] == "ok":
        assert "nnref cannot reproduce" in ours[1]
        return
    assert_same(ours, theirs)


OUT_FUNCTIONS = {
    "exp": lambda lib, s: lib.exp(s[0:8], out=s[1:9]),
    "add": lambda lib, s: lib.add(s[0:8], 1, out=s[1:9]),
    "cumsum": lambda lib, s: lib.cumsum(s[0:8], 0, out=s[1:9]),
    "cat": lambda lib, s: lib.cat([s[0:4], s[8:12]], out=s[1:9]),
    "narrow_copy": lambda lib, s: lib.narrow_copy(s[0:8], 0, 0, 8, out=s[1:9]),
    "slice_scatter": lambda lib, s: lib.slice_scatter(s[0:8], s[0:8], out=s[1:9]),
    "exp, apart": lambda lib, s: lib.exp(s[0:8], out=s[8:16]),
    "addcmul": lambda lib, s: lib.addcmul(s[1:6], s[1:6], s[1:6], out=s[0:5]),
    "addcdiv, apart": lambda lib, s: lib.addcdiv(s[1:6], s[1:6], s[2:7], value=2, out=s[10:15]),
    "lerp, apart": lambda lib, s: lib.lerp(s[1:6], s[2:7], 0.25, out=s[10:15]),
    "where": lambda lib, s: lib.where(s[1:6] > 5, s[1:6], s[2:7], out=s[0:5]),
    "index_select": lambda lib, s: lib.index_select(s[0:5], 0, lib.tensor([0, 1]), out=s[1:3]),
    "gather, apart": lambda lib, s: lib.gather(s[0:5], 0, lib.tensor([4, 1]), out=s[10:12]),
    "softmax": lambda lib, s: lib.softmax(s[0:5], 0, out=s[1:6]),
    "log_softmax, apart": lambda lib, s: lib.log_softmax(s[0:5], 0, out=s[10:15]),
    "sum, apart": lambda lib, s: lib.sum(s[0:8], 0, keepdim=True, out=s[8:9]),
}


@pytest.mark.parametrize("name", sorted(OUT_FUNCTIONS))
def test_out_into_an_inputs_memory_is_pytorchs(name):
    def go(lib):
        s = storage(lib).view(-1)
        OUT_FUNCTIONS[name](lib, s)
        return s.tolist()
    assert_same(outcome(lambda: go(nnref)), outcome(lambda: go(torch)))


@pytest.mark.parametrize("name", ["sum", "mm", "dot", "amax", "logsumexp"])
def test_out_of_a_reduction_or_product_sharing_an_input_is_refused(name):
    """PyTorch does not check these and writes ``out`` (zeroed first) while reading: its values
    depend on its loop order, so nnref says it cannot give them."""
    calls = {"sum": lambda lib, s: lib.sum(s[0:8].view(2, 4), 0, out=s[0:4]),
             "mm": lambda lib, s: lib.mm(s[0:4].view(2, 2), s[0:4].view(2, 2), out=s[0:4].view(2, 2)),
             "dot": lambda lib, s: lib.dot(s[0:4], s[2:6], out=s[1:2].view(())),
             "amax": lambda lib, s: lib.amax(s[0:8], 0, keepdim=True, out=s[1:2]),
             "logsumexp": lambda lib, s: lib.logsumexp(s[0:8], 0, keepdim=True, out=s[1:2])}
    with pytest.raises(NotImplementedError, match=rf"nnref cannot reproduce {name}\(\.\.\., out=\.\.\.\)"):
        calls[name](nnref, storage(nnref).view(-1))
    calls[name](torch, storage(torch).view(-1))  # PyTorch computes something, unchecked


def test_masked_scatter_from_its_own_memory_is_refused():
    s = storage(nnref).view(-1)
    with pytest.raises(NotImplementedError, match="masked_scatter_"):
        s[1:9].masked_scatter_(nnref.tensor([True, False] * 4), s[0:8])
    t = storage(torch).view(-1)
    t[1:9].masked_scatter_(torch.tensor([True, False] * 4), t[0:8])  # PyTorch reads while it writes


def test_all_and_any_write_only_bool_or_uint8():
    for lib in (nnref, torch):
        x = lib.tensor([[1.0, 0.0], [1.0, 1.0]])
        with pytest.raises(RuntimeError, match="all only supports bool tensor for result, got: Float"):
            lib.all(x, 0, out=lib.empty(2))
        assert lib.any(x, 0, out=lib.empty(2, dtype=lib.uint8)).tolist() == [1, 1]


def test_ldexp_in_place_reads_a_copy_as_pytorch_does():
    def go(lib):
        s = storage(lib).view(-1)
        s[1:9].ldexp_(s[0:8].to(lib.int64))
        return s.tolist()
    assert go(nnref) == go(torch)


@pytest.mark.parametrize("written", ["expanded", "inference"])
def test_writing_into_an_expanded_or_inference_tensor_against_pytorch(written):
    """The written tensor itself: expanded (one element at several positions), which TensorIterator
    refuses and the reductions write once per position, or made in inference mode, which no
    in-place write may change outside it, ``out=`` included."""
    import overlap_survey
    rows = overlap_survey.survey(written)
    covered = [r for r in rows if r.status != "no form"]
    assert len(covered) >= 180, f"only {len(covered)} callables reached"
    wrong = [r for r in covered if r.status == "different" and not r.refused_honestly
             and not (r.kind == "out" and r.ours[0] == "NotImplementedError" and "cannot resize" in r.ours[1])]
    assert not wrong, wrong[:10]


FILLS = {
    "fill_": lambda lib, e: e.fill_(3), "zero_": lambda lib, e: e.zero_(),
    "fill_ 0-d": lambda lib, e: e.fill_(lib.tensor(2.0)),
    "masked_fill_": lambda lib, e: e.masked_fill_(lib.tensor([[True, False, True, False]]), 0.5),
    "masked_fill_ nothing": lambda lib, e: e.masked_fill_(lib.tensor([[False] * 4]), 0.5),
    "masked_fill_ 0-d": lambda lib, e: e.masked_fill_(lib.tensor([[True, False, True, False]]), lib.tensor(0.7)),
    "masked_fill_ int": lambda lib, e: e.masked_fill_(lib.tensor([[True, False, True, False]]), 2),
    "index_fill_": lambda lib, e: e.index_fill_(1, lib.tensor([1]), 0.5),
    "index_fill_ rows": lambda lib, e: e.index_fill_(0, lib.tensor([2]), -1.0),
    "uniform_": lambda lib, e: e.uniform_(),
    "setitem mask": lambda lib, e: e.__setitem__(lib.tensor([[True, False, False, False]] * 3), 0.25),
    "setitem slice": lambda lib, e: e.__setitem__(slice(None), 0.25),
    "setitem column": lambda lib, e: e.__setitem__((slice(None), 1), 0.25),
    "setitem element": lambda lib, e: e.__setitem__((1, 2), 0.25),
    "setitem row": lambda lib, e: e.__setitem__(1, lib.arange(4.0)),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_filling_an_expanded_tensor_is_pytorchs(name):
    """One value into chosen places is the same whatever the order: PyTorch writes it into an
    expanded tensor (fill_, zero_ silently; masked_fill_, index_fill_ and a mask's setitem with a
    deprecation warning); other writes raise."""
    def go(lib):
        store = lib.zeros(2, 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = outcome(lambda: (FILLS[name](lib, store[:1].expand(3, 4)), store.tolist())[1])
        return result, [str(w.message).split(" (Triggered internally at ")[0] for w in caught]
    assert go(nnref) == go(torch)


@pytest.mark.parametrize("name", sorted(FILLS))
def test_filling_an_expanded_view_in_a_graph_then_backward_is_pytorchs(name):
    """With the base in a graph, PyTorch records the fill (``CopySlices`` over the op's node) and
    refuses in backward, where the view's gradient would be written into the expanded view."""
    def go(lib):
        x = lib.tensor([[0.5], [-1.0]], requires_grad=True)
        store = x * 1.5
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            def fill_then_backward():
                view = store[:1].expand(3, 4)
                FILLS[name](lib, view)
                names = type(view.grad_fn).__name__, store.grad_fn.name(), store._version
                (store * lib.tensor([[2.0], [3.0]])).sum().backward()
                return names, store.tolist(), x.grad.tolist()
            result = outcome(fill_then_backward)
        return result, [str(w.message).split(" (Triggered internally at ")[0] for w in caught]
    assert go(nnref) == go(torch)


@pytest.mark.parametrize("name", ["sum", "mv", "amax", "all", "histc"])
def test_out_into_an_expanded_tensor_that_pytorch_does_not_check_is_refused(name):
    calls = {"sum": lambda lib, o: lib.sum(lib.arange(6.).view(2, 3), 1, out=o),
             "mv": lambda lib, o: lib.mv(lib.ones(2, 3), lib.arange(3.), out=o),
             "amax": lambda lib, o: lib.amax(lib.arange(6.).view(2, 3), 1, out=o),
             "all": lambda lib, o: lib.all(lib.ones(2, 3), 1, out=o.bool()),
             "histc": lambda lib, o: lib.histc(lib.arange(3.), 2, out=o)}
    out = nnref.zeros(1)
    with pytest.raises(NotImplementedError, match=rf"nnref cannot reproduce {name}\(\.\.\., out=\.\.\.\) into a"):
        calls[name](nnref, out.expand(2) if name != "all" else out.bool().expand(2))
    calls[name](torch, torch.zeros(1).expand(2) if name != "all" else torch.zeros(1).bool().expand(2))


def test_every_out_function_and_in_place_method_against_pytorch():
    """The whole API: each in-place method and out= function nnref shares with PyTorch, called on
    overlapping views with the first argument forms both accept."""
    import overlap_survey
    rows = overlap_survey.survey()
    covered = [r for r in rows if r.status != "no form"]
    assert len(covered) >= 180, f"only {len(covered)} callables reached"
    wrong = [r for r in covered if r.status == "different" and not r.refused_honestly]
    assert not wrong, wrong[:10]
