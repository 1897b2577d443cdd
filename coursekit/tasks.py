"""The course's tasks, found from the solution markers, and the task map.

Two kinds of task:

* **nnref tasks**: a function body (or part of one) in ``nnref/`` between
  ``### BEGIN SOLUTION task=ID points=N chapter=NN_name`` and
  ``### END SOLUTION``.  Its tests are ``tests/course/tasks/test_<slug>.py``
  (the students get them) and ``tests/course/hidden/test_<slug>_hidden.py``
  (they do not), where ``slug`` is the id with ``.`` replaced by ``_``.
  Shipped code that does the same work (a *twin*: an optimizer's fused
  update beside ``SGD._update``) is marked ``### BEGIN SOLUTION twin=ID``:
  it goes with the task (coursekit/twins.py).
* **chapter tasks**: an exercise of a chapter notebook (``book/NN_name.ipynb``);
  its id is the exercise's label, its solution is what lies between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION`` in the solution's code
  cells, its tests are the ``assert`` statements around it plus any
  ``### BEGIN HIDDEN TESTS`` region.  ``points=N`` on the BEGIN marker sets
  its points (default 1).
"""
import ast
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from . import notebooks, parsing
from .markers import HIDDEN_TESTS, SOLUTION, MarkerError, find_regions

ROOT_ENV = "COURSEKIT_ROOT"


class CourseError(Exception):
    """Something the instructor has to fix first (markers, an output folder in the way)."""


def is_course_root(folder):
    folder = Path(folder)
    return (folder / "book").is_dir() and (folder / "nnref").is_dir() and (folder / "tests" / "course").is_dir()


def course_root(root=None):
    """The reference course's folder: ``root``, else ``$COURSEKIT_ROOT``, else the current folder or one above it.

    coursekit assumes nothing about where it is installed: the course it works
    on is named, or found from where the instructor stands.
    """
    if root is None and os.environ.get(ROOT_ENV):
        root = os.environ[ROOT_ENV]
    if root is not None:
        if not is_course_root(root):
            raise CourseError(f"{root} is not a course folder (it needs book/, nnref/ and tests/course/)")
        return Path(root).resolve()
    here = Path.cwd().resolve()
    for folder in [here, *here.parents]:
        if is_course_root(folder):
            return folder
    raise CourseError(f"no course folder (with book/, nnref/ and tests/course/) at or above {here}: "
                      f"run from inside the course's repository, or set ${ROOT_ENV} or --root")
NNREF_TASK_KEYS = {"task", "points", "chapter"}
CHAPTER_TASK_KEYS = {"points"}
TASK_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


@dataclass
class Task:
    id: str
    kind: str                  # "nnref" or "chapter"
    path: str                  # repository-relative file holding the solution
    where: str                 # the function (nnref) or the exercise (chapter)
    chapter: str               # the chapter that teaches it ("" if none yet)
    points: int
    regions: int               # number of solution regions
    tests: list = field(default_factory=list)         # visible test files, or a description
    hidden_tests: list = field(default_factory=list)  # hidden test files, or a description
    twins: list = field(default_factory=list)  # nnref files with code that does this task's work (twin=)

    @property
    def slug(self):
        return slug(self.id)

    def as_dict(self):
        return asdict(self)


def slug(task_id):
    return re.sub(r"[^A-Za-z0-9]+", "_", task_id)


def visible_test_path(task_id):
    return f"tests/course/tasks/test_{slug(task_id)}.py"


def hidden_test_path(task_id):
    return f"tests/course/hidden/test_{slug(task_id)}_hidden.py"


def chapter_paths(root=None):
    root = course_root(root)
    return sorted((Path(root) / "book").glob("[0-9][0-9]_*.ipynb"))


def nnref_sources(root=None):
    """The package's modules that may hold tasks."""
    package = course_root(root) / "nnref"
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def enclosing_function(tree, line):
    """Dotted name of the innermost def/class around 1-based ``line``."""
    best = []

    def visit(node, names):
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.lineno <= line <= child.end_lineno:
                    best = names + [child.name]
                    visit(child, best)
                    return
    visit(tree, [])
    return ".".join(best) or "<module>"


def _points(meta, where, problems):
    try:
        points = int(meta.get("points", 1))
        if points < 0:
            raise ValueError
        return points
    except ValueError:
        problems.append(f"{where}: points must be a whole number >= 0, not {meta['points']!r}")
        return 0


