"""The child process of ``coursekit.twins``: list each nnref task's candidate twins and screen them.

``python _twins_child.py COURSE SCREEN_SECONDS COURSEKIT_PARENT`` reads the
tasks (JSON) on stdin and prints ``{task id: {"arguments", "generator",
"candidates": [{"label", "module", "names", "screen"}]}}``.  It runs on
``COURSE``'s nnref (the first entry of ``sys.path``), imported here and
nowhere in the grader's process.  It runs the course's own code only (the
reference nnref and its visible task tests), never a student's.
"""
import ast
import importlib
import inspect
import json
import os
import pkgutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# The screen's pytest runs one test file: no plugins (they would cost most of each run).
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"

# The optimizers' fused/foreach updates, beside what the seams hold now.
FUSED = ["nnref.optim._fused"]
CONTROL = "the reference solution (control)"  # coursekit.twins.CONTROL


def attribute(module, names):
    value = module
    for name in names:
        value = getattr(value, name)
    return value


def mirror_of(module_name):
    """The mirror's module of a core module (``nnref.core.optim.sgd`` -> ``nnref.optim.sgd``), if there is one."""
    if not module_name.startswith("nnref.core."):
        return None
    try:
        return importlib.import_module("nnref." + module_name[len("nnref.core."):])
    except ImportError:
        return None


def installed(root):
    """Each function an ``install(module, "seam", value)`` of nnref puts in a seam (a mode's too)."""
    found = []
    for path in sorted((root / "nnref").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "install" and len(node.args) == 3:
                value = node.args[2]
                # install(module, "seam", f if enabled else None): a mode's function counts too
                for choice in (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,):
                    if isinstance(choice, ast.Name):
                        found.append(getattr(importlib.import_module(name), choice.id, None))
    return found


def binds(function, positional, star, keywords, dstar):
    """Whether ``function`` takes the task function's arguments (as many positional, its keywords, and
    more of each where the task function takes ``*args``/``**kwargs``)."""
    try:
        signature = inspect.signature(function)
        signature.bind(*range(positional), **{k: 0 for k in keywords})
        if star:
            signature.bind(*range(positional + 2), **{k: 0 for k in keywords})
        if dstar:
            signature.bind(*range(positional), **{k: 0 for k in keywords}, _twin_extra=0)
    except (TypeError, ValueError):
        return False
    return True


def pool(root, task):
    """``(label, module, attribute names)`` for each place a candidate may be, seams first."""
    from nnref.core import _seams
    import nnref.core
    core = [importlib.import_module(m.name) for m in pkgutil.walk_packages(nnref.core.__path__, "nnref.core.")]
    places = [(f"the seam {m.__name__}.{seam}", m.__name__, [seam])
              for m in core for seam in getattr(m, "__seams__", ())]
    # what the mirror installs, where it is defined (the seam may be empty now: a mode installs it)
    for value in installed(root) + [v for m in core for v in _seams.seams_of(m).values()]:
        if callable(value) and hasattr(value, "__qualname__"):
            places.append((f"{value.__module__}.{value.__qualname__}", value.__module__,
                           value.__qualname__.split(".")))
    module = importlib.import_module(task["module"])
    mine = [m for m in (module, mirror_of(module.__name__)) if m is not None]
    path = task["where"].split(".")[:-1]
    if path:  # a method: its class's attributes (inherited and attached ones), and its subclasses'
        owner = attribute(module, path)
        classes = [(module.__name__, path, owner)] + [
            (home.__name__, [name], value) for home in mine for name, value in vars(home).items()
            if isinstance(value, type) and issubclass(value, owner) and value is not owner]
        places += [(".".join([home, *names, name]), home, [*names, name])
                   for home, names, cls in classes for name in dir(cls)]
    for home in mine + [importlib.import_module(m) for m in FUSED]:
        places += [(f"{home.__name__}.{name}", home.__name__, [name]) for name in sorted(vars(home))]
    return places


def listing_of(root, task):
    """The task function's arguments and the candidates that take them (nnref's Python functions only)."""
    module = importlib.import_module(task["module"])
    target = attribute(module, task["where"].split("."))
    parameters = list(inspect.signature(target).parameters.values())
    kinds = inspect.Parameter
    positional = [p.name for p in parameters if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in parameters if p.kind == kinds.VAR_POSITIONAL), None)
    keywords = [p.name for p in parameters if p.kind == kinds.KEYWORD_ONLY]
    dstar = next((p.name for p in parameters if p.kind == kinds.VAR_KEYWORD), None)
    seen, candidates = set(), []
    for label, home, names in pool(root, task):
        try:
            value = attribute(importlib.import_module(home), names)
        except (AttributeError, ImportError):
            continue
        function = getattr(value, "__func__", value)
        if not inspect.isfunction(function) or not function.__module__.startswith("nnref"):
            continue  # classes, C functions, other libraries'
        key = (label.startswith("the seam"), id(function))  # a seam is tried as such, and where it is defined
        if function is target or key in seen:
            continue
        seen.add(key)
        if binds(value, len(positional), star, keywords, dstar):
            candidates.append({"label": label, "module": home, "names": names})
    arguments = positional + ([f"*{star}"] if star else []) + [f"{k}={k}" for k in keywords] + \
        ([f"**{dstar}"] if dstar else [])
    return {"arguments": arguments, "generator": inspect.isgeneratorfunction(target), "candidates": candidates,
            "control": {"label": CONTROL, "control": True}}


