"""Hidden tests of ``module.named_modules``: the student's version against the reference."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import random

import nnref
import nnref.nn
from nnref.nn import Module
from task_helpers import same_objects


def reaches(start, target):
    """Whether ``target`` is ``start`` or below it (read from ``_modules``, not from the code under test)."""
    stack = [start]
    while stack:
        module = stack.pop()
        if module is target:
            return True
        stack.extend(m for m in module._modules.values() if m is not None)
    return False


def random_tree(seed, size=25):
    rng = random.Random(seed)
    modules = [Module()]
    for i in range(size):
        parent = rng.choice(modules)
        if modules[1:] and rng.random() < 0.2:
            child = rng.choice(modules[1:])  # a shared module; no cycles
            if reaches(child, parent):
                continue
        elif rng.random() < 0.1:
            child = None
        else:
            child = Module()
            modules.append(child)
        parent.register_module(f"m{i}", child)
    return modules[0]


def walk(root, **kwargs):
    pairs = list(root.named_modules(**kwargs))
    return list(zip([name for name, _ in pairs], same_objects(module for _, module in pairs)))


def test_random_trees_like_the_reference():
    for seed in range(30):
        root = random_tree(seed)
        for kwargs in ({}, {"remove_duplicate": False}, {"prefix": "top"}):
            expected = walk(root, **kwargs)
            assert walk(root, **kwargs) == expected, (seed, kwargs)


def test_memo_is_left_alone_without_remove_duplicate():
    root = random_tree(3)
    memo = set()
    list(root.named_modules(memo=memo, remove_duplicate=False))
    assert memo == set()


def test_a_module_in_memo_hides_its_subtree():
    net = nnref.nn.Sequential(nnref.nn.Sequential(nnref.nn.Linear(1, 1)), nnref.nn.ReLU())
    assert [n for n, _ in net.named_modules(memo={net[0]})] == ["", "1"]
    assert list(net.named_modules(memo={net})) == []
