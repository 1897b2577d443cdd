"""state_dict / load_state_dict against PyTorch: keys, order, metadata, hooks, errors.

Plus the one place nnref differs on purpose: a failed ``load_state_dict``
leaves the model exactly as it was (PyTorch's algorithm inside a snapshot that
is restored on error; see also tests/nn/test_checkpoint_interop.py).
"""
from collections import OrderedDict

import numpy as np
import pytest

import nnref
from module_helpers import normalise, raised, run_both, values

torch = pytest.importorskip("torch")
nn_ref = nnref.nn


def build(torch, nn):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.register_buffer("stat", torch.zeros(2))
            self.register_buffer("cache", torch.zeros(2), persistent=False)
            self.register_buffer("empty", None)
            self.register_parameter("gone", None)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.alpha = nn.Parameter(torch.tensor(1.0))
            self.enc = nn.Sequential(Block(), Block())
            self.out = nn.Linear(2, 1, bias=False)
            self.tied = self.out  # shared child: its entries appear under both names

    return Net()


def filled(torch, nn, offset=0.0):
    """``build`` with deterministic values, so both libraries hold the same numbers."""
    net = build(torch, nn)
    with torch.no_grad():
        for i, (_, t) in enumerate(net.state_dict(keep_vars=True).items()):
            t.copy_(torch.arange(t.numel(), dtype=torch.float32).reshape(t.shape) + 10 * i + offset)
    return net


def test_state_dict_keys_order_and_metadata_match_pytorch():
    def keys(torch, nn):
        sd = build(torch, nn).state_dict()
        return list(sd.keys()), type(sd).__name__, dict(sd._metadata)

    ours, theirs = run_both(keys, torch)
    assert ours == theirs


def test_state_dict_values_are_detached_unless_keep_vars():
    def kinds(torch, nn):
        net = build(torch, nn)
        sd, kept = net.state_dict(), net.state_dict(keep_vars=True)
        return ([type(v).__name__ for v in sd.values()], [v.requires_grad for v in sd.values()],
                [type(v).__name__ for v in kept.values()], kept["alpha"] is net.alpha)

    ours, theirs = run_both(kinds, torch)
    assert ours == theirs
    net = build(nnref, nn_ref)
    sd = net.state_dict()
    with nnref.no_grad():
        sd["alpha"].fill_(5.0)  # detached, but still the model's memory
    assert net.alpha.item() == 5.0


def test_state_dict_prefix_destination_and_positional_arguments():
    def run(torch, nn):
        net = nn.Linear(1, 1)
        dest = OrderedDict(existing=1)
        out = net.state_dict(destination=dest, prefix="model.")
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            positional = net.state_dict(None, "p.", True)
        return (out is dest, list(dest.keys()), list(positional.keys()),
                type(positional["p.weight"]).__name__, [w.category.__name__ for w in caught])

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_non_persistent_buffer_is_not_saved_but_is_a_buffer():
    net = build(nnref, nn_ref)
    assert "enc.0.cache" not in net.state_dict()
    assert "enc.0.cache" in dict(net.named_buffers())
    net.enc[0].register_buffer("cache", nnref.ones(1))  # re-registering as persistent
    assert "enc.0.cache" in net.state_dict()


def test_round_trip_copies_values_in_place():
    def run(torch, nn):
        src, dst = filled(torch, nn), build(torch, nn)
        weight = dst.out.weight
        result = dst.load_state_dict(src.state_dict())
        return (repr(result), dst.out.weight is weight, values(dst.state_dict()),
                result.missing_keys, result.unexpected_keys)

    ours, theirs = run_both(run, torch)
    assert ours == theirs
    assert ours[0] == "<All keys matched successfully>"


@pytest.mark.parametrize("edit", ["missing", "unexpected", "both", "child_unexpected", "wrong_shape",
                                  "not_a_tensor", "missing_and_wrong_shape", "unknown_child"])
@pytest.mark.parametrize("strict", [True, False])
def test_load_errors_and_incompatible_keys_match_pytorch(edit, strict):
    def run(torch, nn):
        src, dst = filled(torch, nn), filled(torch, nn, offset=0.5)
        sd = src.state_dict()
        if edit in ("missing", "both", "missing_and_wrong_shape"):
            del sd["enc.1.fc.bias"], sd["alpha"]
        if edit in ("unexpected", "both"):
            sd["extra"] = torch.ones(1)
            sd["enc.0.fc.extra"] = torch.ones(1)
        if edit == "child_unexpected":
            sd["enc.0.fc.nested.deeper"] = torch.ones(1)
        if edit == "unknown_child":
            sd["decoder.weight"] = torch.ones(1)
        if edit in ("wrong_shape", "missing_and_wrong_shape"):
            sd["out.weight"] = torch.ones(3, 2)
            sd["enc.0.stat"] = torch.ones(5)
        if edit == "not_a_tensor":
            sd["enc.0.stat"] = [1.0, 2.0]
        outcome = raised(lambda: dst.load_state_dict(sd, strict=strict))
        if outcome is None:
            result = dst.load_state_dict(sd, strict=strict)
            outcome = (repr(result), values(dst.state_dict()))
        return outcome

    ours, theirs = run_both(run, torch)
    if edit == "not_a_tensor":  # Python's type repr differs only in the module path of the class
        assert ours[0] == theirs[0] and "received <class 'list'>" in ours[1]
    assert normalise(ours) == normalise(theirs)


