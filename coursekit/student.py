"""The student edition: the course with the marked work taken out.

``python -m coursekit student OUTDIR`` (or ``./dev.sh student OUTDIR``) writes::

    OUTDIR/
      README.md           how to work, test and hand in; the list of tasks
      book/*.ipynb        the chapters: solution code -> "# YOUR CODE HERE" /
                          "raise NotImplementedError()", hidden tests and the
                          solutions' explanations removed, solution outputs cleared
      nnref/              the package, each marked body replaced the same way
      tests/course/tasks/ the visible tests of the nnref tasks
      conftest.py, pyproject.toml, requirements.txt, course.json

Each stub sits between ``### BEGIN YOUR CODE`` and ``### END YOUR CODE``;
the student writes there, and the grader reads back what is there.
"""
import json
import shutil
import subprocess
from pathlib import Path

import nbformat

from . import notebooks, parsing, tasks
from .markers import (SOLUTION, YOUR_CODE, fill_your_code, find_regions, replace_regions, stub_lines,
                      twin_stub_lines)
from .tasks import CourseError, course_root, discover


# Packages the chapters import, with the versions requirements.txt asks for.
STUDENT_REQUIREMENTS = ["numpy", "ml_dtypes", "matplotlib", "graphviz", "scikit-learn", "pytest"]


def checked_tasks(root=None):
    """The course's tasks; a CourseError listing the problems if the markers have any."""
    found, problems = discover(root)
    if problems:
        raise CourseError("the solution markers have problems (python -m coursekit check):\n  "
                          + "\n  ".join(problems))
    return found


