"""In-place ops: values, version counters, recorded history, and the no_grad escape hatch."""

import numpy as np
import pytest

import nnref
from core_helpers import both, graph_signature

try:
    import torch
except ImportError:
    torch = None

def test_values_and_version_counter():
    def run(m):
        t = m.tensor([1.0, 2.0])
        steps = []
        for name, op in [
            ("add_", lambda: t.add_(1)), ("sub_", lambda: t.sub_(m.tensor([0.5, 0.5]), alpha=2)),
            ("mul_", lambda: t.mul_(3)), ("div_", lambda: t.div_(2)), ("zero_", lambda: t.zero_()),
            ("fill_", lambda: t.fill_(7)), ("copy_", lambda: t.copy_(m.tensor([3, 4]))),
            ("clamp_min", lambda: t.clamp_(min=3.5)), ("clamp_max", lambda: t.clamp_(max=3.7)),
            ("masked_fill_", lambda: t.masked_fill_(m.tensor([True, False]), -1.0)),
        ]:
            assert op() is t  # in-place methods return the tensor itself
            steps.append((name, t.clone(), t._version))
        t += 1
        t *= 2
        t -= 1
        t /= 2
        steps.append(("operators", t.clone(), t._version))
        return steps, str(t.dtype).rsplit(".", 1)[-1]
    steps, _ = both(run)
    assert [version for _, _, version in steps] == list(range(1, 11)) + [14]


def test_random_fills_and_their_version():
    def run(m):
        u = m.zeros(4000)
        assert u.uniform_(2, 3) is u
        facts = [bool((u >= 2).all()), bool((u < 3).all()), abs(u.mean().item() - 2.5) < 0.03,
                 u._version]
        assert u.normal_(1, 2) is u
        facts += [abs(u.mean().item() - 1) < 0.15, abs(u.var().item() - 4) < 0.4, u._version]
        return facts
    assert both(run) == [True, True, True, 1, True, True, 2]


def test_views_share_the_version_counter():
    def run(m):
        b = m.zeros(2, 3)
        row = b[0]
        row.add_(1)
        facts = [b._version, row._version, b.clone()]
        b.t().mul_(2)
        b.reshape(6).add_(1)
        b.view(3, 2)[1].zero_()
        facts += [b._version, row._version, b]
        return facts
    facts = both(run)
    assert facts[0] == facts[1] == 1 and facts[3] == facts[4] == 4


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "clamp_", "masked_fill_", "zero_",
                                  "fill_", "fill_tensor", "copy_", "uniform_", "normal_", "iadd",
                                  "imul"])
def test_in_place_on_non_leaf_is_recorded(name):
    """The tensor's grad_fn becomes the in-place op's node; gradients stay right."""
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([0.5, -1.5], requires_grad=True)
        v = m.tensor(3.0, requires_grad=True)
        y = x * 2
        node = y.grad_fn
        before = type(node).__name__
        ops = {
            "add_": lambda: y.add_(w, alpha=2), "sub_": lambda: y.sub_(x, alpha=3),
            "mul_": lambda: y.mul_(w), "div_": lambda: y.div_(x),
            "clamp_": lambda: y.clamp_(max=3), "masked_fill_": lambda: y.masked_fill_(
                m.tensor([True, False]), 0.0),
            "zero_": lambda: y.zero_(), "fill_": lambda: y.fill_(3), "fill_tensor": lambda: y.fill_(v),
            "copy_": lambda: y.copy_(w), "uniform_": lambda: y.uniform_(),
            "normal_": lambda: y.normal_(),
        }
        if name == "iadd":
            y += w
        elif name == "imul":
            y *= w
        else:
            assert ops[name]() is y
        after = type(y.grad_fn).__name__
        replaced = y.grad_fn is not node and y.grad_fn.next_functions[0][0] is node
        edges = [None if n is None else type(n).__name__ for n, _ in y.grad_fn.next_functions]
        if name in ("uniform_", "normal_"):
            (y * 0).sum().backward()  # the values are random; only the graph is compared
        else:
            (y * m.tensor([1.0, 3.0])).sum().backward()
        return before, after, replaced, edges, y._version, x.grad, w.grad, v.grad
    before, after, replaced, edges, version, *_ = both(run)
    assert before == "MulBackward0" and replaced and version == 1


