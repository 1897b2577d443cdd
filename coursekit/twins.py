"""Solution twins: code the student edition ships complete that does an nnref task's work.

``python -m coursekit twins`` (and ``tests/course/test_course_twins.py`` in CI)
looks for them the way a student would: for every nnref task it lists the
shipped callables that take the task function's arguments,

* the functions and methods (public and private) of the task's module, of
  its mirror module (``nnref/core/x.py`` -> ``nnref/x.py``) and of the
  task's class (inherited and attached ones included) and its subclasses
  there;
* every function the mirror installs in a seam of the core (``_seams.install``:
  the optimizers' fused/``foreach`` updates among them), read through the
  seam at call time and at the place it is defined, and the other functions
  of the modules they come from;

writes, for each, a submission whose task body only calls it (``return
twin(...)``, ``yield from twin(...)`` for a generator), grades those
submissions with the real grader (``batch.grade_all``: the task's own
visible and hidden checks, in the sandbox), and reports every delegate that
passes.  A twin that is part of the course is marked ``### BEGIN SOLUTION
twin=TASK`` around its body: the student edition, and the grader while it
grades TASK, replace that body by an error naming the exercise
(``twin_stub_lines``); book/instructors.md, "No solution twin".

Classes are not candidates (a constructor returns a new object, never does a
body's work in place), nor is the task function itself.
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import batch
from .markers import YOUR_CODE, fill_your_code, find_regions
from .student import build, checked_tasks
from .tasks import course_root

# Run in a child whose sys.path starts at the course: the course's nnref, not whatever is imported here.
_LIST_CHILD = r'''
import ast, importlib, inspect, json, os, pkgutil, sys, tempfile, textwrap, time, types
from pathlib import Path

os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the screen's pytest runs the test file, no plugins

root, wanted, SCREEN_SECONDS = Path(sys.argv[1]), json.loads(sys.stdin.read()), float(sys.argv[2])
sys.path[:0] = [str(root), sys.argv[3]]
from coursekit.markers import find_regions
from coursekit.twins import delegate_lines
import pytest
try:  # the tests' oracle, imported once before the forks
    import torch
except ImportError:
    pass
import nnref
import nnref.core
from nnref.core import _seams


def attribute(module, names):
    value = module
    for name in names:
        value = getattr(value, name)
    return value


def mirror_of(module_name):
    if not module_name.startswith("nnref.core."):
        return None
    try:
        return importlib.import_module("nnref." + module_name[len("nnref.core."):])
    except ImportError:
        return None


def installed():
    """``(core module, seam, value's module, value's name)`` for each ``install(module, "seam", value)`` in nnref."""
    found = []
    for path in sorted((root / "nnref").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "install" and len(node.args) == 3:
                value = node.args[2]
                # install(module, "seam", f if enabled else None): a mode's function counts too
                for choice in (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,):
                    if isinstance(choice, ast.Name):
                        found.append(getattr(importlib.import_module(name), choice.id, None))
    return found


def binds(function, positional, star, keywords, dstar):
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


# The optimizers' fused/foreach updates, beside what the seams hold now.
FUSED = ["nnref.optim._fused"]


def pool(task):
    """``(label, module, attribute names)`` for each candidate place, seams first."""
    core = [importlib.import_module(m.name) for m in pkgutil.walk_packages(nnref.core.__path__, "nnref.core.")]
    places = [(f"the seam {m.__name__}.{seam}", m.__name__, [seam]) for m in core for seam in getattr(m, "__seams__", ())]
    # what the mirror installs, where it is defined (the seam may be empty now: a mode installs it)
    for value in installed() + [v for m in core for v in _seams.seams_of(m).values()]:
        if not callable(value) or not hasattr(value, "__qualname__"):
            continue
        places.append((f"{value.__module__}.{value.__qualname__}", value.__module__, value.__qualname__.split(".")))
    module = importlib.import_module(task["module"])
    mine = [m for m in (module, mirror_of(module.__name__)) if m is not None]
    path = task["where"].split(".")[:-1]
    if path:
        owner = attribute(module, path)
        classes = [(module.__name__, path, owner)] + [
            (home.__name__, [name], value) for home in mine for name, value in vars(home).items()
            if isinstance(value, type) and issubclass(value, owner) and value is not owner]
        places += [(".".join([home, *names, name]), home, [*names, name])
                   for home, names, cls in classes for name in dir(cls)]
    for home in mine + [importlib.import_module(m) for m in FUSED]:
        places += [(f"{home.__name__}.{name}", home.__name__, [name]) for name in sorted(vars(home))]
    return places


def screen(task, listing, candidate, tmp):
    """A forked child that exits 0 if the task's visible tests pass with its code only calling ``candidate``.

    A fast first pass, on the reference nnref as it is (its twins whole): a candidate that fails its
    task's visible tests here cannot pass them in the grader, which also runs the hidden ones.
    """
    pid = os.fork()
    if pid == 0:
        status = 3
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            module = importlib.import_module(task["module"])
            names = task["where"].split(".")
            owner, original = attribute(module, names[:-1]), attribute(module, names)
            source = (root / task["path"]).read_text(encoding="utf-8")
            node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and n.name == names[-1] and n.lineno == original.__code__.co_firstlineno)
            # the function's lines, through its last END marker (a comment after its last statement)
            ends = [r.end + 1 for r in find_regions(source) if r.kind == "SOLUTION"
                    and r.meta.get("task") == task["id"] and node.lineno <= r.begin + 1 <= node.end_lineno]
            lines = source.splitlines()[node.lineno - 1:max([node.end_lineno, *ends])]
            regions = [r for r in find_regions("\n".join(lines)) if r.kind == "SOLUTION" and r.meta.get("task") == task["id"]]
            bodies = delegate_lines(regions, listing, candidate)
            out, position = [], 0
            for region, body in zip(regions, bodies):
                out += lines[position:region.begin] + [body]
                position = region.end + 1
            text = textwrap.dedent("\n".join(out + lines[position:]))
            namespace = module.__dict__ if owner is module else dict(module.__dict__)
            exec(compile(text, str(root / task["path"]), "exec"), namespace)
            replacement = namespace[names[-1]]
            setattr(owner, names[-1], replacement)
            # every other name of the task's function (``__call__ = _call_impl``), as the grader's source has it
            for other in [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "nnref" and m is not None]:
                for space in [other, *[v for v in vars(other).values() if isinstance(v, type)]]:
                    for name, value in list(vars(space).items()):
                        if value is original:
                            setattr(space, name, replacement)
            status = pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(tmp), "-c",
                                  str(tmp / "pytest.ini"), str(root / task["tests"])])
        finally:
            os._exit(int(status))
    return pid


def screen_all(jobs):
    """Run ``jobs`` (``(task, listing, candidate)``) two at a time; set each candidate's ``screen``."""
    running, waiting = {}, list(jobs)
    while running or waiting:
        while waiting and len(running) < 2:
            task, listing, candidate = waiting.pop(0)
            running[screen(task, listing, candidate, tmp)] = (candidate, time.monotonic() + SCREEN_SECONDS)
        for pid, (candidate, deadline) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if not done and time.monotonic() > deadline:
                os.kill(pid, 9)
                done, status = os.waitpid(pid, 0)
            if done:
                candidate["screen"] = os.waitstatus_to_exitcode(status) == 0
                del running[pid]
        time.sleep(0.01)