def _prepare(out, force):
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise CourseError(f"{out} exists and is not empty (use --force to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def student_source(text, where="text", found=()):
    """A Python file with each solution region turned into a stub (carrying its task id), each twin
    region into an error naming its task (``without_twins``)."""
    def replace(region, _lines):
        if region.kind == SOLUTION:
            return stub_lines(region.indent, region.meta.get("task"))
        return []  # hidden tests leave nothing behind
    return replace_regions(without_twins(text, where, found=found), replace, where)


def without_twins(text, where, task_id=None, found=()):
    """``text`` (the nnref file ``where``) with each twin region (``### BEGIN SOLUTION twin=TASK``,
    of ``task_id`` or every one) replaced by an error naming the exercise (``markers.twin_stub_lines``)."""
    if "twin=" not in text:
        return text
    tree = parsing.parse(text, where)
    module = where.removesuffix(".py").replace("/", ".")
    homes = {t.id: f"{t.where} in {t.path}" for t in found}

    def replace(region, _lines):
        twin = region.meta.get("twin")
        if region.kind != SOLUTION or twin is None or task_id not in (None, twin):
            return None
        name = f"{module}.{tasks.enclosing_function(tree, region.begin + 1)}"
        return twin_stub_lines(region.indent, name, twin, homes.get(twin, ""))
    return replace_regions(text, replace, where)


def build(out, root=None, force=False):
    """Write the student edition into ``out``; returns the list of tasks."""
    root = course_root(root)
    found = checked_tasks(root)
    out = _prepare(out, force)

    shutil.copytree(root / "nnref", out / "nnref",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in sorted({p for t in found if t.kind == "nnref" for p in [t.path, *t.twins]}):
        text = student_source((root / path).read_text(encoding="utf-8"), path, found)
        compile(text, path, "exec")  # a stub must leave valid Python behind
        (out / path).write_text(text, encoding="utf-8")

    (out / "book").mkdir()
    solved = tasks.solved_lines(root, found)
    for path in sorted({t.path for t in found if t.kind == "chapter"}):
        notebook = nbformat.read(root / path, as_version=4)
        nbformat.write(notebooks.student_notebook(notebook, path, solved), out / path)

    visible = out / "tests" / "course" / "tasks"
    visible.mkdir(parents=True)
    for source in sorted((root / "tests" / "course" / "tasks").glob("*.py")):
        text = student_source(source.read_text(encoding="utf-8"), source.name)
        (visible / source.name).write_text(text, encoding="utf-8")

    _write_support_files(root, out, found)
    return found


def _write_support_files(root, out, found):
    (out / "README.md").write_text(student_readme(found), encoding="utf-8")
    (out / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (out / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (out / ".gitignore").write_text(".venv/\n__pycache__/\n*.egg-info/\n.ipynb_checkpoints/\n",
                                    encoding="utf-8")
    (out / "requirements.txt").write_text(_requirements(root), encoding="utf-8")
    manifest = {"course": "Inside nn.Module", "edition": "student", "reference": _commit(root),
                "tasks": [t.id for t in found]}
    (out / "course.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _requirements(root):
    wanted = {}
    for line in (Path(root) / "requirements.txt").read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].strip()
        name = spec.split(">")[0].split("<")[0].split("=")[0].strip()
        if name in STUDENT_REQUIREMENTS:
            wanted[name] = spec
    lines = [wanted.get(name, name) for name in STUDENT_REQUIREMENTS]
    # The JupyterLab the chapters are read in, with jupyterlab-myst (without it their notes,
    # exercises and links show as raw MyST): the pins of ./dev.sh lab.
    lab = [line.strip() for line in (Path(root) / "requirements-lab.txt").read_text(encoding="utf-8").splitlines()
           if line.strip() and not line.lstrip().startswith("#")]
    return ("# What the chapters and the tests need.  PyTorch is optional: with it installed,\n"
            "# the tests also compare your nnref with the real thing (pip install torch).\n"
            + "\n".join(lines + lab) + "\n")


def _commit(root):
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


# -- reading and writing answers -------------------------------------------------------------------
def reference_answer(task, root=None):
    """The reference solution of ``task``: the bodies of its solution regions, in order."""
    root = course_root(root)
    if task.kind == "nnref":
        text = (root / task.path).read_text(encoding="utf-8")
        lines = text.splitlines()
        return ["\n".join(r.body(lines)) for r in find_regions(text, task.path)
                if r.kind == SOLUTION and r.meta.get("task") == task.id]
    notebook = nbformat.read(root / task.path, as_version=4)
    answer = []
    for source in _solution_sources(notebook, task.id):
        lines = source.splitlines()
        answer += ["\n".join(r.body(lines)) for r in find_regions(source) if r.kind == SOLUTION]
    return answer


def _solution_sources(notebook, label):
    found, _problems = notebooks.exercises(notebook)
    exercise = next((e for e in found if e.label == label), None)
    return [] if exercise is None else notebooks.solution_sources(notebook, exercise)


def read_answer(task, edition):
    """The student's code for ``task`` in ``edition``: the YOUR CODE bodies, in order.

    Raises ``LookupError`` with a message for the report when they cannot be found.
    """
    path = Path(edition) / task.path
    if not path.exists():
        raise LookupError(f"{task.path} is missing from the submission")
    if task.kind == "nnref":
        text = path.read_text(encoding="utf-8")
        try:
            return your_code_of(text, task.id, task.path)
        except ValueError as err:
            raise LookupError(f"the markers in {task.path} are broken: {err}") from err
    try:
        notebook = nbformat.read(path, as_version=4)
        bodies = notebooks.student_code(notebook, task.id, task.path)
    except Exception as err:  # an unreadable notebook costs its own tasks only
        raise LookupError(f"{task.path} cannot be read: {type(err).__name__}: {err}") from err
    if bodies is None:
        raise LookupError(f"exercise {task.id} is missing from {task.path}")
    return bodies


NOTEBOOK_LIMITS = {"memory": 1 << 30, "cpu": 20, "seconds": 60}


def notebook_answers(requests):
    """``{where: {label: bodies or None}}`` for ``requests``, ``[(path, labels, where)]``: each notebook parsed once.

    A notebook is the student's JSON: it is parsed in one child process per
    submission with its own address-space, CPU and wall-clock limits, so a
    notebook of 100,000 cells or nested a million deep costs that child,
    never the grader.  Raises ``LookupError`` (for the report) when they cannot be read.
    """
    import resource
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (NOTEBOOK_LIMITS["memory"],) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (NOTEBOOK_LIMITS["cpu"],) * 2)

    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r}); "
            "from coursekit.notebooks import parse_notebooks_child; parse_notebooks_child()")
    request = json.dumps([[str(path), list(labels), where] for path, labels, where in requests])
    try:
        done = subprocess.run([sys.executable, "-I", "-c", code], input=request, capture_output=True, text=True,
                              timeout=NOTEBOOK_LIMITS["seconds"], preexec_fn=limit, env={"LANG": "C.UTF-8"})
    except subprocess.TimeoutExpired as err:
        raise LookupError(f"parsing it ran past {NOTEBOOK_LIMITS['seconds']} s") from err
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["it is too large to parse within the limits"])[-1]
        raise LookupError(last[:300])
    return json.loads(done.stdout)


