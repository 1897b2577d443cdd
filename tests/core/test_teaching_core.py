"""The teaching core, ``nnref/core``: small enough to read in an afternoon, whole by itself,
and the base the rest of nnref (the mirror) is built on.

- its size: at most ``MAX_LINES`` lines, no file over ``MAX_FILE_LINES`` (``OVERSIZE`` lists the
  files still over it, a debt that may only shrink);
- its imports: nothing outside itself, at load time or inside a function; inside, each file
  imports only files of its rank or below (``CORE_RANKS``), so no import circle can form;
  methods defined above ``_tensor.py`` reach ``Tensor`` through ``_tensor.bind`` instead;
- its seams: called through their module, filled by the mirror when ``nnref`` is imported;
- alone (a copy of the folder, no ``nnref`` importable) it runs a backward pass and agrees
  with PyTorch;
- the chapters' listings show the core, and cover at least half of its lines.

Each import check is also run on a copy of the core with an import planted against the rule,
and must find it: a checker that found nothing there would pass vacuously.
"""
import ast
import collections
import json
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import nnref
from nnref.core import _seams

PACKAGE = pathlib.Path(nnref.__file__).parent
CORE = PACKAGE / "core"
BOOK = PACKAGE.parent / "book"
# Issue 25 asks for a core of about TARGET_LINES; MAX_LINES holds its size now (within 1% of it),
# a ceiling that may only come down.
TARGET_LINES, MAX_LINES, MAX_FILE_LINES = 5000, 5046, 600
# Core files still over MAX_FILE_LINES, each with the most lines it may have and why; the list
# may only shrink.
OVERSIZE = {}
# The chapters' listings cover at least half of the core's lines (52% when this was written).
LISTING_FLOOR = 0.5

# Lowest first; a core file may import files of its own rank and below (the longest listed
# prefix decides a file's rank).  The subpackages' __init__ files hold only a docstring.
CORE_RANKS = (
    ("_naming", "_seams", "_dtype", "_device", "utils"),
    ("autograd.grad_mode",),
    ("autograd.graph",),
    ("_tensor",),
    ("_tensor_str", "autograd.engine"),
    ("_views",),
    ("autograd.function", "_ops"),
    ("nn",),
    ("optim",),
)
THIRD_PARTY = {"numpy", "ml_dtypes"}


def core_files(root=CORE):
    return sorted(root.rglob("*.py"))


