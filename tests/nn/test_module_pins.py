"""Behaviours of nn.Module that a careless edit could change without any other test noticing,
each pinned against PyTorch: always_call forward hooks when something raises, buffers and
parameters reassigned by attribute, zero_grad's default."""
import pytest

from module_helpers import normalise, run_both

torch = pytest.importorskip("torch")


def same(fn):
    ours, theirs = run_both(fn, torch)
    assert normalise(ours) == normalise(theirs)
    return ours


def test_always_call_hook_runs_exactly_once_when_a_later_hook_raises():
    def run(torch, nn):
        log = []
        layer = nn.Linear(2, 2)
        layer.register_forward_hook(lambda m, i, o: log.append("always"), always_call=True)

        def bad(m, i, o):
            log.append("bad")
            raise ValueError("boom")
        layer.register_forward_hook(bad)
        layer.register_forward_hook(lambda m, i, o: log.append("after"), always_call=True)
        layer.register_forward_hook(lambda m, i, o: log.append("skipped"))
        with pytest.raises(ValueError, match="boom"):
            layer(torch.ones(1, 2))
        return log
    assert same(run) == ["always", "bad", "after"]


def test_always_call_hook_runs_when_a_pre_hook_or_forward_raises():
    def run(torch, nn):
        log = []
        layer = nn.Linear(2, 2)

        def failing_pre_hook(m, i):
            raise ValueError("pre")
        layer.register_forward_pre_hook(failing_pre_hook)
        layer.register_forward_hook(lambda m, i, o: log.append(("always", o)), always_call=True)
        with pytest.raises(ValueError, match="pre"):
            layer(torch.ones(1, 2))

        class Failing(nn.Module):
            def forward(self, x):
                raise KeyError("forward")
        failing = Failing()
        failing.register_forward_hook(lambda m, i, o: log.append(("always", o)), always_call=True)
        with pytest.raises(KeyError):
            failing(torch.ones(1))
        return log
    assert same(run) == [("always", None), ("always", None)]


def test_reassigning_buffers_by_attribute_keeps_their_persistence():
    def run(torch, nn):
        m = nn.Module()
        m.register_buffer("cache", torch.ones(1), persistent=False)
        m.register_buffer("keep", torch.ones(1))
        m.register_buffer("empty", None)
        m.cache = torch.zeros(2)
        m.keep = torch.zeros(3)
        keys_before = list(m.state_dict())
        m.empty = torch.ones(1)
        return keys_before, list(m.state_dict()), list(dict(m.named_buffers())), m.cache
    keys_before, keys_after, buffers, _ = same(run)
    assert keys_before == ["keep"] and "cache" not in keys_after and "cache" in buffers


def test_zero_grad_sets_grads_to_none_by_default():
    def run(torch, nn):
        layer = nn.Linear(2, 2)
        layer(torch.ones(1, 2)).sum().backward()
        layer.zero_grad()
        cleared = [p.grad for p in layer.parameters()]
        layer(torch.ones(1, 2)).sum().backward()
        layer.zero_grad(set_to_none=False)
        return cleared, [p.grad for p in layer.parameters()]
    cleared, zeroed = same(run)
    assert cleared == [None, None] and all(float(g.abs().sum()) == 0 for g in zeroed)


def test_assigning_a_plain_tensor_or_none_to_a_parameter():
    def run(torch, nn):
        layer = nn.Linear(2, 2)
        with pytest.raises(TypeError) as info:
            layer.weight = torch.ones(2, 2)
        layer.weight = None
        return str(info.value), list(layer.state_dict()), list(dict(layer.named_parameters()))
    same(run)
