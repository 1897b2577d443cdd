"""Task ``module.named_modules``: ``Module.named_modules`` (chapter 07, Walking the tree).

``named_modules(memo=None, prefix="", remove_duplicate=True)`` yields
``(dotted_name, module)`` for the whole tree, pre-order: the module itself
first, named ``prefix``, then each child's subtree under
``prefix + "." + child_name`` (just ``child_name`` when ``prefix`` is empty).
``memo`` is the set of modules already yielded, so a module reachable along
two paths comes once, unless ``remove_duplicate=False``.  Children
registered as ``None`` are skipped.
"""
import pytest

import nnref
import nnref.nn
from task_helpers import require_pytorch

EXPECTED = ["", "stem", "blocks", "blocks.0", "blocks.0.fc", "blocks.0.act",
            "blocks.1", "blocks.1.fc", "blocks.1.act"]


def tree(lib):
    """The same little tree with nnref or PyTorch: a shared child, a None child, nesting."""
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(2, 2)
            self.act = lib.nn.ReLU()

    root = lib.nn.Module()
    root.stem = lib.nn.Linear(2, 2)
    root.blocks = lib.nn.Sequential(Block(), Block())
    root.register_module("missing", None)
    root.head = root.stem  # the same module under a second name
    return root


def names(pairs):
    return [name for name, _ in pairs]


def test_pre_order_names():
    assert names(tree(nnref).named_modules()) == EXPECTED


def test_yields_the_modules_themselves():
    root = tree(nnref)
    found = dict(root.named_modules())
    assert found[""] is root
    assert found["blocks.1.fc"] is root.blocks[1].fc


def test_prefix():
    assert names(tree(nnref).named_modules(prefix="model")) == \
        ["model"] + ["model." + name for name in EXPECTED[1:]]


def test_a_shared_module_comes_once_unless_asked():
    root = tree(nnref)
    assert names(root.named_modules(remove_duplicate=False)) == EXPECTED + ["head"]


def test_memo_given_by_the_caller():
    root = tree(nnref)
    memo = {root.blocks}
    assert names(root.named_modules(memo=memo)) == ["", "stem"]
    assert root in memo and root.stem in memo


def test_modules_and_parameters_build_on_it():
    root = tree(nnref)
    assert len(list(root.modules())) == len(EXPECTED)
    assert len(list(root.parameters())) == 6  # stem and two Block.fc, weight and bias each


@pytest.mark.parametrize("kwargs", [{}, {"remove_duplicate": False}, {"prefix": "p"}])
def test_same_as_pytorch(kwargs):
    torch = require_pytorch()
    assert names(tree(nnref).named_modules(**kwargs)) == names(tree(torch).named_modules(**kwargs))