def dotted(path, root):
    """``nnref.core.autograd.graph`` for ``root/autograd/graph.py``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["nnref", "core", *parts])


def imports_of(path, root=CORE):
    """``(target, inside a function?, line)`` for every import in ``path``, relative imports
    resolved as if ``root`` were ``nnref/core``."""
    name = dotted(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            nested = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                    for alias in child.names if child.module is None else ():
                        found.append((f"{target}.{alias.name}", nested, child.lineno))
                    if child.module is not None:
                        found.append((target, nested, child.lineno))
                else:
                    found.append((child.module, nested, child.lineno))
            elif isinstance(child, ast.Import):
                found.extend((alias.name, nested, child.lineno) for alias in child.names)
            visit(child, nested)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def is_core(target):
    return target == "nnref.core" or target.startswith("nnref.core.")


def outside_imports(root=CORE):
    """Imports of anything but the core, the standard library, numpy and ml_dtypes."""
    bad = []
    for path in core_files(root):
        for target, inside, line in imports_of(path, root):
            top = target.split(".")[0]
            if is_core(target) or (top != "nnref" and (top in sys.stdlib_module_names
                                                      or top in THIRD_PARTY)):
                continue
            bad.append(f"{path.relative_to(root)}:{line}: {target}"
                       + (" (inside a function)" if inside else ""))
    return bad


def core_rank(module):
    """The rank of a core module; a subpackage's ``__init__`` ranks lowest, the core's top."""
    if module == "nnref.core":
        return len(CORE_RANKS)
    relative = module[len("nnref.core."):]
    best = None
    for level, prefixes in enumerate(CORE_RANKS):
        for prefix in prefixes:
            if (relative == prefix or relative.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (level, len(prefix))
    if best is None and (CORE / relative.replace(".", "/") / "__init__.py").exists():
        return 0
    return None if best is None else best[0]


def core_edges(root=CORE):
    """``(importer, imported, line)`` between core modules, a submodule named as such."""
    edges = []
    for path in core_files(root):
        importer = dotted(path, root)
        for target, _, line in imports_of(path, root):
            if not is_core(target) or target == importer:
                continue
            relative = target[len("nnref.core."):] if target != "nnref.core" else ""
            candidate = root.joinpath(*relative.split(".")) if relative else root
            while relative and not (candidate.with_suffix(".py").exists() or candidate.is_dir()):
                relative = relative.rpartition(".")[0]  # from .x import name: the module .x
                candidate = root.joinpath(*relative.split(".")) if relative else root
                target = "nnref.core" + ("." + relative if relative else "")
            if target != importer:
                edges.append((importer, target, line))
    return edges


def upward_imports(root=CORE):
    return [f"{importer} (rank {core_rank(importer)}) imports {target} (rank {core_rank(target)}), "
            f"line {line}" for importer, target, line in core_edges(root)
            if core_rank(target) is None or core_rank(importer) is None
            or core_rank(target) > core_rank(importer)]


def import_circles(root=CORE):
    """Each circle of imports among core modules (load-time and in-function alike), once."""
    graph = collections.defaultdict(set)
    for importer, target, _ in core_edges(root):
        if importer != "nnref.core" and target not in ("nnref.core",):
            # A package's __init__ runs before its submodules: an import of a submodule is not
            # an import of the package's own code, unless the package imports it back.
            graph[importer].add(target)
    circles, state = [], {}

    def walk(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node, [])
    return circles


# -- size -------------------------------------------------------------------------------------
def test_the_core_fits_its_budget():
    sizes = {path.relative_to(CORE).as_posix(): len(path.read_text().splitlines())
             for path in core_files()}
    too_big = {name: n for name, n in sizes.items()
               if n > OVERSIZE.get(name, (MAX_FILE_LINES,))[0]}
    assert not too_big, f"core files over {MAX_FILE_LINES} lines: {too_big}"
    stale = {name for name in OVERSIZE if sizes.get(name, 0) <= MAX_FILE_LINES}
    assert not stale, f"these files fit now: take them out of OVERSIZE: {stale}"
    assert sum(sizes.values()) <= MAX_LINES, (
        f"the core has {sum(sizes.values())} lines, over its ceiling of {MAX_LINES} (the target is "
        f"{TARGET_LINES}): move what the chapters do not teach to the mirror")


def test_the_reading_order_lists_every_core_file_once():
    files = sorted(path.relative_to(CORE).as_posix() for path in core_files()
                   if path.name != "__init__.py")
    assert sorted(nnref.core.READING_ORDER) == files
    assert len(set(nnref.core.READING_ORDER)) == len(nnref.core.READING_ORDER)


# -- imports ----------------------------------------------------------------------------------
def test_the_core_imports_nothing_outside_itself():
    assert outside_imports() == []


def test_core_files_import_only_their_rank_and_below():
    assert upward_imports() == []


def test_no_import_circle_is_left_in_the_core():
    assert import_circles() == []


def test_subpackage_inits_hold_only_a_docstring():
    for path in core_files():
        if path.name == "__init__.py" and path.parent != CORE:
            body = ast.parse(path.read_text()).body
            assert len(body) == 1 and isinstance(body[0], ast.Expr), path


@pytest.fixture
def planted(tmp_path):
    """A copy of the core, where a test may plant a bad import."""
    copy = tmp_path / "core"
    shutil.copytree(CORE, copy, ignore=shutil.ignore_patterns("__pycache__"))

    def plant(file, line, *, in_function):
        path = copy / file
        text = path.read_text()
        code = f"\n\ndef _planted():\n    {line}\n" if in_function else f"\n{line}\n"
        path.write_text(text + code)
        return copy
    return plant


def test_the_checks_find_a_planted_import_from_outside(planted):
    root = planted("_tensor.py", "from ..serialization import save", in_function=True)
    assert outside_imports(root) == [f"_tensor.py:{_last_line(root / '_tensor.py')}: "
                                     "nnref.serialization (inside a function)"]
    root = planted("autograd/graph.py", "import nnref", in_function=False)
    assert any("nnref" in line and "graph.py" in line for line in outside_imports(root))


def test_the_checks_find_a_planted_upward_import_and_its_circle(planted):
    root = planted("autograd/graph.py", "from .._tensor import Tensor", in_function=True)
    assert any("nnref.core.autograd.graph" in line and "nnref.core._tensor" in line
               for line in upward_imports(root))
    assert ["nnref.core._tensor", "nnref.core.autograd.graph", "nnref.core._tensor"] in import_circles(root)


def _last_line(path):
    return len(path.read_text().splitlines())


# -- seams ------------------------------------------------------------------------------------
def seam_modules():
    modules = []
    for path in core_files():
        module = sys.modules.get(dotted(path, CORE))
        if module is not None and getattr(module, "__seams__", ()):
            modules.append(module)
    return modules


def test_every_seam_has_a_default_and_a_comment_naming_the_mirror():
    assert {m.__name__ for m in seam_modules()} >= {"nnref.core._device", "nnref.core._views",
                                                     "nnref.core.autograd.engine",
                                                     "nnref.core.autograd.graph"}
    for module in seam_modules():
        source = pathlib.Path(module.__file__).read_text()
        for name in module.__seams__:
            assert re.search(rf"^(def {name}\(|{name} = )", source, re.M), (module.__name__, name)
        assert re.search(r"^# Seams?:.*\n(#.*\n)*", source, re.M), (
            f"{module.__name__}: say above the seams what the mirror puts there")


def test_no_file_copies_a_seam_by_importing_its_name():
    """``from nnref.core._device import has_values`` would keep the plain default forever."""
    seams = {(m.__name__, name) for m in seam_modules() for name in m.__seams__}
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
                module = ".".join(base + [node.module])
                copies += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {alias.name}"
                           for alias in node.names if (module, alias.name) in seams]
    assert copies == []


def test_the_mirror_fills_the_device_and_view_seams_on_import():
    from nnref.core import _device, _views
    filled = {name: value for module in (_device, _views)
              for name, value in _seams.seams_of(module).items()}
    assert all(value.__module__.startswith("nnref.") and not value.__module__.startswith("nnref.core")
               for value in filled.values()), {n: v.__module__ for n, v in filled.items()}


def test_modes_fill_the_engine_seams_only_while_they_are_on():
    from nnref.core.autograd import engine, graph
    assert engine.gradient_checker is None and graph.forward_watcher is None
    with nnref.autograd.detect_anomaly():
        assert engine.gradient_checker is not None and graph.forward_watcher is not None
    assert engine.gradient_checker is None and graph.forward_watcher is None
    with nnref.autograd.profiler.profile():
        assert engine.profiler is not None
    assert engine.profiler is None


def test_install_refuses_a_name_that_is_not_a_seam():
    from nnref.core import _device
    with pytest.raises(AttributeError, match="not a seam"):
        _seams.install(_device, "array_module", lambda dev: None)


# -- the core alone ---------------------------------------------------------------------------
CORE_ALONE = r"""
import json, sys
import numpy as np
import core
from core._tensor import Tensor
from core.autograd.function import Function

