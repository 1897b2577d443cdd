"""The claims of the appendix "Matching PyTorch to the last bit" (book/appendix_exact.ipynb),
checked against real PyTorch outside the notebook, on other data than the chapter's.

The chapter's own cells are re-run on PyTorch by test_pytorch_parity.py; its nnref-only
cells (which call real PyTorch as ``real_torch``) are checked here: the summation loops the
chapter writes give PyTorch's sums, the cascade's parameters it draws are nnref's, a
fused multiply-add decides ``addcmul`` and ``lerp``, ``AccumulateGrad`` adopts or copies as
PyTorch's does, and Adam differs from PyTorch through ``sqrt`` alone.
"""
import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

import nnref
from nnref._capability import SUM_LANES
from nnref._ops import cascade_sum as cascade
from nnref.optim.optimizer import _addcmul, _lerp

torch = pytest.importorskip("torch")

CHAPTER = Path(__file__).resolve().parents[2] / "book" / "appendix_exact.ipynb"


@pytest.fixture(scope="module")
def chapter_loops():
    """The namespace of the chapter's cell that writes PyTorch's sum as plain loops."""
    cells = [c.source for c in nbformat.read(CHAPTER, as_version=4).cells
             if c.cell_type == "code" and "def sum_like_aten" in c.source]
    assert len(cells) == 1, "the chapter defines sum_like_aten in one cell"
    source = cells[0].rsplit("\nprint(", 1)[0]  # the definitions, without the cell's example
    namespace = {"np": np}
    exec(compile(source, str(CHAPTER), "exec"), namespace)
    return namespace


def test_the_figure_draws_the_parameters_nnref_sums_with(chapter_loops):
    assert (chapter_loops["LANES"], chapter_loops["ILP"], chapter_loops["LEVELS"]) == (
        SUM_LANES[np.dtype(np.float32)], cascade._ILP, cascade._LEVELS)
    assert SUM_LANES[np.dtype(np.float64)] == 4  # exercise 1: 4 float64 lanes


@pytest.mark.parametrize("dtype, lanes", [(np.float32, 8), (np.float64, 4)])
def test_the_chapters_loops_give_pytorchs_sum_and_numpy_does_not(chapter_loops, dtype, lanes):
    rng = np.random.default_rng(7)
    lengths = list(range(1, 64)) + list(range(64, 600, 7)) + [1023, 4096, 20_000, 32_768]
    numpy_agrees = 0
    for n in lengths:
        values = (rng.standard_normal(n) * 10).astype(dtype)
        theirs = torch.from_numpy(values).sum().item()
        assert chapter_loops["sum_like_aten"](values, lanes=lanes).item() == theirs, n
        assert nnref.from_numpy(values).sum().item() == theirs, n
        numpy_agrees += np.sum(values).item() == theirs
    assert numpy_agrees < len(lengths) // 2  # another order: its last bits often differ


