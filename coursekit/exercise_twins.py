"""Solution twins of chapter exercises: a built-in that passes an exercise as the learner's whole answer.

An exercise that asks to rebuild something nnref has (``my_linear`` for
``F.linear``) checks the answer against it, so an answer that only calls it
would pass those checks.  Its hidden tests call the answer with the built-in
taken away (``nnref._takeaway.without``), so such an answer fails one.

``python -m coursekit twins`` (and ``tests/course/test_course_twins.py``)
looks for such answers the way a student would, from each exercise's own
checks: in every visible and hidden ``assert`` (its names resolved through
the assignments of the cell that hold it: ``mine, reference = my_linear(x,
w, b), F.linear(x, w, b)``) where a function the solution defines is
called, every other call of the check is a candidate.  The expressions the
exercise's call passes are replaced by its parameters (``F.linear(x,
layer.weight, layer.bias)`` becomes ``F.linear(x, weight, bias)``; a method
of its first argument, ``two.named_modules(remove_duplicate=False)``, becomes
``module.named_modules(remove_duplicate=remove_duplicate)``), and a candidate
that still reads a name the check binds itself (a loop's, a comprehension's)
is dropped.  The answer is the solution's ``def`` line with a body that only
returns that call.  ``KNOWN`` adds the answers the rule cannot build (a seed
then a draw).  All are graded with the real grader (``batch.grade_all``) in
one class, beside each exercise's reference solution as a control, which
must pass; a candidate that earns the exercise's full points is a twin.
"""
import ast
import builtins
import copy
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from . import batch, checks, grader, notebooks, parsing
from .markers import SOLUTION, find_regions
from .student import build, checked_tasks, reference_answer, write_answer
from .tasks import course_root

CONTROL = "the reference solution (control)"

# Answers the rule above cannot build: the exercise's built-in reached in more than one call.
KNOWN = {
    "tensors-ex5": [("torch.manual_seed(seed), then torch.rand(n)",
                     "def rand_like_torch(seed, n):\n    torch.manual_seed(seed)\n    return torch.rand(n).numpy()")],
}

# Calls that compare, count or convert what a check compares (``len(mine)``, ``np.allclose``, ``.tolist()``):
# never the answer itself (checks.py evaluates them in the grader).
COMPARING = checks.CALLS | set(checks.ARRAY_CALLS) | checks.METHODS


def _parse(source):
    try:
        return parsing.parse(source)
    except SyntaxError:
        return None  # a cell with IPython magics: no checks the rule can read


def _solution_functions(sources):
    """``{name: FunctionDef}`` of the functions the solution regions define at their top level."""
    found = {}
    for source in sources:
        lines = source.splitlines()
        for region in find_regions(source):
            if region.kind == SOLUTION:
                tree = _parse("\n".join(region.body(lines)))
                for node in tree.body if tree else []:
                    if isinstance(node, ast.FunctionDef):
                        found[node.name] = node
    return found


def _top_level_names(notebook, skip):
    """Names the chapter binds at the top level of its code cells (imports, assignments, defs), but in ``skip``."""
    names = set(dir(builtins))
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or index in skip:
            continue
        tree = _parse(cell.source)
        for node in tree.body if tree else []:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            else:
                for target in ast.walk(node):
                    if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                        names.add(target.id)
    return names


class _Resolve(ast.NodeTransformer):
    """A check with each name the cell assigned before it replaced by the assigned expression (a few levels)."""

    def __init__(self, assigned, line, depth=3):
        self.assigned, self.line, self.depth = assigned, line, depth

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and self.depth:
            before = [value for lineno, value in self.assigned.get(node.id, []) if lineno < self.line]
            if before:
                return _Resolve(self.assigned, self.line, self.depth - 1).visit(copy.deepcopy(before[-1]))
        return node


def _assignments(tree):
    """``{name: [(line, expression)]}`` for ``a = e`` and ``a, b = e1, e2`` anywhere in the cell."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = [(target, value)]
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                pairs = list(zip(target.elts, value.elts))
            for name, expression in pairs:
                if isinstance(name, ast.Name):
                    found.setdefault(name.id, []).append((node.lineno, expression))
    return found


def _bind(function, call):
    """``{parameter: argument expression}`` for ``call`` of ``function``, or None where it cannot be read
    (``*args``, ``**kwargs``)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    parameters = [a.arg for a in function.args.posonlyargs + function.args.args]
    if len(call.args) > len(parameters):
        return None
    bound = dict(zip(parameters, call.args))
    bound.update({k.arg: k.value for k in call.keywords})
    return bound