def nnref_tasks(root=None, problems=None):
    """Tasks marked in nnref's source, in file order."""
    root = course_root(root)
    problems = [] if problems is None else problems
    found, twins = {}, []
    for path in nnref_sources(root):
        text = path.read_text(encoding="utf-8")
        if "### BEGIN" not in text:
            continue
        relative = path.relative_to(root).as_posix()
        try:
            regions = find_regions(text, relative)
        except MarkerError as err:
            problems.append(str(err))
            continue
        tree = parsing.parse(text)
        for region in regions:
            where = f"{relative}, line {region.begin + 1}"
            if region.kind != SOLUTION:
                problems.append(f"{where}: only SOLUTION regions belong in nnref's source "
                                f"(its hidden tests go in tests/course/hidden/)")
                continue
            if "twin" in region.meta:  # shipped code that does a task's work (coursekit/twins.py)
                if set(region.meta) != {"twin"}:
                    problems.append(f"{where}: a twin region takes twin=TASK only, not {sorted(region.meta)}")
                else:
                    twins.append((region.meta["twin"], relative, where))
                continue
            unknown = set(region.meta) - NNREF_TASK_KEYS
            if unknown:
                problems.append(f"{where}: unknown marker keys {sorted(unknown)}")
            task_id = region.meta.get("task")
            if not task_id or not TASK_ID.match(task_id):
                problems.append(f"{where}: a solution region in nnref needs task=ID "
                                "(lower-case words joined by dots)")
                continue
            function = enclosing_function(tree, region.begin + 1)
            task = found.get(task_id)
            if task is None:
                found[task_id] = Task(
                    id=task_id, kind="nnref", path=relative, where=function,
                    chapter=region.meta.get("chapter", ""), points=_points(region.meta, where, problems),
                    regions=1, tests=[visible_test_path(task_id)],
                    hidden_tests=[p for p in [hidden_test_path(task_id)] if (Path(root) / p).exists()])
            elif task.path != relative:
                problems.append(f"{where}: task {task_id} is already marked in {task.path}")
            else:
                task.regions += 1
                if function not in task.where.split(", "):
                    task.where += f", {function}"
                for key in ("points", "chapter"):
                    if key in region.meta and str(getattr(task, key)) != region.meta[key]:
                        problems.append(f"{where}: {key}= differs from the task's first region")
    for task_id, relative, where in twins:
        if task_id not in found:
            problems.append(f"{where}: twin={task_id} names no task marked in nnref")
        elif relative not in found[task_id].twins:
            found[task_id].twins.append(relative)
    return list(found.values())


def chapter_tasks(root=None, problems=None, paths=None):
    """One task per exercise of every chapter notebook, in book order."""
    root = course_root(root)
    problems = [] if problems is None else problems
    tasks = []
    for path in paths or chapter_paths(root):
        path = Path(path)
        notebook = nbformat.read(path, as_version=4)
        found, structure = notebooks.exercises(notebook)
        problems += [f"{path.name}: {p}" for p in structure]
        for exercise in found:
            if exercise.solution_cell is None:
                problems.append(f"{path.name}, exercise {exercise.label}: has no solution "
                                f"(solution-start {exercise.label})")
            else:
                tasks.append(_chapter_task(root, path, notebook, exercise, problems))
        # Markers outside every solution block would be seen by no tool: flag them.
        for index, cell, _events, inside in notebooks._walk(notebook):
            if cell.cell_type == "code" and inside is None and "###" in cell.source:
                try:
                    if find_regions(cell.source, f"{path.name} cell {index}"):
                        problems.append(f"{path.name} cell {index}: solution or hidden-test markers "
                                        "outside a solution block")
                except MarkerError as err:
                    problems.append(str(err))
    return tasks