def test_error_message_shape():
    net = build(nnref, nn_ref)
    sd = net.state_dict()
    del sd["alpha"]
    sd["out.weight"] = nnref.ones(3, 2)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "alpha". \n'
        "\tsize mismatch for out.weight: copying a param with shape torch.Size([3, 2]) from "
        "checkpoint, the shape in current model is torch.Size([1, 2]).")


@pytest.mark.parametrize("edit", ["missing", "unexpected", "wrong_shape", "not_a_tensor"])
def test_failed_load_changes_nothing(edit):
    """nnref restores everything a failed load copied (PyTorch leaves it half loaded)."""
    src, dst = filled(nnref, nn_ref), filled(nnref, nn_ref, offset=0.5)
    before = values(dst.state_dict())
    sd = src.state_dict()
    if edit == "missing":
        del sd["out.weight"]
    elif edit == "unexpected":
        sd["surprise"] = nnref.ones(1)
    elif edit == "wrong_shape":
        sd["out.weight"] = nnref.ones(4, 4)  # comes after enc.*, which PyTorch would already have copied
    else:
        sd["tied.weight"] = "not a tensor"
    with pytest.raises(RuntimeError):
        dst.load_state_dict(sd)
    assert values(dst.state_dict()) == before


def test_pytorch_copies_as_it_goes_which_nnref_avoids():
    """The behaviour nnref deliberately does not reproduce, pinned so the book's claim stays true."""
    src, dst = filled(torch, torch.nn), filled(torch, torch.nn, offset=0.5)
    sd = src.state_dict()
    sd["out.weight"] = torch.ones(4, 4)
    with pytest.raises(RuntimeError):
        dst.load_state_dict(sd)
    assert torch.equal(dst.alpha, src.alpha)  # PyTorch: half loaded


def test_load_requires_a_mapping():
    ours = raised(lambda: nn_ref.Linear(1, 1).load_state_dict([1]))
    theirs = raised(lambda: torch.nn.Linear(1, 1).load_state_dict([1]))
    assert ours == theirs


def test_load_scalar_from_one_element_vector_like_old_checkpoints():
    def run(torch, nn):
        net = build(torch, nn)
        sd = net.state_dict()
        sd["alpha"] = torch.tensor([7.0])
        net.load_state_dict(sd)
        return net.alpha.item(), list(net.alpha.shape)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_load_with_assign_replaces_tensors_and_keeps_requires_grad():
    def run(torch, nn):
        net = nn.Linear(2, 1)
        net.bias.requires_grad_(False)
        new = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
        old_weight = net.weight
        net.load_state_dict(new, assign=True)
        return (net.weight is old_weight, type(net.weight).__name__, net.weight.requires_grad,
                net.bias.requires_grad, values(net.weight))

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_load_from_a_copy_and_integer_into_float_is_cast():
    def run(torch, nn):
        net = nn.Linear(2, 1)
        net.load_state_dict({"weight": torch.tensor([[1, 2]]), "bias": torch.tensor([3])})
        return values(net.state_dict())

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_state_dict_and_load_hooks_run_in_pytorch_order():
    def run(torch, nn):
        log = []
        net = build(torch, nn)
        for name, m in net.named_modules():
            m.register_state_dict_pre_hook(lambda mod, prefix, keep, n=name: log.append(("sd-pre", n, prefix)))
            m.register_state_dict_post_hook(
                lambda mod, sd, prefix, meta, n=name: log.append(("sd-post", n, prefix, len(sd))))
            m.register_load_state_dict_pre_hook(
                lambda mod, sd, prefix, meta, strict, missing, unexpected, errors, n=name:
                log.append(("load-pre", n, prefix, sorted(sd)[:2], meta.get("version"))))
            m.register_load_state_dict_post_hook(
                lambda mod, keys, n=name: log.append(("load-post", n, list(keys.missing_keys))))
        sd = net.state_dict()
        del sd["alpha"]
        net.load_state_dict(sd, strict=False)
        return log

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_load_post_hook_can_clear_missing_keys():
    def run(torch, nn):
        net = nn.Sequential(nn.Linear(1, 1))
        net.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
        sd = net.state_dict()
        del sd["0.bias"]
        result = net.load_state_dict(sd)
        bad = raised(lambda: net.register_load_state_dict_post_hook(lambda m, keys: 1) and
                     net.load_state_dict(net.state_dict()))
        return repr(result), bad

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_private_state_dict_hook_can_replace_the_result_at_the_root():
    def run(torch, nn):
        net = nn.Linear(1, 1)
        net._register_state_dict_hook(lambda m, sd, prefix, meta: OrderedDict(only=1))
        public = nn.Linear(1, 1)
        public.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
        return list(net.state_dict()), raised(public.state_dict)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_private_load_pre_hook_without_module():
    def run(torch, nn):
        seen = []
        net = nn.Linear(1, 1)
        net._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: seen.append((sorted(sd), prefix)))
        net.load_state_dict(net.state_dict())
        return seen

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_batchnorm_num_batches_tracked_in_state_dict():
    if not hasattr(nn_ref, "BatchNorm1d"):
        pytest.skip("nn.BatchNorm1d is not written yet")

    def run(torch, nn):
        net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
        sd = net.state_dict()
        return list(sd.keys()), normalise(str(sd["1.num_batches_tracked"].dtype)), dict(sd._metadata)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_loaded_model_computes_what_the_source_computes():
    src, dst = filled(nnref, nn_ref), build(nnref, nn_ref)
    dst.load_state_dict(src.state_dict())
    x = nnref.ones(3, 2)
    np.testing.assert_array_equal(dst.out(dst.enc[1].fc(x)).detach().numpy(),
                                  src.out(src.enc[1].fc(x)).detach().numpy())