class _Substitute(ast.NodeTransformer):
    """Each sub-expression that is one of the exercise call's arguments becomes that parameter's name."""

    def __init__(self, bound):
        self.by_text = {}
        for parameter, expression in bound.items():
            self.by_text.setdefault(ast.dump(expression), parameter)

    def visit(self, node):
        parameter = self.by_text.get(ast.dump(node)) if isinstance(node, ast.expr) else None
        if parameter is not None:
            return ast.Name(parameter, ast.Load())
        return self.generic_visit(node)


def _contains(node, names):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
               for n in ast.walk(node))


def _merged(calls):
    """One call per callee and positional arguments, with the keywords the checks pass to it in any of them
    (``named_modules(prefix=prefix)`` and ``named_modules(memo=memo)``: ``named_modules(prefix=prefix, memo=memo)``),
    as a student forwarding every argument would write it."""
    groups = {}
    for call in calls:
        key = ast.dump(call.func) + "".join(ast.dump(a) for a in call.args)
        groups.setdefault(key, []).append(call)
    merged = []
    for group in groups.values():
        keywords = {}
        for call in group:
            for keyword in call.keywords:
                keywords.setdefault(keyword.arg, keyword)
        merged.append(ast.Call(group[0].func, group[0].args, list(keywords.values())))
    return merged


def candidates(notebook, exercise):
    """``[(label, answer source)]``: the answers that only call another call of the exercise's checks."""
    sources = notebooks.solution_sources(notebook, exercise)
    functions = _solution_functions(sources)
    if not functions:
        return []
    known = _top_level_names(notebook, set(exercise.code_cells))
    calls = {}
    for source in sources:
        tree = _parse(source)
        if tree is None:
            continue
        # the checks: visible and hidden asserts, not those of the solution's own code
        solution = {n for r in find_regions(source) if r.kind == SOLUTION for n in range(r.begin + 1, r.end + 2)}
        assigned = _assignments(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assert) or node.lineno in solution:
                continue
            check = _Resolve(assigned, node.lineno).visit(copy.deepcopy(node.test))
            mine = [c for c in ast.walk(check) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                    and c.func.id in functions]
            others = [c for c in ast.walk(check) if isinstance(c, ast.Call) and not _contains(c, functions)
                      and not (isinstance(c.func, ast.Name) and c.func.id in COMPARING)
                      and not (isinstance(c.func, ast.Attribute) and c.func.attr in COMPARING)]
            # what the exercise's calls are given (x = torch.linspace(...)) is input, never an answer
            inputs = {ast.dump(n) for call in mine for argument in call.args + call.keywords
                      for n in ast.walk(argument)}
            others = [c for c in others if ast.dump(c) not in inputs]
            # the value compared is the outermost call (torch.rand(n).numpy(), not torch.rand(n))
            others = [c for c in others if not any(c is not d and c in ast.walk(d) for d in others)]
            for call in mine:
                function = functions[call.func.id]
                bound = _bind(function, call)
                if bound is None:
                    continue
                for other in others:
                    forwarded = _Substitute(bound).visit(copy.deepcopy(other))
                    free = {n.id for n in ast.walk(forwarded) if isinstance(n, ast.Name)}
                    if free - known - set(bound) or not free & set(bound):
                        continue  # it reads a name the check binds itself, or none of the answer's inputs
                    calls.setdefault(function.name, []).append(forwarded)
    found = {}
    for name, forwarded in calls.items():
        function = functions[name]
        for call in _merged(forwarded):
            answer = f"def {name}({ast.unparse(function.args)}):\n    return {ast.unparse(call)}"
            found.setdefault(answer, f"{name} returns {ast.unparse(call)}")
    listed = [(label, answer) for answer, label in found.items()]
    return listed + [k for k in KNOWN.get(exercise.label, []) if k[1] not in found]


