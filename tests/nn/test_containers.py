"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against PyTorch."""
from collections import OrderedDict

import numpy as np
import pytest

import nnref
from module_helpers import copy_state, normalise, raised, run_both, values

torch = pytest.importorskip("torch")
nn_ref = nnref.nn


def layout(module):
    """Children names, parameter names and the printed text: what the tests compare."""
    return ([n for n, _ in module.named_children()], [n for n, _ in module.named_parameters()],
            normalise(repr(module)))


# -- Sequential ------------------------------------------------------------------------------------
def test_sequential_positional_and_ordered_dict_forms():
    def run(torch, nn):
        positional = nn.Sequential(nn.Linear(3, 4), nn.Identity(), nn.Linear(4, 2))
        named = nn.Sequential(OrderedDict([("fc1", nn.Linear(3, 4)), ("act", nn.Identity()),
                                           ("fc2", nn.Linear(4, 2, bias=False))]))
        nested = nn.Sequential(positional, nn.Sequential(), named)
        return layout(positional), layout(named), layout(nested), repr(nn.Sequential())

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_sequential_forward_chains_the_modules():
    theirs_seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Identity(), torch.nn.Linear(4, 2))
    ours_seq = nn_ref.Sequential(nn_ref.Linear(3, 4), nn_ref.Identity(), nn_ref.Linear(4, 2))
    copy_state(theirs_seq, ours_seq)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ours = ours_seq(nnref.tensor(x))
    theirs = theirs_seq(torch.tensor(x))
    assert values(ours) == values(theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("operation", [
    "getitem_int", "getitem_negative", "getitem_slice", "getitem_slice_named", "len", "iter",
    "setitem", "delitem_int", "delitem_negative", "delitem_slice", "append", "extend", "insert",
    "insert_negative", "insert_end", "pop", "add", "iadd",
])
def test_sequential_list_operations(operation):
    def run(torch, nn):
        a, b, c = nn.Linear(1, 2), nn.Linear(2, 3), nn.Linear(3, 4)
        seq = nn.Sequential(a, b, c)
        named = nn.Sequential(OrderedDict(first=nn.Linear(1, 1), second=nn.Identity(), third=nn.Linear(1, 2)))
        result = {
            "getitem_int": lambda: seq[1] is b,
            "getitem_negative": lambda: seq[-1] is c,
            "getitem_slice": lambda: layout(seq[1:]) + (type(seq[1:]).__name__, seq[1:][0] is b),
            "getitem_slice_named": lambda: layout(named[::2]),
            "len": lambda: len(seq),
            "iter": lambda: [m is x for m, x in zip(seq, (a, b, c))],
            "setitem": lambda: seq.__setitem__(1, nn.Identity()),
            "delitem_int": lambda: seq.__delitem__(0),
            "delitem_negative": lambda: named.__delitem__(-2),
            "delitem_slice": lambda: seq.__delitem__(slice(0, 2)),
            "append": lambda: seq.append(nn.Identity()) is seq,
            "extend": lambda: seq.extend([nn.Identity(), nn.Linear(4, 1)]) is seq,
            "insert": lambda: seq.insert(1, nn.Identity()) is seq,
            "insert_negative": lambda: seq.insert(-1, nn.Identity()) is seq,
            "insert_end": lambda: seq.insert(3, nn.Identity()) is seq,
            "pop": lambda: seq.pop(1) is b,
            "add": lambda: layout(seq + named),
            "iadd": lambda: (seq.__iadd__(nn.Sequential(nn.Identity())) is seq),
        }[operation]()
        return result, layout(seq), layout(named)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


@pytest.mark.parametrize("operation", ["getitem", "setitem", "delitem", "insert", "add_list",
                                       "insert_not_module"])
def test_sequential_errors(operation):
    def run(torch, nn):
        seq = nn.Sequential(nn.Linear(1, 1), nn.Identity())
        return raised({
            "getitem": lambda: seq[2],
            "setitem": lambda: seq.__setitem__(-3, nn.Identity()),
            "delitem": lambda: seq.__delitem__(5),
            "insert": lambda: seq.insert(4, nn.Identity()),
            "add_list": lambda: seq + [nn.Identity()],
            "insert_not_module": lambda: seq.insert(0, 3),
        }[operation])

    ours, theirs = run_both(run, torch)
    assert theirs is not None
    if operation == "insert_not_module":  # the message quotes the Module class, whose path differs
        assert ours[0] == theirs[0]
    else:
        assert ours == theirs


# -- ModuleList ------------------------------------------------------------------------------------
def test_module_list_repr_compresses_repeated_modules():
    def run(torch, nn):
        layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Identity(), nn.Linear(2, 1)]
                               + [nn.Sequential(nn.Linear(1, 1)) for _ in range(2)])
        return layout(layers), repr(nn.ModuleList()), repr(nn.ModuleList([nn.Identity()]))

    ours, theirs = run_both(run, torch)
    assert ours == theirs


@pytest.mark.parametrize("operation", ["getitem", "getitem_slice", "setitem", "delitem", "delitem_slice",
                                       "insert", "append", "extend", "iadd", "add", "pop", "len", "iter"])
