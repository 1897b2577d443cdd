"""Task ``module.named_members``: ``Module._named_members`` (chapter 07, Walking the tree).

``_named_members(get_members_fn, prefix="", recurse=True, remove_duplicate=True)``
walks the modules (``named_modules(prefix=..., remove_duplicate=...)``, or just
``(prefix, self)`` when ``recurse=False``), asks ``get_members_fn(module)``
for ``(name, tensor)`` pairs and yields ``(dotted_name, tensor)``.  ``None``
members are skipped; a tensor met before (tied weights) is skipped too, unless
``remove_duplicate=False``.  ``named_parameters`` and ``named_buffers`` are
this function with ``module._parameters.items()`` / ``module._buffers.items()``.
"""
import pytest

import nnref
import nnref.nn
from task_helpers import require_pytorch

PARAMETERS = ["0.weight", "0.bias", "1.weight", "1.bias", "2.weight"]
BUFFERS = ["1.running_mean", "1.running_var", "1.num_batches_tracked"]


def model(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                             lib.nn.Linear(3, 2, bias=False))


def tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Linear(3, 3)
            self.out = lib.nn.Linear(3, 3)
            self.out.weight = self.embed.weight

    return Tied()


def names(pairs):
    return [name for name, _ in pairs]


def test_named_parameters_and_buffers():
    net = model(nnref)
    assert names(net.named_parameters()) == PARAMETERS
    assert names(net.named_buffers()) == BUFFERS
    assert dict(net.named_parameters())["1.weight"] is net[1].weight


def test_prefix_and_recurse():
    net = model(nnref)
    assert names(net.named_parameters(prefix="net")) == ["net." + n for n in PARAMETERS]
    assert names(net.named_parameters(recurse=False)) == []
    assert names(net[0].named_parameters(recurse=False)) == ["weight", "bias"]
    assert names(net[0].named_parameters(prefix="x", recurse=False)) == ["x.weight", "x.bias"]


def test_tied_weights_come_once_unless_asked():
    net = tied(nnref)
    assert names(net.named_parameters()) == ["embed.weight", "embed.bias", "out.bias"]
    assert names(net.named_parameters(remove_duplicate=False)) == \
        ["embed.weight", "embed.bias", "out.weight", "out.bias"]
    assert len(list(net.parameters())) == 3


def test_any_kind_of_member():
    net = model(nnref)
    only_weights = net._named_members(
        lambda module: [(k, v) for k, v in module._parameters.items() if k == "weight"])
    assert names(only_weights) == ["0.weight", "1.weight", "2.weight"]


@pytest.mark.parametrize("build", [model, tied])
def test_same_as_pytorch(build):
    torch = require_pytorch()
    for kwargs in ({}, {"remove_duplicate": False}, {"prefix": "p"}, {"recurse": False}):
        assert names(build(nnref).named_parameters(**kwargs)) == \
            names(build(torch).named_parameters(**kwargs))
    assert names(build(nnref).named_buffers()) == names(build(torch).named_buffers())
