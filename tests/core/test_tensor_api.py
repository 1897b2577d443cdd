"""The everyday Tensor API (sizes, conversions, comparisons, indexing, reductions, seeding).

Each case is ``f(m)``; its printed result (or error type) must equal PyTorch's,
with ``torch.`` read as ``nnref.``.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def shown(f, m):
    try:
        value = f(m)
    except Exception as exc:
        return type(exc).__name__
    return str(value).replace("torch.", "nnref.")


def t23(m):
    return m.arange(6.0).reshape(2, 3)


def m34(m):
    return m.arange(12).reshape(3, 4)


CASES = [
    # sizes
    lambda m: (t23(m).size(), t23(m).size(1), t23(m).size(-1), t23(m).dim(), t23(m).ndim),
    lambda m: (t23(m).numel(), t23(m).nelement(), t23(m).element_size(), len(t23(m))),
    lambda m: (type(t23(m).shape).__name__, t23(m).shape == (2, 3), t23(m).size() == m.Size([2, 3])),
    lambda m: m.Size([2, 3]).numel(),
    lambda m: t23(m).size(2),
    # values out
    lambda m: [row.tolist() for row in t23(m)],
    lambda m: (t23(m).tolist(), m.tensor(2.5).tolist(), m.tensor(3).item()),
    lambda m: (type(m.tensor(3).item()).__name__, type(m.tensor(2.5).item()).__name__,
               type(m.tensor(True).item()).__name__),
    lambda m: (float(m.tensor([2.5])), int(m.tensor(3.7)), int(m.tensor(-3.7)), bool(m.tensor([0.0]))),
    lambda m: [10, 20, 30][m.tensor(1)],
    lambda m: [1][m.tensor(0.0)],
    lambda m: (f"{m.tensor(2.5):.3f}", f"{m.tensor([1.0])}", format(m.tensor(3), "d")),
    lambda m: f"{m.tensor([1.0]):.2f}",
    lambda m: np.asarray(m.ones(2)).dtype,
    lambda m: np.asarray(m.ones(2, requires_grad=True)),
    lambda m: m.ones(2, dtype=m.float64).numpy().dtype,
    # devices and conversions
    lambda m: (m.ones(2).to("cpu").device, m.ones(2).cpu().device, m.ones(2).device, m.ones(2).is_cuda),
    lambda m: (m.ones(2).to(m.ones(1, dtype=m.int32)).dtype, m.ones(2).to("cpu", m.float16).dtype,
               m.ones(2).to(device="cpu", dtype=m.float64).dtype),
    lambda m: [m.ones(2).to(m.float32) is not None for _ in range(1)],
    lambda m: m.device("cpu") == "cpu",
    lambda m: str(m.device("cpu")),
    # comparisons and logic
    lambda m: (m.ones(2) == m.ones(2), (m.ones(2) == 1).all(), m.ones(2) != 1, m.ones(2) < 2),
    lambda m: (m.ones(2) >= 1, m.eq(m.ones(2), 1), m.ones(2).eq(1), m.ones(2).ne(m.zeros(2))),
    lambda m: (~m.tensor([True, False]), m.tensor([True]) & m.tensor([False]),
               m.tensor([True]) | m.tensor([False]), m.tensor([True]) ^ m.tensor([True])),
    lambda m: m.tensor([3]) & 1,
    lambda m: m.tensor([1.5]) & 1,
    lambda m: ~m.ones(2),
    lambda m: (m.ones(2).any(), m.ones(2).all(), m.zeros(2).any(), m.tensor([1, 0]).all()),
    # arithmetic helpers
    lambda m: (abs(m.tensor([-1.5])), +m.tensor([1.0]), m.tensor([1.5, -2.5, 0.0]).sign()),
    lambda m: (m.divide(m.ones(2), 2), m.multiply(m.ones(2), 3), m.subtract(m.ones(2), 1)),
    lambda m: (m.concat([m.ones(1), m.zeros(1)]), m.numel(m.ones(2, 3)), m.is_tensor(m.ones(1)),
               m.is_tensor(1)),
    lambda m: (m.tensor([5., -5.]).div(2, rounding_mode="floor"),
               m.tensor([5., -5.]).div(2, rounding_mode="trunc")),
    lambda m: (m.tensor([5, -5]).div(2, rounding_mode="floor"),
               m.tensor([5, -5]).div(2, rounding_mode="trunc"), m.tensor([5, -5]).div(2)),
    lambda m: (m.tensor([1., 2.]).reciprocal(), m.tensor([2, 4]).reciprocal(),
               m.rsub(m.tensor([1., 2.]), 5)),
    lambda m: m.clip(m.tensor([1., 5.]), 2, 3),
    lambda m: m.tensor([1., 2., 3.]).clamp(m.tensor([2., 0., 0.]), m.tensor([3., 1., 2.5])),
    lambda m: m.max(m.tensor([1., 5.]), m.tensor([3., 4.])),
    # reductions
    lambda m: (m.tensor([[1., 2.], [3., 4.]]).argmax(), m.tensor([[1., 2.], [3., 0.]]).argmax(1),
               m.tensor([[1., 2.], [3., 0.]]).argmin(dim=0, keepdim=True)),
    lambda m: m.tensor([[1., 5.], [3., 4.]]).max(1),
    lambda m: m.tensor([[1., 5.], [3., 4.]]).min(0, keepdim=True),
    lambda m: tuple(m.tensor([[1., 5.], [3., 4.]]).max(dim=1)),
    lambda m: (m.tensor([[1., 2.], [3., 4.]]).amin(1), m.tensor([[1., 2.], [3., 4.]]).amax((0, 1))),
    lambda m: (m.tensor([[1., 2.], [3., 4.]]).var(1, keepdim=True),
               m.tensor([[1., 2.], [3., 4.]]).var(0, unbiased=False),
               m.tensor([[1., 2.], [3., 4.]]).var(False)),
    lambda m: (m.tensor([[1., 2.], [3., 4.]]).mean((0, 1), keepdim=True),
               m.tensor([[1., 2.], [3., 4.]]).sum(dtype=m.float64),
               m.tensor([[1., 2.], [3., 4.]]).mean(dtype=m.float64)),
    lambda m: (m.tensor([[True, False]]).sum(1), m.ones(2, 3).sum(()), m.ones(2, 3).mean([])),
    lambda m: m.tensor([[1., 2.]]).sum_to_size(1, 1),
    # shapes
    lambda m: (m.tensor([1., 2.]).expand_as(m.ones(2, 2)), m.tensor([[1., 2.], [3, 4]]).view_as(m.ones(4))),
    lambda m: (m.ones(2, 3).t().is_contiguous(), m.ones(2, 3).t().contiguous().is_contiguous(),
               m.ones(2, 3).is_contiguous()),
    lambda m: (m.ones(2, 1, 3).squeeze(1).shape, m.ones(2, 1, 3).squeeze((0, 1)).shape,
               m.ones(3).unsqueeze(-1).shape, m.ones(2, 3, 4).permute(2, 0, 1).shape,
               m.ones(2, 3, 4).permute((2, 0, 1)).shape, m.ones(2, 3, 4).transpose(-1, 0).shape),
    lambda m: (m.ones(2, 3, 4).flatten(1).shape, m.ones(2, 3, 4).flatten(0, 1).shape,
               m.ones(2, 3).flatten(1, 1).shape, m.tensor(5.0).flatten().shape),
    lambda m: (m.ones(4, 3).narrow(0, 1, 2).shape, m.ones(4, 3).select(1, -1).shape),
    lambda m: m.ones(2, 3).view(-1, 2).reshape(3, 2, 1).shape,
    # indexing
    lambda m: (m.arange(10)[2:8:3], m.arange(10)[-3:], m.arange(10)[m.arange(10) > 6]),
    lambda m: (m34(m)[:, [0, 2]], m34(m)[[0, 2], 1:]),
    lambda m: (m34(m)[m.tensor([[0, 1], [2, 2]])].shape, m34(m)[..., None, 1].shape),
    lambda m: (m34(m)[m.tensor([True, False, True])], m34(m)[1, ..., 2], m34(m)[[0, 1], [1, 2]],
               m34(m)[m.tensor(1)]),
    lambda m: (m.arange(24).reshape(2, 3, 4)[:, [0, 1], [1, 2]].shape,
               m.arange(24).reshape(2, 3, 4)[[0, 1], :, [1, 2]].shape),
    lambda m: m34(m)[(m34(m) > 3) & (m34(m) < 9)],
    lambda m: m34(m)[np.array([0, 2])],
    lambda m: m34(m)[-1, -1],
    lambda m: m34(m)[1:1].shape,
    # membership
    lambda m: (2 in m34(m), 50 in m34(m), m.tensor(3) in m34(m), m.tensor([0, 1, 2, 3]) in m34(m)),
    lambda m: "a" in m34(m),
    # new_* keep this tensor's dtype and device unless told otherwise
    lambda m: (t23(m).double().new_zeros(2, 3), m34(m).new_ones((2,)), t23(m).new_empty(0).shape),
    lambda m: (m34(m).new_full((2,), 7.5), t23(m).new_full([1, 2], 3), t23(m).new_full((2,), 1, dtype=m.int32)),
    lambda m: (t23(m).new_tensor([1, 2]), m34(m).new_tensor([1.7, -2.5]), t23(m).new_tensor([[True]], dtype=m.bool)),
    lambda m: t23(m).new_zeros(2, requires_grad=True),
    lambda m: m34(m).new_zeros(2, requires_grad=True),
    lambda m: t23(m).new_tensor([[1, 2], [3]]),
    lambda m: t23(m).new_zeros(-1),
]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_matches_torch(case):
    assert shown(case, nnref) == shown(case, torch)


def test_numpy_shares_memory():
    for m in (nnref, torch):
        x = m.ones(2)
        x.numpy()[0] = 5
        assert x.tolist() == [5.0, 1.0]


def test_seeding_makes_random_numbers_reproducible():
    """Same seed, same numbers (PyTorch's numbers too: see tests/core/test_random_vs_torch.py)."""
    nnref.manual_seed(123)
    a = (nnref.rand(3), nnref.randn(2, 2), nnref.randint(0, 10, (4,)), nnref.zeros(3).uniform_(),
         nnref.zeros(3).normal_())
    assert nnref.initial_seed() == 123
    nnref.manual_seed(123)
    b = (nnref.rand(3), nnref.randn(2, 2), nnref.randint(0, 10, (4,)), nnref.zeros(3).uniform_(),
         nnref.zeros(3).normal_())
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert not np.array_equal(nnref.rand(3)._data, a[0]._data)
    s = nnref.seed()
    assert isinstance(s, int) and nnref.initial_seed() == s


def test_random_factories_have_torch_shapes_dtypes_and_ranges():
    for m in (nnref, torch):
        r = m.rand(1000)
        assert r.dtype == m.float32 and 0 <= r.min().item() and r.max().item() < 1
        i = m.randint(3, 7, (500,))
        assert i.dtype == m.int64 and i.min().item() >= 3 and i.max().item() <= 6
        n = m.randn(4000, dtype=m.float64)
        assert abs(n.mean().item()) < 0.1 and abs(n.var().item() - 1) < 0.1


def test_copy_and_deepcopy_follow_torch():
    import copy

    def run(m):
        t = m.tensor([1.0, 2.0], requires_grad=True)
        t.grad = m.tensor([0.5, 0.5])
        t.note = "kept"
        d = copy.deepcopy(t)
        facts = [d is t, d.tolist(), d.requires_grad, d.is_leaf, d.grad.tolist(), d.grad is t.grad,
                 d.note]
        with m.no_grad():
            d.add_(1)
        facts.append(t.tolist())  # the original is untouched
        state = copy.deepcopy({"w": t, "same_w": t})
        facts.append(state["w"] is state["same_w"])  # the memo keeps shared tensors shared
        c = copy.copy(t)
        with m.no_grad():
            c.mul_(2)
        facts += [c is t, c.requires_grad, t.tolist()]  # copy.copy shares memory
        with pytest.raises(RuntimeError, match="graph leaves"):
            copy.deepcopy(t * 2)
        return facts
    assert run(nnref) == run(torch)