def test_module_list_operations(operation):
    def run(torch, nn):
        a, b, c = nn.Linear(1, 1), nn.Linear(1, 2), nn.Identity()
        layers = nn.ModuleList([a, b, c])
        result = {
            "getitem": lambda: (layers[0] is a, layers[-1] is c),
            "getitem_slice": lambda: (type(layers[1:]).__name__, layout(layers[1:])),
            "setitem": lambda: layers.__setitem__(-1, nn.Linear(2, 2)),
            "delitem": lambda: layers.__delitem__(1),
            "delitem_slice": lambda: layers.__delitem__(slice(None, None, 2)),
            "insert": lambda: layers.insert(1, nn.Identity()),
            "append": lambda: layers.append(nn.Identity()) is layers,
            "extend": lambda: layers.extend((nn.Identity(), nn.Identity())) is layers,
            "iadd": lambda: layers.__iadd__([nn.Identity()]) is layers,
            "add": lambda: layout(layers + nn.ModuleList([nn.Identity()])),
            "pop": lambda: layers.pop(0) is a,
            "len": lambda: len(layers),
            "iter": lambda: [m is x for m, x in zip(layers, (a, b, c))],
        }[operation]()
        return result, layout(layers)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_module_list_errors_and_no_forward():
    def run(torch, nn):
        layers = nn.ModuleList([nn.Identity()])
        return (raised(lambda: layers[1]), raised(lambda: layers.extend(3)),
                raised(lambda: layers(torch.ones(1))), raised(lambda: layers.append(3)))

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_module_list_registers_parameters_and_moves_with_the_model():
    class Net(nn_ref.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn_ref.ModuleList([nn_ref.Linear(2, 2) for _ in range(3)])
            self.plain = [nn_ref.Linear(2, 2)]  # a Python list hides its modules

    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
        "layers.2.weight", "layers.2.bias"]
    net.double()
    assert net.layers[2].weight.dtype is nnref.float64
    assert net.plain[0].weight.dtype is nnref.float32


# -- ModuleDict ------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["dict", "ordered_dict", "pairs", "module_dict"])
def test_module_dict_construction_and_order(source):
    def run(torch, nn):
        items = [("conv", nn.Linear(1, 1)), ("act", nn.Identity()), ("bn", nn.Linear(1, 2))]
        arg = {"dict": lambda: dict(items), "ordered_dict": lambda: OrderedDict(items),
               "pairs": lambda: [list(p) for p in items],
               "module_dict": lambda: nn.ModuleDict(items)}[source]()
        md = nn.ModuleDict(arg)
        md["extra"] = nn.Identity()
        md.update([("act", nn.Linear(3, 3))])
        popped = md.pop("conv")
        return (layout(md), list(md), list(md.keys()), [type(v).__name__ for v in md.values()],
                [k for k, _ in md.items()], "bn" in md, "conv" in md, len(md), type(popped).__name__)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_module_dict_errors_and_clear():
    def run(torch, nn):
        md = nn.ModuleDict({"a": nn.Identity()})
        errors = [raised(lambda: md.update(3)), raised(lambda: md.update([3])),
                  raised(lambda: md.update([("a", nn.Identity(), 1)])), raised(lambda: md["b"]),
                  raised(lambda: md.__setitem__("x", 3))]
        del md["a"]
        md["b"] = nn.Identity()
        md.clear()
        return errors, layout(md)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


# -- ParameterList / ParameterDict ---------------------------------------------------------------
def test_parameter_list_wraps_tensors_and_prints_like_pytorch():
    def run(torch, nn):
        plist = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(3, dtype=torch.float64)])
        plist.append(torch.ones(1))
        plist.extend([nn.Parameter(torch.ones(4))])
        plist += [torch.ones(2, 2)]
        plist.append("not a tensor")
        kinds = [type(p).__name__ for p in plist]
        return (layout(plist), kinds, len(plist), layout(plist[1:3]), type(plist[1:3]).__name__,
                raised(lambda: plist(1)), raised(lambda: plist.extend(torch.ones(2))),
                raised(lambda: plist[10]))

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_parameter_list_setitem_and_state_dict():
    def run(torch, nn):
        plist = nn.ParameterList([torch.ones(1), torch.ones(2)])
        plist[0] = torch.zeros(5)
        plist[-1] = nn.Parameter(torch.ones(3))
        return list(plist.state_dict().keys()), [list(p.shape) for p in plist.parameters()]

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_parameter_dict_orders_and_prints_like_pytorch():
    def run(torch, nn):
        pdict = nn.ParameterDict({"b": nn.Parameter(torch.ones(2)), "a": torch.zeros(3, 1)})
        pdict["c"] = torch.ones(1, dtype=torch.float64)
        pdict.update(OrderedDict([("z", torch.ones(1)), ("y", torch.ones(2))]))
        pdict.update([("x", torch.ones(1))])
        pdict["note"] = "text"
        snapshot = (layout(pdict), list(pdict), list(pdict.keys()), [k for k, _ in pdict.items()],
                    len(pdict), "a" in pdict, pdict.get("missing", 7), list(reversed(pdict)))
        popped = pdict.pop("b")
        last = pdict.popitem()
        default = pdict.setdefault("d", torch.ones(2))
        copy = pdict.copy()
        merged = pdict | nn.ParameterDict({"w": torch.ones(1)})
        fresh = pdict.fromkeys(["k1", "k2"], torch.ones(1))
        errors = [raised(lambda: pdict[3]), raised(lambda: pdict(1)), raised(lambda: pdict.update(5)),
                  raised(lambda: pdict.update([(1, 2, 3)]))]
        pdict.clear()
        return (snapshot, type(popped).__name__, last[0], type(default).__name__, layout(copy),
                layout(merged), layout(fresh), errors, layout(pdict))

    ours, theirs = run_both(run, torch)
    assert ours == theirs


def test_parameter_containers_inside_a_model_are_trained():
    net = nn_ref.Module()
    net.plist = nn_ref.ParameterList([nnref.ones(2)])
    net.pdict = nn_ref.ParameterDict({"w": nnref.ones(2)})
    out = (net.plist[0] * net.pdict["w"] * 3).sum()
    out.backward()
    assert [n for n, _ in net.named_parameters()] == ["plist.0", "pdict.w"]
    assert net.plist[0].grad.tolist() == [3.0, 3.0]