class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor._make(a._data * b._data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return Tensor._make(grad._data * b._data), Tensor._make(grad._data * a._data)

class Sum(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.shape = a._data.shape
        return Tensor._make(a._data.sum())

    @staticmethod
    def backward(ctx, grad):
        return Tensor._make(np.broadcast_to(grad._data, ctx.shape).copy())

x = Tensor._make(np.array([1.5, -2.0, 3.25], dtype=np.float32)).requires_grad_()
w = Tensor._make(np.array([0.5, 4.0, -1.0], dtype=np.float32)).requires_grad_()
seen = []
x.register_hook(lambda g: seen.append(g._data.tolist()))
v = Tensor._make(np.array([2.0, -0.75, 1.25], dtype=np.float32))
loss = Sum.apply(Mul.apply(Mul.apply(x, w), v))          # sum(x*w*v)
loss.backward()
print(json.dumps({
    "nnref_loaded": any(name == "nnref" or name.startswith("nnref.") for name in sys.modules),
    "loss": loss._data.item(), "x_grad": x.grad._data.tolist(), "w_grad": w.grad._data.tolist(),
    "hook": seen, "grad_fn": type(loss.grad_fn).__name__, "repr": repr(x.detach()),
    "to": str(x.detach().to(core._dtype.float64)._data.dtype),
}))
"""


def test_the_core_alone_runs_a_backward_pass_that_agrees_with_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    shutil.copytree(CORE, tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
                          + CORE_ALONE], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    ours = json.loads(run.stdout)
    assert ours["nnref_loaded"] is False
    x = torch.tensor([1.5, -2.0, 3.25], requires_grad=True)
    w = torch.tensor([0.5, 4.0, -1.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    loss = ((x * w) * torch.tensor([2.0, -0.75, 1.25])).sum()
    loss.backward()
    assert ours["loss"] == pytest.approx(loss.item(), rel=1e-6)
    assert ours["x_grad"] == pytest.approx(x.grad.tolist(), rel=1e-6)
    assert ours["w_grad"] == pytest.approx(w.grad.tolist(), rel=1e-6)
    assert len(ours["hook"]) == 1 and ours["hook"][0] == pytest.approx(seen[0], rel=1e-6)
    assert ours["grad_fn"] == "SumBackward"
    assert ours["repr"] == repr(x.detach()) and ours["to"] == "float64"


CORE_ALONE_MLP = r"""
import json, sys
import numpy as np
import core
from core._tensor import Tensor

def tensor(values):
    return Tensor._make(np.array(values, dtype=np.float32))

x = tensor(DATA["x"])
w1, b1 = tensor(DATA["w1"]).requires_grad_(), tensor(DATA["b1"]).requires_grad_()
w2, b2 = tensor(DATA["w2"]).requires_grad_(), tensor(DATA["b2"]).requires_grad_()
h = (x @ w1.t() + b1).relu()
logits = h @ w2.t() + b2
log_probs = logits.log_softmax(1)
# h is used twice (logits and the penalty): its gradients are added with Tensor.__add__.
loss = -log_probs.mean() + (h * h).sum() * 0.01 + (logits.softmax(1) - 0.5).pow(2).sum() / 4
loss.backward()
batched = (tensor(DATA["x"]).view(2, 2, 3) @ w1.t().unsqueeze(0)).sigmoid().tanh().exp().log()
values, indices = batched.max(2)
print(json.dumps({
    "nnref_loaded": any(name == "nnref" or name.startswith("nnref.") for name in sys.modules),
    "loss": loss._data.item(), "grads": [t.grad._data.tolist() for t in (w1, b1, w2, b2)],
    "grad_fns": [type(t.grad_fn).__name__ for t in (h, logits, log_probs, loss, batched, values)],
    "max": values._data.tolist(), "indices": indices._data.tolist(),
}))
"""


def test_the_core_alone_trains_an_mlp_step_as_pytorch_does(tmp_path):
    """Tensor ops of the core only: ``x @ W.t() + b``, relu, log_softmax, a mean and a sum, a
    tensor used twice; values, gradients and grad_fn names against PyTorch's."""
    torch = pytest.importorskip("torch")
    generator = torch.Generator().manual_seed(0)
    data = {"x": torch.randn(4, 3, generator=generator), "w1": torch.randn(5, 3, generator=generator),
            "b1": torch.randn(5, generator=generator), "w2": torch.randn(2, 5, generator=generator),
            "b2": torch.randn(2, generator=generator)}
    shutil.copytree(CORE, tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    script = f"DATA = {json.dumps({k: v.tolist() for k, v in data.items()})}\n" + CORE_ALONE_MLP
    run = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
                          + script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    ours = json.loads(run.stdout)
    assert ours["nnref_loaded"] is False
    x = data["x"]
    w1, b1, w2, b2 = (data[k].clone().requires_grad_() for k in ("w1", "b1", "w2", "b2"))
    h = (x @ w1.t() + b1).relu()
    logits = h @ w2.t() + b2
    log_probs = logits.log_softmax(1)
    loss = -log_probs.mean() + (h * h).sum() * 0.01 + (logits.softmax(1) - 0.5).pow(2).sum() / 4
    loss.backward()
    batched = (x.view(2, 2, 3) @ w1.t().unsqueeze(0)).sigmoid().tanh().exp().log()
    values, indices = batched.max(2)
    assert ours["loss"] == pytest.approx(loss.item(), rel=1e-5)
    for got, t in zip(ours["grads"], (w1, b1, w2, b2)):
        assert np.allclose(got, t.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert ours["grad_fns"] == [type(t.grad_fn).__name__ for t in (h, logits, log_probs, loss, batched, values)]
    assert np.allclose(ours["max"], values.detach().numpy(), rtol=1e-6) and ours["indices"] == indices.tolist()


# -- the chapters show the core ---------------------------------------------------------------
_LISTING = re.compile(r"<code>(nnref/[\w/.]+\.py), lines (\d+)\u2013(\d+)</code>")


def chapter_listings():
    """``{file: shown line numbers}`` from the chapters' stored outputs (nbval keeps them equal
    to what the chapters print now)."""
    shown = collections.defaultdict(set)
    for notebook in sorted(BOOK.glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            for output in cell.get("outputs", []):
                page = output.get("data", {}).get("text/html", "")
                for file, first, last in _LISTING.findall("".join(page)):
                    shown[file].update(range(int(first), int(last) + 1))
    return shown


def listings_outside_the_core(first=1, last=13):
    """``chapter: [file, ...]`` for each listing of chapters ``first``..``last`` that shows a file
    outside ``nnref/core/`` (read from the stored outputs' headers, as ``chapter_listings``)."""
    outside = collections.defaultdict(list)
    for notebook in sorted(BOOK.glob("[0-9][0-9]_*.ipynb")):
        if not first <= int(notebook.name[:2]) <= last:
            continue
        for cell in json.loads(notebook.read_text())["cells"]:
            for output in cell.get("outputs", []):
                page = "".join(output.get("data", {}).get("text/html", ""))
                outside[notebook.stem] += [file for file, _, _ in _LISTING.findall(page)
                                           if not file.startswith("nnref/core/")
                                           and file not in outside[notebook.stem]]
    return {chapter: files for chapter, files in outside.items() if files}


def test_every_listing_of_chapters_1_to_13_shows_the_core():
    """The notes teach the core: a listing of mirror code (``nnref/nn/modules/lazy.py``) is
    replaced by a sentence naming the file, or the piece moves into the core."""
    assert listings_outside_the_core() == {}


def test_the_listing_check_names_a_chapter_that_shows_the_mirror(tmp_path, monkeypatch):
    page = ('<div><code>nnref/core/_tensor.py, lines 1\u20132</code></div>'
            '<div><code>nnref/nn/modules/lazy.py, lines 48\u201357</code></div>')
    cell = {"cell_type": "code", "outputs": [{"data": {"text/html": [page]}}]}
    for name in ("06_x.ipynb", "14_y.ipynb"):  # 14 is past the chapters that teach the core
        (tmp_path / name).write_text(json.dumps({"cells": [cell]}))
    monkeypatch.setattr(sys.modules[__name__], "BOOK", tmp_path)
    assert listings_outside_the_core() == {"06_x": ["nnref/nn/modules/lazy.py"]}


def test_the_chapters_listings_cover_the_core():
    shown = chapter_listings()
    sizes = {path.relative_to(PACKAGE.parent).as_posix(): len(path.read_text().splitlines())
             for path in core_files()}
    covered = sum(len(shown.get(file, ())) for file in sizes)
    never = sorted(f for f, n in sizes.items() if n > 3 and not shown.get(f))
    assert covered / sum(sizes.values()) >= LISTING_FLOOR, (
        f"the chapters show {covered} of the core's {sum(sizes.values())} lines (at least "
        f"{LISTING_FLOOR:.0%} must be); never shown: {never}")


def test_the_readme_gives_the_halves_current_sizes():
    sys.path.insert(0, str(PACKAGE.parent / "tools"))
    try:
        import readme_sizes
    finally:
        sys.path.pop(0)
    text = (PACKAGE.parent / "README.md").read_text()
    assert readme_sizes.BLOCK.search(text), "README.md lost its <!-- sizes --> block"
    assert readme_sizes.written(text) == text, "README's sizes are stale: run python tools/readme_sizes.py"


def test_the_source_map_marks_every_module_core_or_mirror():
    notebook = json.loads((BOOK / "source_map.ipynb").read_text())
    table = next("".join(output["data"]["text/markdown"]) for cell in notebook["cells"]
                 for output in cell.get("outputs", []) if "text/markdown" in output.get("data", {})
                 and "| half |" in "".join(output["data"]["text/markdown"]))
    halves = dict(re.findall(r"^\| \*\*`(nnref[\w.]*)`\*\*.*? \| (core|mirror) \| ", table, re.M))
    assert halves and all((half == "core") == name.startswith("nnref.core") for name, half in halves.items())
    assert {dotted(path, CORE) for path in core_files()} <= set(halves)


# -- the core's layers train a small CNN as PyTorch does --------------------------------------
CORE_CNN = r"""
import importlib, json, sys
import numpy as np

package, start = sys.argv[1], json.loads(sys.stdin.read())
if package == "nnref.core":  # the full package, with the core's own functions in the seams
    import nnref
    from nnref.core import _seams
    from nnref.core.nn import functional
    _seams.install(functional, "exact", {})
core = importlib.import_module(package)
Tensor = core._tensor.Tensor
nn = importlib.import_module(package + ".nn.modules")
F = importlib.import_module(package + ".nn.functional")
layers = [importlib.import_module(f"{package}.nn.modules.{name}")
          for name in ("conv", "batchnorm", "dropout", "linear", "loss")]
SGD = importlib.import_module(package + ".optim.sgd").SGD
Adam = importlib.import_module(package + ".optim.adam").Adam
conv, bn = layers[0].Conv2d(1, 4, 3, padding=1), layers[1].BatchNorm2d(4)
drop, fc = layers[2].Dropout(0.5), layers[3].Linear(4 * 3 * 3, 5)
drop.eval()  # no random mask: the comparison is deterministic
loss_fn = layers[4].CrossEntropyLoss()
for name, p in [("conv.weight", conv.weight), ("conv.bias", conv.bias), ("fc.weight", fc.weight),
                ("fc.bias", fc.bias)]:
    p._data[...] = np.array(start[name], np.float32)
opts = [SGD([conv.weight, conv.bias, bn.weight, bn.bias], lr=0.1, momentum=0.9),
        Adam([fc.weight, fc.bias], lr=0.01, weight_decay=0.1)]
x = Tensor._make(np.array(start["x"], np.float32))
y = Tensor._make(np.array(start["y"], np.int64))
losses = []
for _ in range(3):
    for opt in opts:
        opt.zero_grad()
    h = F.max_pool2d(F.relu(bn(conv(x))), 2)
    loss = loss_fn(fc(drop(h.reshape(h.shape[0], -1))), y)
    loss.backward()
    for opt in opts:
        opt.step()
    losses.append(float(loss._data))
print(json.dumps({"losses": losses, "grad_fn": type(loss.grad_fn).__name__,
                  "conv.weight": conv.weight._data.tolist(), "fc.weight": fc.weight._data.tolist(),
                  "running_mean": bn.running_mean._data.tolist(),
                  "running_var": bn.running_var._data.tolist()}))
"""


@pytest.mark.parametrize("alone", [True, False], ids=["core_alone", "core_functions_in_nnref"])
def test_the_core_layers_train_a_cnn_as_pytorch_does(tmp_path, alone):
    """Conv2d -> BatchNorm2d -> relu -> max_pool2d -> flatten -> Dropout -> Linear ->
    cross_entropy, three steps of SGD (momentum) and Adam (weight decay) from PyTorch's initial weights: the core alone, and the core's
    plain functions run inside ``import nnref`` (its ``exact_*`` seams emptied)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    conv, bn = torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4)
    drop, fc = torch.nn.Dropout(0.5), torch.nn.Linear(4 * 3 * 3, 5)
    x, y = torch.randn(6, 1, 7, 7), torch.tensor([0, 1, 2, 3, 4, 1])
    start = {"conv.weight": conv.weight.tolist(), "conv.bias": conv.bias.tolist(),
             "fc.weight": fc.weight.tolist(), "fc.bias": fc.bias.tolist(),
             "x": x.tolist(), "y": y.tolist()}
    drop.eval()
    opts = [torch.optim.SGD([*conv.parameters(), *bn.parameters()], lr=0.1, momentum=0.9),
            torch.optim.Adam(fc.parameters(), lr=0.01, weight_decay=0.1)]
    losses = []
    for _ in range(3):
        for opt in opts:
            opt.zero_grad()
        h = torch.nn.functional.max_pool2d(torch.relu(bn(conv(x))), 2)
        loss = torch.nn.functional.cross_entropy(fc(drop(h.flatten(1))), y)
        loss.backward()
        for opt in opts:
            opt.step()
        losses.append(loss.item())
    if alone:
        shutil.copytree(CORE, tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
        command = [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
                   + CORE_CNN, "core"]
    else:
        command = [sys.executable, "-c", CORE_CNN, "nnref.core"]
    run = subprocess.run(command, input=json.dumps(start), capture_output=True, text=True,
                         cwd=tmp_path if alone else PACKAGE.parent, timeout=120)
    assert run.returncode == 0, run.stderr
    ours = json.loads(run.stdout)
    assert ours["losses"] == pytest.approx(losses, rel=1e-5)
    assert ours["grad_fn"] == "NllLossBackward0"
    for name, theirs in [("conv.weight", conv.weight), ("fc.weight", fc.weight),
                         ("running_mean", bn.running_mean), ("running_var", bn.running_var)]:
        assert np.allclose(ours[name], theirs.detach().numpy(), rtol=1e-5, atol=1e-6), name