def read_answers(found, edition):
    """``{task id: bodies, or the LookupError saying why not}`` for every task in ``found``.

    Whatever a file holds (not UTF-8, broken markers, a notebook that is not
    JSON) costs the tasks in that file only.
    """
    answers, chapters = {}, {}
    for task in found:
        path = Path(edition) / task.path
        if not path.is_file():
            answers[task.id] = LookupError(f"{task.path} is missing from the submission")
        elif task.kind == "nnref":
            try:
                answers[task.id] = your_code_of(path.read_text(encoding="utf-8"), task.id, task.path)
            except UnicodeDecodeError as err:
                answers[task.id] = LookupError(f"{task.path} is not UTF-8 text (byte {err.start})")
            except ValueError as err:
                answers[task.id] = LookupError(f"the markers in {task.path} are broken: {err}")
        else:
            chapters.setdefault(task.path, []).append(task.id)
    requests = [(Path(edition) / where, labels, where) for where, labels in chapters.items()]
    try:
        parsed = notebook_answers(requests) if requests else {}
    except LookupError:  # one of them cannot be read: each on its own, to say which
        parsed = {}
        for request in requests:
            try:
                parsed.update(notebook_answers([request]))
            except LookupError as err:
                answers.update({label: LookupError(f"{request[2]} cannot be read: {err}") for label in request[1]})
    for where, labels in chapters.items():
        for label in labels:
            if label in answers:
                continue
            bodies = parsed.get(where, {}).get(label)
            answers[label] = LookupError(f"exercise {label} is missing from {where}") if bodies is None else bodies
    return answers


def your_code_of(text, task_id, where):
    lines = text.splitlines()
    return ["\n".join(r.body(lines)) for r in find_regions(text, where)
            if r.kind == YOUR_CODE and r.meta.get("task") == task_id]


def write_answer(task, edition, bodies):
    """Put ``bodies`` (one string per solution region) into the edition's YOUR CODE blocks of ``task``."""
    path = Path(edition) / task.path
    if task.kind == "nnref":
        text = path.read_text(encoding="utf-8")
        path.write_text(fill_your_code(text, bodies, task.id, task.path), encoding="utf-8")
        return
    notebook = nbformat.read(path, as_version=4)
    found, _problems = notebooks.exercises(notebook)
    exercise = next(e for e in found if e.label == task.id)
    bodies = list(bodies)
    for index in exercise.answer_cells + exercise.code_cells:
        cell = notebook.cells[index]
        count = sum(r.kind == YOUR_CODE for r in find_regions(cell.source))
        cell.source = fill_your_code(cell.source, bodies[:count])
        del bodies[:count]
    nbformat.write(notebook, path)


def solve(edition, root=None, task_ids=None):
    """Put the reference solutions back into a student edition (every task, or ``task_ids``)."""
    found = checked_tasks(root)
    for task in found:
        if task_ids is None or task.id in task_ids:
            write_answer(task, edition, reference_answer(task, root))
    return found