report, screening = {}, []
tmp = Path(tempfile.mkdtemp(prefix="coursekit-screen-"))
(tmp / "pytest.ini").write_text("[pytest]\n")
os.chdir(tmp)
sys.path.insert(1, str(root / "tests" / "course" / "tasks"))
for task in wanted:
    module = importlib.import_module(task["module"])
    target = attribute(module, task["where"].split("."))
    parameters = list(inspect.signature(target).parameters.values())
    kinds = inspect.Parameter
    positional = [p.name for p in parameters if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    star = next((p.name for p in parameters if p.kind == kinds.VAR_POSITIONAL), None)
    keywords = [p.name for p in parameters if p.kind == kinds.KEYWORD_ONLY]
    dstar = next((p.name for p in parameters if p.kind == kinds.VAR_KEYWORD), None)
    seen, candidates = set(), []
    for label, home, names in pool(task):
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
    listing = {"arguments": arguments, "generator": inspect.isgeneratorfunction(target), "candidates": candidates}
    screening += [(task, listing, candidate) for candidate in candidates]
    report[task["id"]] = listing
screen_all(screening)
print(json.dumps(report))
'''


SCREEN_SECONDS = 60.0


def candidates(root, found):
    """``{task id: {"arguments", "generator", "candidates": [{"label", "module", "names", "screen"}]}}``.

    Listed, and screened (``screen`` in the child above), in a child process on ``root``'s nnref.
    """
    wanted = [{"id": t.id, "module": t.path[:-len(".py")].replace("/", "."), "where": t.where, "path": t.path,
               "tests": t.tests[0]} for t in found]
    done = subprocess.run([sys.executable, "-c", _LIST_CHILD, str(root), str(SCREEN_SECONDS),
                           str(Path(__file__).resolve().parents[1])],
                          input=json.dumps(wanted), capture_output=True, text=True, check=False, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"listing the candidates failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def delegate_lines(regions, listing, candidate):
    """One body per region of the task: the first only calls ``candidate`` (read where it is at call
    time, so a seam gives what is installed there then), the others do nothing."""
    resolve = f"__import__('importlib').import_module({candidate['module']!r})"
    for name in candidate["names"]:
        resolve = f"getattr({resolve}, {name!r})"
    call = f"{resolve}({', '.join(listing['arguments'])})"
    first = f"{regions[0].indent}{'yield from' if listing['generator'] else 'return'} {call}"
    return [first] + [f"{r.indent}pass" for r in regions[1:]]


def find(root=None, task_ids=None, work=None, jobs=2, timeout=10.0):
    """``(twins, tried)`` for the nnref tasks of the course at ``root`` (those in ``task_ids``).

    ``tried``: every candidate, ``{"task", "label", "screen", "status", "points", "max_points"}``
    (``status`` None where the screen already failed it); ``twins``: those the grader passed.
    """
    root = course_root(root)
    found = [t for t in checked_tasks(root) if t.kind == "nnref" and (task_ids is None or t.id in task_ids)]
    with tempfile.TemporaryDirectory(prefix="coursekit-twins-") as scratch:
        work = Path(work) if work is not None else Path(scratch)
        edition = work / "edition"
        build(edition, root=root, force=True)
        listings = candidates(root, found)
        tried = {(task_id, c["label"]): {"task": task_id, "label": c["label"], "screen": c["screen"], "status": None,
                                         "points": None, "max_points": None}
                 for task_id, listing in listings.items() for c in listing["candidates"]}
        graded = {task_id: [c for c in listing["candidates"] if c["screen"]] for task_id, listing in listings.items()}
        folder = work / "class"
        if folder.exists():
            shutil.rmtree(folder)
        plan = {}
        for k in range(max([len(v) for v in graded.values()] or [0])):
            # One submission tries the k-th candidate of every task: an nnref task is graded on the
            # reference nnref with only its own body the submission's, so the tasks do not meet.
            submission = folder / f"twin{k:03d}"
            submission.mkdir(parents=True)
            shutil.copy(edition / "course.json", submission / "course.json")
            for task in found:
                target = submission / task.path
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(edition / task.path, target)
                if k < len(graded[task.id]):
                    candidate = graded[task.id][k]
                    plan[(submission.name, task.id)] = candidate["label"]
                    text = target.read_text(encoding="utf-8")
                    regions = [r for r in find_regions(text, task.path)
                               if r.kind == YOUR_CODE and r.meta.get("task") == task.id]
                    bodies = delegate_lines(regions, listings[task.id], candidate)
                    target.write_text(fill_your_code(text, bodies, task.id, task.path), encoding="utf-8")
        if plan:
            _rows, reports = batch.grade_all(folder, work / "graded", root=root, jobs=jobs, timeout=timeout,
                                             only={t.id for t in found}, progress=False)
            for report in reports:
                for result in report["tasks"]:
                    label = plan.get((report["submission"], result["id"]))
                    if label is not None:
                        tried[(result["id"], label)].update(
                            {k: result[k] for k in ("status", "points", "max_points")})
    tried = sorted(tried.values(), key=lambda t: (t["task"], t["label"]))
    return [t for t in tried if t["status"] == "passed"], tried