def screen(root, task, listing, candidate, scratch):
    """Fork a child that exits 0 if the task's visible tests pass with its code only calling ``candidate``.

    A fast first pass, on the reference nnref as it is (its twins whole): a candidate that fails
    its task's visible tests here cannot pass them in the grader, which also runs the hidden ones.
    The task's function is rebuilt from its source with the same delegate bodies the grader gets,
    and put wherever the reference has it.
    """
    import pytest
    import coursekit.twins  # noqa: F401 (imported once, here: patch() finds it in sys.modules)

    pid = os.fork()
    if pid:
        return pid
    status = 3
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        if not candidate.get("control"):  # the control runs the tests on the reference as it is
            patch(root, task, listing, candidate)
        # --tb=no: nobody reads a failure's traceback here (a recursion's is a thousand frames to format)
        status = pytest.main(["-q", "-x", "--tb=no", "-p", "no:cacheprovider", "--rootdir", str(scratch), "-c",
                              str(scratch / "pytest.ini"), str(root / task["tests"])])
    finally:
        os._exit(int(status))


def patch(root, task, listing, candidate):
    """Put the task's function, rebuilt with its body only calling ``candidate``, wherever the reference has it."""
    from coursekit.markers import SOLUTION, find_regions
    from coursekit.twins import delegate_lines

    module = importlib.import_module(task["module"])
    names = task["where"].split(".")
    owner, original = attribute(module, names[:-1]), attribute(module, names)
    source = (root / task["path"]).read_text(encoding="utf-8")
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == names[-1] and n.lineno == original.__code__.co_firstlineno)
    # the function's lines, through its last END marker (a comment after its last statement)
    ends = [r.end + 1 for r in find_regions(source) if r.kind == SOLUTION
            and r.meta.get("task") == task["id"] and node.lineno <= r.begin + 1 <= node.end_lineno]
    lines = source.splitlines()[node.lineno - 1:max([node.end_lineno, *ends])]
    regions = [r for r in find_regions("\n".join(lines)) if r.kind == SOLUTION and r.meta.get("task") == task["id"]]
    out, position = [], 0
    for region, body in zip(regions, delegate_lines(regions, listing, candidate)):
        out += lines[position:region.begin] + [body]
        position = region.end + 1
    namespace = module.__dict__ if owner is module else dict(module.__dict__)
    exec(compile(textwrap.dedent("\n".join(out + lines[position:])), str(root / task["path"]), "exec"), namespace)
    replacement = namespace[names[-1]]
    setattr(owner, names[-1], replacement)
    # every other name of the task's function (``__call__ = _call_impl``), as the grader's source has it
    for other in [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "nnref" and m is not None]:
        for space in [other, *[v for v in vars(other).values() if isinstance(v, type)]]:
            for name, value in list(vars(space).items()):
                if value is original:
                    setattr(space, name, replacement)


def screen_all(root, jobs, seconds, scratch):
    """Screen ``jobs`` (``(task, listing, candidate)``), two at a time; set each candidate's ``screen``.

    A screen that runs out of time rules nothing out: its candidate goes to the grader.
    """
    running, waiting = {}, list(jobs)
    while running or waiting:
        while waiting and len(running) < 2:
            task, listing, candidate = waiting.pop(0)
            running[screen(root, task, listing, candidate, scratch)] = (candidate, time.monotonic() + seconds)
        for pid, (candidate, deadline) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if not done and time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                candidate["screen"] = True
                del running[pid]
            elif done:
                candidate["screen"] = os.waitstatus_to_exitcode(status) == 0
                del running[pid]
        time.sleep(0.01)


def main():
    root, seconds = Path(sys.argv[1]), float(sys.argv[2])
    wanted = json.loads(sys.stdin.read())
    sys.path[:0] = [str(root), str(root / "tests" / "course" / "tasks"), sys.argv[3]]
    try:  # the tests' oracle, imported once before the forks
        import torch  # noqa: F401
    except ImportError:
        pass
    import nnref  # noqa: F401
    scratch = Path(tempfile.mkdtemp(prefix="coursekit-screen-"))
    (scratch / "pytest.ini").write_text("[pytest]\n")
    os.chdir(scratch)
    report = {task["id"]: listing_of(root, task) for task in wanted}
    screen_all(root, [(task, report[task["id"]], c) for task in wanted
                      for c in report[task["id"]]["candidates"] + [report[task["id"]]["control"]]], seconds, scratch)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