def test_in_place_on_a_constant_with_a_differentiable_operand():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        results = []
        for op in (lambda c: c.add_(x), lambda c: c.mul_(x), lambda c: c.copy_(x)):
            c = m.zeros(2)
            op(c)
            facts = [c.requires_grad, c.is_leaf, type(c.grad_fn).__name__]
            x.grad = None
            (c * 3).sum().backward()
            results.append(facts + [x.grad])
        return results
    results = both(run)
    assert [r[:3] for r in results] == [[True, False, "AddBackward0"], [True, False, "MulBackward0"],
                                        [True, False, "CopyBackwards"]]


def test_in_place_on_a_leaf_is_allowed_under_no_grad():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with m.no_grad():
            x.add_(1)
            x.mul_(2)
            x.sub_(m.ones(2))
            x.clamp_(0, 10)
            x.copy_(m.tensor([3.0, 4.0]))
            x.zero_()
            x.fill_(1)
            x.uniform_()
            x.normal_()
            x -= 0.5
        return x.requires_grad, x.is_leaf, x.grad_fn is None, x._version
    assert both(run) == (True, True, True, 10)


def test_in_place_on_a_leaf_requiring_grad_is_refused():
    for op in (lambda t: t.add_(1), lambda t: t.zero_(), lambda t: t.copy_(nnref.ones(2)),
               lambda t: t.uniform_(), lambda t: t.fill_(2)):
        x = nnref.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op(x)
        assert x._version == 0 and x.tolist() == [1.0, 1.0]  # nothing was written


def test_modifying_a_saved_tensor_is_detected_at_backward():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.sigmoid()       # saves its output
        z = (y * y).sum()     # saves y twice
        y.add_(1)             # y is now at version 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()
        u = x * 1
        v = (u * 2).sum()     # saves only the number 2: changing u afterwards is harmless
        u.add_(1)
        v.backward()
        return x.grad
    assert both(run).tolist() == [2.0, 2.0]


def test_in_place_dtype_rules():
    def run(m):
        i = m.tensor([1, 2])
        i.add_(1)
        i.mul_(2)
        i.add_(True)
        f = m.tensor([1.0, 2.0])
        f.add_(m.tensor([1, 2]))
        h = m.tensor([1.0, 2.0], dtype=m.float16)
        h.mul_(m.tensor([3.0], dtype=m.float64))
        with pytest.raises(RuntimeError):
            i.div_(2)  # a float result cannot be stored in an int tensor
        return i, f, h
    i, f, h = both(run)
    assert i.dtype is nnref.int64 and i.tolist() == [5, 7] and h.dtype is nnref.float16


def test_copy_broadcasts_and_converts():
    def run(m):
        t = m.zeros(2, 3)
        t.copy_(m.tensor([1, 2, 3]))
        return t
    assert both(run).tolist() == [[1.0, 2.0, 3.0]] * 2


def test_in_place_on_a_view_rewrites_the_base_history_with_copy_slices():
    """The issue's example: y[1:3].mul_(2) makes y's grad_fn CopySlices and x.grad [1, 2, 2, 1]."""
    def run(m):
        x = m.zeros(4, requires_grad=True)
        y = x * 1
        view = y[1:3]
        view.mul_(2)
        graph = (graph_signature(y.grad_fn, (x,)), y.grad_fn.name(), graph_signature(view.grad_fn, (x,)))
        (y * m.arange(4.0)).sum().backward()
        return graph, y, y._version, view._version, x.grad
    graph, *_ = both(run)
    assert graph[1] == "torch::autograd::CopySlices"


def test_hooks_and_retain_grad_across_an_in_place_op():
    """retain_grad follows the tensor to its new value; earlier hooks stay with the old one."""
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * 5).sum().backward()
        retained = y.grad
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        log = []
        y.register_hook(lambda g: log.append(("before", g.tolist())))
        y.mul_(3)
        y.register_hook(lambda g: log.append(("after", g.tolist())))
        (y * 5).sum().backward()
        return retained, log, x.grad
    retained, log, grad = both(run)
    assert retained.tolist() == [5.0, 5.0]
    assert log == [("after", [5.0, 5.0]), ("before", [15.0, 15.0])]