def _chapter_task(root, path, notebook, exercise, problems):
    where = f"{path.name}, exercise {exercise.label}"
    if not exercise.closed:
        problems.append(f"{where}: the solution block is never closed (solution-end)")
    regions = visible = hidden = 0
    metas = []
    for index in exercise.code_cells:
        source = notebook.cells[index].source
        try:
            cell_regions = find_regions(source, f"{path.name} cell {index}")
        except MarkerError as err:
            problems.append(str(err))
            continue
        cell_visible, cell_hidden = notebooks.count_asserts(source)
        visible, hidden = visible + cell_visible, hidden + cell_hidden
        for region in cell_regions:
            if region.kind == SOLUTION:
                regions += 1
                metas.append(region.meta)
            elif region.kind != HIDDEN_TESTS:
                problems.append(f"{where}: a {region.kind} marker in the reference notebook")
    for meta in metas:
        unknown = set(meta) - CHAPTER_TASK_KEYS
        if unknown:
            problems.append(f"{where}: unknown marker keys {sorted(unknown)} "
                            "(a chapter task's id is its exercise label)")
    if not exercise.code_cells:
        problems.append(f"{where}: the solution has no code cell")
    elif regions == 0:
        problems.append(f"{where}: the solution code has no ### BEGIN SOLUTION / ### END SOLUTION markers")
    if visible + hidden == 0:
        problems.append(f"{where}: no test (an assert outside the solution markers, "
                        "or in a HIDDEN TESTS region)")
    try:
        relative = path.resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        relative = str(path)
    return Task(id=exercise.label, kind="chapter", path=relative, where=f"exercise {exercise.label}",
                chapter=path.stem, points=max([_points(m, where, problems) for m in metas] or [1]),
                regions=regions,
                tests=[f"{visible} assert(s) in the solution cells"] if visible else [],
                hidden_tests=[f"{hidden} hidden assert(s)"] if hidden else [])


def discover(root=None):
    """``(tasks, problems)``: every task of the course, and what is wrong with the markers."""
    root = course_root(root)
    problems = []
    tasks = nnref_tasks(root, problems) + chapter_tasks(root, problems)
    seen = {}
    for task in tasks:
        if task.id in seen:
            problems.append(f"task id {task.id} is used by {seen[task.id]} and {task.path}")
        seen[task.id] = task.path
    chapters = {p.stem for p in chapter_paths(root)}
    for task in tasks:
        if task.kind != "nnref":
            continue
        if not (root / task.tests[0]).exists():
            problems.append(f"task {task.id} ({task.path}) has no visible tests: write {task.tests[0]}")
        if task.chapter and task.chapter not in chapters:
            problems.append(f"task {task.id}: chapter={task.chapter} is not a notebook in book/")
    for folder, path_of in (("tasks", visible_test_path), ("hidden", hidden_test_path)):
        for test_file in sorted((root / "tests" / "course" / folder).glob("test_*.py")):
            if not any(path_of(t.id) == test_file.relative_to(root).as_posix() for t in tasks):
                problems.append(f"{test_file.relative_to(root)} belongs to no marked task")
    return sort_tasks(tasks), problems


def sort_tasks(tasks):
    """Book order: by the chapter that teaches the task, then nnref before the chapter's exercises."""
    def key(task):
        return (task.chapter or "99", 0 if task.kind == "nnref" else 1)
    return sorted(tasks, key=key)


def task_map(tasks):
    """The task map as a Markdown table (what ``python -m coursekit tasks`` prints)."""
    rows = ["| Task | Kind | Where | Chapter | Tests | Points |", "| --- | --- | --- | --- | --- | --- |"]
    for task in tasks:
        tests = [f"`{t}`" if t.endswith(".py") else t for t in task.tests + task.hidden_tests]
        where = f"`{task.path}`: `{task.where}`" if task.kind == "nnref" else f"`{task.path}`"
        rows.append(f"| `{task.id}` | {task.kind} | {where} | {task.chapter or 'not in a chapter yet'} | "
                    f"{', '.join(tests) or 'none'} | {task.points} |")
    nnref_count = sum(t.kind == "nnref" for t in tasks)
    rows.append("")
    rows.append(f"{len(tasks)} tasks ({nnref_count} in nnref, {len(tasks) - nnref_count} chapter "
                f"exercises), {sum(t.points for t in tasks)} points in all.")
    return "\n".join(rows) + "\n"


def solved_lines(root, found):
    """For each nnref file with tasks or twins, the 1-based lines of its SOLUTION regions, markers included."""
    solved = {}
    for path in sorted({p for task in found if task.kind == "nnref" for p in [task.path, *task.twins]}):
        text = (Path(root) / path).read_text(encoding="utf-8")
        solved[Path(path).as_posix()] = {line + 1 for region in find_regions(text, path)
                                         if region.kind == SOLUTION
                                         for line in range(region.begin, region.end + 1)}
    return solved
