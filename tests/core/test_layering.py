"""nnref's layers: each part imports only the parts below it, as PyTorch's do.

The rank order, lowest first (a module may import its own rank and those below):

0. ``core`` (the teaching core, which imports nothing outside itself: its own order is
   ``tests/core/test_teaching_core.py``'s), ``_meta``, ``_cupy`` (and ``_namespace``, ``_source``,
   ``_type_info``, ``_half``, ``_device_extras``, ``_settings``, ``_capability``, ``_numpy_names``): the
   tensor and its autograd, the devices beyond the CPU, the process-wide switches, numpy's argument names,
   c10's 16-bit float conversion and the CPU's kernels;
1. ``_ops``, ``autograd``, the factories, the generators, ``cuda``, ``accelerator`` and
   ``distributed`` (the process group): the mirror's operations and their derivatives, and
   where they run;
2. ``nn``, ``optim``, ``utils.data``, ``distributions``: what is built from tensors;
3. ``serialization``, ``viz``, ``utils.safetensors``: what reads or draws the above;
4. the ``nnref`` namespace itself, which gathers everything.

An import against the order is allowed only inside a function (it runs after every module
has loaded, so it cannot fail at load time) and only where ``ALLOWED_UPWARD`` lists it with its
reason.  Inside a function or not, no import may close a circle: two modules that reach each
other through imports are one tangle, which neither can be read, tested or changed without.
The one tie between ``Tensor`` and the operations is not an import of the core's: the mirror's
``_ops`` binds every method onto ``Tensor`` (``nnref.core._tensor.bind``).  These tests read the
source; a new upward import fails with its file and line, a new circle with its modules.
"""
import ast
import collections
import functools
import pathlib

import nnref

PACKAGE = pathlib.Path(nnref.__file__).parent

RANKS = {
    0: ("nnref.core", "nnref._meta", "nnref._cupy", "nnref._namespace", "nnref._source",
        "nnref._type_info", "nnref._tensor_str", "nnref._layout", "nnref._device_extras", "nnref._settings",
        "nnref._capability", "nnref._numpy_names", "nnref._half"),
    1: ("nnref._tensor_docs", "nnref._tensor_extras", "nnref._ops", "nnref.autograd", "nnref._creation", "nnref._random",
        "nnref._state_transfer",
        "nnref.random", "nnref.utils.hooks", "nnref.cuda", "nnref.accelerator", "nnref.linalg",
        "nnref.amp", "nnref.backends", "nnref.distributed"),
    2: ("nnref.nn", "nnref.optim", "nnref.utils.data", "nnref.distributions"),
    3: ("nnref.serialization", "nnref._checkpoint_io", "nnref._torch_checkpoint", "nnref._pickled_checkpoint",
        "nnref._safetensors", "nnref.utils.safetensors",
        "nnref.viz", "nnref.testing", "nnref.utils", "nnref.compiler"),
    4: ("nnref",),
}

# (importing module, imported module) -> why this in-function import goes up the order.
ALLOWED_UPWARD = {}


def rank(module):
    """The rank of ``module``: that of the longest prefix listed in RANKS."""
    best = None
    for level, prefixes in RANKS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (level, len(prefix))
    return None if best is None else best[0]


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def nnref_imports(path):
    """``(imported module, inside a function?, line)`` for each import of nnref code in ``path``.

    ``from .. import div`` names the package ``nnref`` (a name from its namespace);
    ``from ..x import y`` names module ``nnref.x``.
    """
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target == "nnref" or target.startswith("nnref."):
                    if child.module is None:  # from .. import name: maybe a submodule
                        for alias in child.names:
                            sub = f"{target}.{alias.name}"
                            found.append((sub if rank(sub) is not None and sub != target and
                                          _is_module(sub) else target, inside, child.lineno))
                    else:
                        found.append((target, inside, child.lineno))
            elif isinstance(child, ast.Import):
                found.extend((a.name, inside, child.lineno) for a in child.names
                             if a.name == "nnref" or a.name.startswith("nnref."))
            visit(child, inside)

    visit(tree, False)
    return found


@functools.cache
def _is_module(dotted):
    relative = pathlib.Path(*dotted.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative).is_dir()


@functools.cache  # the source does not change while the tests run; parsing it all takes seconds
def all_imports():
    return tuple((module_name(path), path, target, inside, line)
                 for path in sorted(PACKAGE.rglob("*.py"))
                 for target, inside, line in nnref_imports(path))