# -- the files around the code ---------------------------------------------------------------------
def student_readme(found):
    nnref_tasks = [t for t in found if t.kind == "nnref"]
    rows = ["| Task | File | Function | Chapter | Tests | Points |", "| --- | --- | --- | --- | --- | --- |"]
    rows += [f"| `{t.id}` | `{t.path}` | `{t.where}` | {t.chapter or '-'} | `{t.tests[0]}` | {t.points} |"
             for t in nnref_tasks]
    chapters = {}
    for task in found:
        if task.kind == "chapter":
            chapters.setdefault(task.path, []).append(task)
    exercise_rows = ["| Chapter | Exercises | Points |", "| --- | --- | --- |"]
    exercise_rows += [f"| `{path}` | {', '.join(t.id for t in tasks)} | {sum(t.points for t in tasks)} |"
                      for path, tasks in chapters.items()]
    total = sum(t.points for t in found)
    example = nnref_tasks[0].tests[0] if nnref_tasks else "tests/course/tasks"
    return README.format(nnref_table="\n".join(rows), exercise_table="\n".join(exercise_rows),
                         count=len(found), total=total, nnref_count=len(nnref_tasks),
                         stub="\n".join(stub_lines("")), example=example)


README = """\
# Inside nn.Module: student edition

The course's chapters (`book/`) and its numpy re-implementation of PyTorch,
`nnref` (`import nnref as torch`), with the work left for you to do.
There are {count} tasks ({total} points): the exercises at the end of each
chapter, and {nnref_count} pieces of `nnref` itself that you rebuild.

## Set up

```bash
python3 -m venv .venv && . .venv/bin/activate
pip install -r requirements.txt
pip install -e .        # `import nnref` now finds *this* folder's nnref
pip install torch       # optional: the tests then also compare with PyTorch
jupyter lab book/       # read and run the chapters
```

The computation graphs are drawn with Graphviz (`sudo apt-get install
graphviz`, `brew install graphviz` or `conda install -c conda-forge graphviz`).

## Your work

Wherever you have something to write, you find

```python
{stub}
```

Replace the two middle lines by your code and keep the two `###` lines: the
grader reads what is between them, and only that. Everything outside them
(the tests in the exercise cells, the rest of nnref) is the instructor's.

**Chapter exercises.** Each exercise of a chapter has a cell for your
answer holding such a block, and under it a one-line self-check,
`check("label")`, that runs the exercise's checks (the `assert`s of the raw
cell further down) on your answer and says what is wrong.

{exercise_table}

**nnref.** These function bodies were taken out of `nnref`; the chapter
listed teaches what they do, and the docstring at the top of each task's
test file says exactly what it must do. Until you write one, the code that
needs it raises
`NotImplementedError` (for example, without `engine.dependencies` no
`backward()` runs), so do each task when you reach its chapter.

{nnref_table}

## Check your work

```bash
pytest                  # every nnref task's tests
pytest {example}   # one task's
```

The grader runs these tests and some more that you do not see, on each task
separately, with a time limit per task; a chapter exercise is graded by
running its cell with the asserts the instructor wrote. Passing the tests
you see is a good sign, not a guarantee.

## Hand in

Hand in this folder (or a zip of it, without `.venv/`), e.g.
`zip -r submission.zip . -x '.venv/*'`, the way your instructor says: the
grader files your grade under the name your course's hand-in system gives
your submission, never under anything written inside it. Hand in regular
files only: links are left out.

The grader runs your code in a sandbox, with a time limit per test (an
infinite loop costs that test, not the others), and gives partial credit:
each test of a task (each check of an exercise) earns its share of the
task's points. Its feedback names the visible tests that failed and why, and
counts the hidden ones.
"""

CONFTEST = '''\
"""Make `pytest` use this folder's nnref (the one you are writing), whatever else is installed."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import nnref  # noqa: E402

if Path(nnref.__file__).resolve().parent != HERE / "nnref":
    raise RuntimeError(f"pytest imported nnref from {nnref.__file__}, not from {HERE / 'nnref'}")
'''

PYPROJECT = """\
[build-system]
requires = ["setuptools>=64", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "nnref"
version = "0.1.0"
description = "nnref, student edition of the course Inside nn.Module"
requires-python = ">=3.10"
dependencies = ["numpy", "ml_dtypes"]

[tool.setuptools.packages.find]
where = ["."]
include = ["nnref*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""