# -- t[index] = value -----------------------------------------------------------------------------
SETITEM_INDICES = {
    "int": 0, "two_ints": (0, 1), "column": (slice(None), 1), "row_mask": "row_mask",
    "list": [0, 2], "int_and_list": (0, [1, 2]), "ellipsis_int": (Ellipsis, 0),
    "full_slice_and_list": (slice(None), [0, 1]), "ellipsis": Ellipsis, "full_slice": slice(None),
    "none": None, "slice_and_list": (slice(1, None), [0, 1]), "ellipsis_list": (Ellipsis, [0, 1]),
    "list_and_full_slice": ([0, 1], slice(None)), "0d_tensor": "0d", "int_and_mask": "int_mask",
    "full_mask": "full_mask", "two_full_slices": (slice(None), slice(None)),
    "partial_slice": slice(1, None), "negative_and_step": (-1, slice(None, None, 2)),
}


def _setitem_index(m, index):
    return {"row_mask": lambda: m.tensor([True, False, True]), "0d": lambda: m.tensor(1),
            "int_mask": lambda: (0, m.tensor([True, False, True, True])),
            "full_mask": lambda: m.arange(12).reshape(3, 4) > 6}[index]() if isinstance(index, str) \
        else index


@pytest.mark.parametrize("name", sorted(SETITEM_INDICES))
@pytest.mark.parametrize("value", ["number", "row", "scalar_tensor"])
def test_setitem_on_non_leaf_records_like_torch(name, value):
    """CopySlices through views, IndexPutBackward0 with index arrays, fill_/copy_ for the whole."""
    def run(m):
        x = m.ones(3, 4, requires_grad=True)
        v = {"number": 5.0, "row": m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True),
             "scalar_tensor": m.tensor(7.0, requires_grad=True)}[value]
        y = x * 2
        index = _setitem_index(m, SETITEM_INDICES[name])
        try:
            y[index] = v
        except RuntimeError as exc:  # a row that does not fit the indexed region
            return type(exc).__name__
        graph = graph_signature(y.grad_fn, (x, v))
        (y * m.arange(12.0).reshape(3, 4)).sum().backward()
        return graph, y, y._version, x.grad, v.grad if isinstance(v, m.Tensor) else None
    both(run)


def test_setitem_without_autograd():
    def run(m):
        c = m.zeros(2, 3)
        c[0] = m.tensor([1, 2, 3])
        facts = [c.clone(), c._version]
        c[c > 1] = 0
        c[:, 0] = m.tensor([9.0, 8.0])
        facts += [c.clone(), c._version]
        i = m.zeros(3, dtype=m.int64)
        i[0] = 2.7  # converted to the tensor's dtype
        a = m.zeros(2, 3, 4)
        a[0, :, [1, 2]] = m.tensor([1.0, 2.0])  # ints are applied first, as views
        b = m.zeros(5)
        b[[1, 3]] = m.tensor([1.0, 3.0])
        t = m.zeros(4)
        view = t[1:3]
        view[0] = 9  # writes through the view into t
        element = t[3]
        element.add_(2)  # a 0-d element is a view too
        with m.no_grad():
            x = m.ones(2, requires_grad=True)
            x[0] = 5
        return facts + [i, a[0], b, t, t._version, x, x.grad_fn is None]
    both(run)


def test_setitem_errors():
    for m in filter(None, (nnref, torch)):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            m.ones(2, requires_grad=True)[0] = 1
        with pytest.raises(RuntimeError):
            m.zeros(2, 3)[0] = m.ones(4)
        with pytest.raises(IndexError):
            m.zeros(2)[5] = 1


def test_setitem_gradients_by_finite_differences():
    x0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    v0 = np.array([0.2, -0.4])

    def f(m, x, v):
        y = x * x
        y[:, 1] = v * 3
        y[[1, 0], [2, 2]] = v.exp()
        return y
    x = nnref.tensor(x0, requires_grad=True)
    v = nnref.tensor(v0, requires_grad=True)
    assert nnref.autograd.gradcheck(lambda a, b: f(nnref, a, b), (x, v))


def test_writing_into_an_expanded_tensor_is_refused():
    """add_/copy_/mul_ and a region holding shared elements fail in both libraries; zero_ and
    a single element, which give one value to each shared element, write as in PyTorch."""
    for m in filter(None, (nnref, torch)):
        e = m.ones(3).expand(2, 3)
        for op in (lambda: e.add_(1), lambda: e.copy_(m.zeros(2, 3)), lambda: e.mul_(2),
                   lambda: e.__setitem__((slice(None), 0), 5.0)):
            with pytest.raises(RuntimeError, match="single memory location"):
                op()
        e[0, 1] = 5.0
        assert e.tolist() == [[1.0, 5.0, 1.0]] * 2
        assert e.zero_().tolist() == [[0.0] * 3] * 2