def test_every_module_has_a_rank():
    unranked = sorted({module_name(p) for p in PACKAGE.rglob("*.py") if rank(module_name(p)) is None})
    assert not unranked, f"give these modules a rank in RANKS: {unranked}"


def test_no_module_imports_a_higher_layer_at_load_time():
    upward = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module} (rank {rank(module)}) imports "
              f"{target} (rank {rank(target)})"
              for module, path, target, inside, line in all_imports()
              if not inside and rank(target) > rank(module)]
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_upward_imports_inside_functions_are_the_listed_ones():
    found = {(module, target) for module, _, target, inside, _ in all_imports()
             if inside and rank(target) > rank(module)}
    unlisted = sorted(found - set(ALLOWED_UPWARD))
    assert not unlisted, ("in-function imports against the layer order; remove them or list each "
                          f"in ALLOWED_UPWARD with its reason: {unlisted}")
    stale = sorted(set(ALLOWED_UPWARD) - found)
    assert not stale, f"ALLOWED_UPWARD lists imports that no longer exist: {stale}"


def test_the_checker_sees_relative_imports_and_function_scope():
    """The parser resolves ``from ..x import y`` from a file's package and tells load-time
    imports from in-function ones (otherwise the tests above would pass vacuously)."""
    imports = nnref_imports(PACKAGE / "nn" / "modules" / "module.py")
    assert ("nnref._creation", True, next(  # Module.to_empty's
        line for target, inside, line in imports if target == "nnref._creation")) in imports
    assert any(target.startswith("nnref.core.nn") and not inside for target, inside, _ in imports)
    assert rank("nnref.nn.modules.module") == 2 and rank("nnref.utils.hooks") == 1
    assert rank("nnref.utils.safetensors") == 3 and rank("nnref") == 4


def import_graph():
    """``{module: the nnref modules it imports}``, in-function imports included.  ``from .. import
    name`` of a name that is no module is an import of the package that defines the name (for
    ``nnref``: its namespace, which imports every part)."""
    graph = collections.defaultdict(set)
    for module, _, target, _, _ in all_imports():
        while target != "nnref" and not _is_module(target):
            target = target.rpartition(".")[0]
        if target != module:
            graph[module].add(target)
    return graph


def circles(graph):
    """The strongly connected components of ``graph`` with more than one node, each sorted:
    the sets of modules that all reach one another (Tarjan's algorithm, iterative, so a long
    chain of imports cannot exhaust Python's recursion limit)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def test_circles_finds_each_cycle_and_nothing_else():
    """The cycle finder on graphs whose answer is known by hand: a planted two-module circle, a
    three-module ring joined to it by a one-way edge, a self-contained chain and a diamond."""
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"e"}, "e": {"c"},
             "p": {"q", "r"}, "q": {"s"}, "r": {"s"}, "s": set(), "x": {"y"}}
    assert circles(graph) == [["a", "b"], ["c", "d", "e"]]
    assert circles({k: v - {"a"} for k, v in graph.items()}) == [["c", "d", "e"]]
    assert circles({"p": {"q"}, "q": {"r"}, "r": set()}) == []
    chain = {f"m{i}": {f"m{i + 1}"} for i in range(5000)}  # deeper than the recursion limit
    assert circles(chain) == []
    chain["m5000"] = {"m0"}
    assert circles(chain) == [sorted(chain)]


def test_the_import_graph_counts_in_function_and_namespace_imports():
    """The graph has the edges a circle would run through: an in-function import (Module.to_empty's
    of _creation) and an import of the ``nnref`` namespace (which imports every part)."""
    graph = import_graph()
    assert "nnref._creation" in graph["nnref.nn.modules.module"]
    assert {"nnref.nn", "nnref.serialization", "nnref.autograd"} <= graph["nnref"]
    planted = {module: set(targets) for module, targets in graph.items()}
    planted["nnref.nn.functional"].add("nnref")  # `from .. import div` inside F.normalize, as it was
    assert {"nnref", "nnref.nn", "nnref.nn.functional"} <= set(next(
        circle for circle in circles(planted) if "nnref" in circle))


def test_no_import_circle():
    """No two nnref modules import each other, directly or around a ring, at load time or
    inside a function."""
    found = circles(import_graph())
    assert not found, "import circles (break each by moving the shared code down, or a seam):\n" + (
        "\n".join(" <-> ".join(circle) for circle in found))