def listing(root, task_ids=None):
    """``{exercise id: [(label, answer)]}`` for the chapter exercises of the course (those in ``task_ids``)."""
    found = {}
    for task in checked_tasks(root):
        if task.kind != "chapter" or (task_ids is not None and task.id not in task_ids):
            continue
        notebook = nbformat.read(root / task.path, as_version=4)
        exercise = next(e for e in notebooks.exercises(notebook)[0] if e.label == task.id)
        found[task.id] = candidates(notebook, exercise)
    return found


def _warm_references(root, graded, cache_dir, work, jobs, timeout):
    """The reference runs of the chapters of ``graded`` (its exercises, as ``batch.grade_all`` grades them),
    ``jobs`` at a time, into the class's cache: the class's graders then read them there, instead of one
    running them while the others wait for it."""
    runner = grader.Runner(timeout=timeout)
    units = []
    for path in sorted({t.path for t in graded}):
        found, _problems = grader.chapter_units(path, [t for t in graded if t.path == path], root,
                                                work / Path(path).stem)
        units += found
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda unit: grader.reference_records(unit, root, cache_dir, runner,
                                                            work / "runs" / f"{unit.name}"), units))


def find(root=None, task_ids=None, work=None, jobs=2, timeout=10.0):
    """``(twins, tried)`` for the chapter exercises of the course at ``root`` (those in ``task_ids``).

    ``tried``: every candidate, ``{"task", "label", "answer", "status", "points", "max_points", "failed"}``
    (``failed``: the checks it failed, ``{"test", "hidden", "why"}``);
    ``twins``: those that earned the exercise's full points.  Each exercise with candidates also has
    its reference solution, labelled ``CONTROL``, graded beside them: it must pass.
    All are graded in one class: submission k holds the k-th candidate of every exercise.
    """
    root = course_root(root)
    tasks = {t.id: t for t in checked_tasks(root) if t.kind == "chapter"}
    listed = {k: v for k, v in listing(root, task_ids).items() if v}
    tried = {}
    with tempfile.TemporaryDirectory(prefix="coursekit-exercise-twins-") as scratch:
        work = Path(work) if work is not None else Path(scratch)
        edition = work / "edition"
        build(edition, root=root, force=True)
        folder = work / "class"
        if folder.exists():
            shutil.rmtree(folder)
        plan = {}
        columns = {task_id: found + [(CONTROL, None)] for task_id, found in listed.items()}
        for k in range(max([len(v) for v in columns.values()] or [0])):
            # each exercise runs in a child of its chapter's run, on the reference's definitions of
            # the others: one submission can try one candidate of every exercise
            submission = folder / f"twin{k:03d}"
            submission.mkdir(parents=True)
            shutil.copy(edition / "course.json", submission / "course.json")
            for task_id, column in columns.items():
                if k >= len(column):
                    continue
                task = tasks[task_id]
                target = submission / task.path
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(edition / task.path, target)
                label, answer = column[k]
                bodies = reference_answer(task, root) if answer is None else \
                    [answer] + ["pass"] * (task.regions - 1)
                write_answer(task, submission, bodies)
                plan[(submission.name, task_id)] = label
                tried[(task_id, label)] = {"task": task_id, "label": label, "answer": answer, "status": None,
                                           "points": None, "max_points": None, "failed": None}
        if plan:
            _warm_references(root, [t for t in tasks.values() if t.id in listed], work / "graded" / "reference-cache",
                             work / "warm", jobs, timeout)
            _rows, reports = batch.grade_all(folder, work / "graded", root=root, jobs=jobs, timeout=timeout,
                                             only=set(listed), progress=False)
            for report in reports:
                for result in report["tasks"]:
                    label = plan.get((report["submission"], result["id"]))
                    if label is not None:
                        tried[(result["id"], label)].update(
                            {k: result[k] for k in ("status", "points", "max_points")},
                            failed=[{k: t[k] for k in ("test", "hidden", "why")} for t in result["tests"]
                                    if not t["passed"]])
    tried = sorted(tried.values(), key=lambda t: (t["task"], t["label"]))
    broken = [t for t in tried if t["label"] == CONTROL and t["status"] != "passed"]
    if broken:
        raise RuntimeError(f"the reference solutions do not pass where the candidates are tried: {broken}")
    return [t for t in tried if t["status"] == "passed" and t["label"] != CONTROL], tried