def test_on_one_thread_the_loops_reach_the_last_level(chapter_loops):
    """From 131,072 values on, level 3 of the cascade receives sums (the chapter's figure stops
    short of it); on one thread PyTorch's sum of such a tensor is still the loops' sum."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(9)
        for n in (140_000, 600_003):
            values = (rng.standard_normal(n) * 10).astype(np.float32)
            theirs = torch.from_numpy(values).sum().item()
            assert chapter_loops["sum_like_aten"](values).item() == theirs, n
            assert nnref.from_numpy(values).sum().item() == theirs, n
    finally:
        torch.set_num_threads(threads)


def test_addcmul_rounds_once_where_the_capability_fuses():
    a, c = 1 + 2**-12, -(1 + 2**-11)
    fuses = torch.backends.cpu.get_cpu_capability() != "DEFAULT"
    assert nnref.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    for library in (torch, nnref):
        ta, tc = library.tensor([a] * 5), library.tensor([c] * 5)
        assert (ta * ta + tc).tolist() == [0.0] * 5  # two kernels, two roundings
        assert library.addcmul(tc, ta, ta).tolist() == [2**-24 if fuses else 0.0] * 5


def test_lerp_rounds_once_where_the_capability_fuses():
    rng = np.random.default_rng(3)
    s = rng.standard_normal(20_000).astype(np.float32)
    e = (rng.standard_normal(20_000) * 1000).astype(np.float32)
    w = np.float32(0.3)
    difference = e - s
    two_roundings = s + w * difference
    one_rounding = (np.float64(w) * difference + s).astype(np.float32)
    assert not np.array_equal(one_rounding, two_roundings)
    theirs = torch.lerp(torch.from_numpy(s), torch.from_numpy(e), 0.3).numpy()
    fuses = torch.backends.cpu.get_cpu_capability() != "DEFAULT"
    np.testing.assert_array_equal(theirs, one_rounding if fuses else two_roundings)
    np.testing.assert_array_equal(nnref.lerp(nnref.from_numpy(s), nnref.from_numpy(e), 0.3).numpy(), theirs)
    # With a power-of-two weight the product is exact: the two formulas cannot differ.
    quarter = torch.lerp(torch.from_numpy(s), torch.from_numpy(e), 0.25).numpy()
    np.testing.assert_array_equal(quarter, s + np.float32(0.25) * difference)


def _adoption(library):
    """What the chapter shows with data_ptr(), as booleans."""
    found = {}
    x = library.ones(5, requires_grad=True)
    arrived = []
    x.register_hook(lambda grad: arrived.append(grad.data_ptr()))
    (x * 2).sum().backward()
    found["adopted"] = x.grad.data_ptr() == arrived[0]
    first = x.grad.data_ptr()
    (x * 3).sum().backward()
    found["accumulated in place"] = x.grad.data_ptr() == first
    y = library.ones(5, requires_grad=True)
    g = library.arange(5.0)
    y.clone().backward(g)
    found["held by the caller: copied"] = y.grad.data_ptr() != g.data_ptr()
    y.grad += 1
    found["the caller's tensor unchanged"] = g.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    z = library.ones(5, requires_grad=True)
    kept = []
    z.register_hook(lambda grad: kept.append(grad))
    (z * 2).sum().backward()
    found["kept by a hook: copied"] = z.grad.data_ptr() != kept[0].data_ptr()
    w = library.ones(5, requires_grad=True)
    returned = []

    def scale(grad):
        new = grad * 10
        returned.append(new.data_ptr())
        return new

    w.register_hook(scale)
    (w * 2).sum().backward()
    found["returned by a hook: adopted"] = w.grad.data_ptr() == returned[0]
    return found


def test_gradient_buffers_are_adopted_and_copied_as_in_pytorch():
    theirs = _adoption(torch)
    assert all(theirs.values()), theirs  # the chapter's claims hold in PyTorch
    assert _adoption(nnref) == theirs


def _replay(start, gradients, sqrt, lr=1e-2, betas=(0.9, 0.999), eps=1e-8):
    """The chapter's replay of nnref's Adam._update with a given square root."""
    param, m, v = start.copy(), np.zeros_like(start), np.zeros_like(start)
    for step, grad in enumerate(gradients, start=1):
        m = _lerp(m, grad, 1 - betas[0])
        v = _addcmul(v * betas[1], grad, grad, 1 - betas[1])
        denom = sqrt(v) / math.sqrt(1 - betas[1] ** step) + eps
        param = param - lr / (1 - betas[0] ** step) * m / denom
    return param


def _run(library, start, gradients, name, **options):
    p = library.nn.Parameter(library.from_numpy(start.copy()))
    optimizer = getattr(library.optim, name)([p], lr=1e-2, **options)
    for grad in gradients:
        p.grad = library.from_numpy(grad.copy())
        optimizer.step()
    state = {k: v.numpy().copy() for k, v in optimizer.state[p].items() if k != "momentum_buffer"}
    return p.detach().numpy().copy(), state


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_differs_from_pytorch_through_sqrt_alone(dtype):
    rng = np.random.default_rng(11)
    start = rng.standard_normal(4000).astype(dtype)
    gradients = [rng.standard_normal(4000).astype(dtype) for _ in range(40)]
    ours, our_state = _run(nnref, start, gradients, "Adam")
    theirs, their_state = _run(torch, start, gradients, "Adam")
    for name in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_array_equal(our_state[name], their_state[name], err_msg=name)
    assert not np.array_equal(ours, theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-7)
    v = their_state["exp_avg_sq"]
    assert not np.array_equal(torch.from_numpy(v).sqrt().numpy(), np.sqrt(v))
    np.testing.assert_array_equal(_replay(start, gradients, np.sqrt), ours)
    np.testing.assert_array_equal(_replay(start, gradients, lambda a: torch.from_numpy(a).sqrt().numpy()),
                                  theirs)


def test_numpys_float32_sqrt_is_correctly_rounded_and_pytorchs_is_not_everywhere():
    v = (np.random.default_rng(5).standard_normal(100_000) ** 2 * 1e-3).astype(np.float32)
    correctly_rounded = np.sqrt(v.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.sqrt(v), correctly_rounded)
    theirs = torch.from_numpy(v).sqrt().numpy()
    off = np.abs(theirs.view(np.int32).astype(np.int64) - correctly_rounded.view(np.int32))
    assert off.max() == 1 and np.count_nonzero(off) > 0


def test_sgd_with_momentum_is_bit_for_bit():
    rng = np.random.default_rng(13)
    start = rng.standard_normal(4000).astype(np.float32)
    gradients = [rng.standard_normal(4000).astype(np.float32) for _ in range(40)]
    np.testing.assert_array_equal(_run(nnref, start, gradients, "SGD", momentum=0.9)[0],
                                  _run(torch, start, gradients, "SGD", momentum=0.9)[0])
