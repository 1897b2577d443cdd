"""The autograder: ``python -m coursekit grade SUBMISSION [--out DIR]``.

A submission is a student edition (a folder, or a zip of one) with the
students' code between the ``### BEGIN YOUR CODE`` / ``### END YOUR CODE``
markers.  The verdict is the grader's, never the submission's:

1. Each task's checks (the ``assert``s of its tests, see ``checks.py``) run
   twice, in sandboxes (``sandbox.py``): once on the **reference** solution
   (computed once, cached), once on the **student's** code.  The sandboxes send
   back values, as data, over a pipe; nothing they write to disk is read.
2. The grader compares each check's value from the student's run with the
   expected value from the reference run, and scores: partial credit per test
   (an nnref task's test functions, a chapter exercise's asserts), weighted.

Units (one sandbox run each):

* an **nnref task**: its visible test file, then (in a second sandbox) its
  hidden one, on a copy of the reference nnref in which the task's code is the
  student's and no other copy of that code exists (its twins, code marked
  ``twin=TASK`` that does the same work, raise as in the student edition);
* a **chapter**: the chapter's own cells (the reference notebook without its
  exercises' solutions), and at each graded exercise, in a forked child, the
  exercise's cells with the student's code in place of the solution; after
  every exercise, graded or not, the reference's code of it (checks off), so
  each exercise runs on the same state whatever the student did in the
  others, and the chapter's reference unit is the same for every student
  (run once per class).  The hidden tests of the chapter's exercises run in
  a second sandbox.

A test that runs past the time limit ends its sandbox; the unit goes on from
the next test in a fresh one.  Feedback for students (``feedback.md``) says
what failed and why, without hidden-test source or instructor paths; the
instructor's report (``report.json``, ``report.md``) has everything.
"""
import base64
import hashlib
import json
import marshal
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import checks, intake, notebooks, parsing, sandbox
from .markers import HIDDEN_TESTS, SOLUTION, STUB_BODY, find_regions, replace_regions
from .student import checked_tasks, read_answers, without_twins
from .tasks import CourseError, course_root

STATUSES = ("passed", "partial", "failed", "not-attempted", "syntax-error", "timeout", "crashed", "missing",
            "could-not-grade")


@dataclass
class Unit:
    """One sandbox run: its plan, the folder mounted at /task, the tasks it grades."""
    name: str
    kind: str                 # "tests" or "chapter"
    plan: dict
    task_dir: Path
    tasks: list               # task ids
    hidden: bool = False
    weights: dict = field(default_factory=dict)   # test module -> {test function: weight}
    skeletons: dict = field(default_factory=dict)  # check id -> what the grader evaluates (checks.py)
    book: Path = None                             # a chapter's book/ folder (copied into the sandbox)


# -- the submission ---------------------------------------------------------------------------------
def safe_extract(archive, target):
    """A zip's regular files copied into the new folder ``target`` (see ``intake.ingest``)."""
    folder, _notes = intake.ingest(archive, target)
    return folder


def open_submission(submission, scratch):
    """``(edition, notes)``: the student edition inside a copy of ``submission`` (a folder or a .zip).

    Only the copy (``intake.ingest``: regular files, bounded, names normalised) is read from here on;
    ``notes`` says what was left out of it.
    """
    submission = Path(submission)
    copy, notes = intake.ingest(submission, Path(scratch) / "submission")
    children = sorted(p for p in copy.iterdir() if p.is_dir())
    grandchildren = sorted(p for child in children for p in child.iterdir() if p.is_dir())
    for folder in [copy, *children, *grandchildren]:
        if (folder / "course.json").exists() or ((folder / "nnref").is_dir() and (folder / "book").is_dir()):
            return folder, notes
    raise CourseError(f"{submission.name} does not look like a student edition (no course.json, "
                      "no nnref/ and book/ folders)")


def student_identity(name, roster=None):
    """``(id, problem)``: the id is the submission's name (``intake.submission_id``), checked against the roster.

    Nothing the student wrote (``student.json`` included) names the student: a submission
    cannot claim another student's row.
    """
    student_id = intake.submission_id(str(name))
    if not student_id:
        return None, "the submission's name gives no id"
    if roster is not None and student_id not in roster:
        return student_id, f"id {student_id!r} is not on the roster"
    return student_id, None


# -- rewriting the checks -----------------------------------------------------------------------------
def _is_stub(bodies):
    return all([line.strip() for line in body.strip().splitlines()] == list(STUB_BODY) for body in bodies)


def _syntax_error(text, filename):
    try:
        compile(text, filename, "exec")
    except (SyntaxError, ValueError) as err:
        line = f", line {err.lineno}" if getattr(err, "lineno", None) else ""
        source = f": {err.text.strip()}" if getattr(err, "text", None) else ""
        return f"SyntaxError: {getattr(err, 'msg', err)} ({Path(filename).name}{line}){source}"
    return None


def _weights(source):
    """``WEIGHTS = {"test_name": 2, ...}`` at the top of a test file (read, not run); default 1."""
    import ast
    for node in parsing.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "WEIGHTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def _test_files(root, task, hidden, keep=None, skeletons=None):
    paths = task.hidden_tests if hidden else task.tests
    files = []
    for relative in paths:
        source = (root / relative).read_text(encoding="utf-8")
        module = Path(relative).stem
        files.append({"module": module, "path": f"/task/tests/{module}.py",
                      "source": checks.rewrite(source, relative, keep=keep, skeletons=skeletons),
                      "weights": _weights(source)})
    return files


def _nnref_copy(root, target, task=None, bodies=None):
    """The reference nnref in ``target``; with ``task``, its regions hold ``bodies`` instead.

    A file that holds a solution region is there as bytecode only (``_sourceless``):
    the sandbox runs the reference's code of the other tasks, and has no text of it to read.
    """
    shutil.copytree(root / "nnref", target / "nnref", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(root / "tests" / "course" / "tasks" / "task_helpers.py", target / "task_helpers.py")
    problem = None if task is None else _with_bodies(target, task, bodies)
    if problem is None:
        _sourceless(target)
    return problem


def _sourceless(target):
    """Each ``.py`` file of ``target/nnref`` with a solution region replaced by its ``.pyc`` (Python imports
    a ``.pyc`` that has no source beside it), compiled under its path in the sandbox."""
    import py_compile
    for path in sorted((target / "nnref").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if any(region.kind == SOLUTION for region in find_regions(text, str(path))):
            py_compile.compile(str(path), cfile=str(path.with_suffix(".pyc")),
                               dfile=f"/task/{path.relative_to(target).as_posix()}", doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            path.unlink()


def compiled_plan(plan):
    """``plan`` with every piece of code as a code object (marshal, base64), compiled here.

    The sandbox gets no source text of the tests (hidden ones included) nor of the
    reference's code of the exercises, only what it runs: a submission can
    disassemble what its process runs, but finds no text to read or send back.
    """
    def code(source, filename, docstrings=True):
        tree = parsing.parse(source, filename)
        if not docstrings:
            _strip_docstrings(tree)
        with parsing._PARSE_LOCK:  # compiling an AST object converts it, as parsing does (parsing.py)
            compiled = compile(tree, filename, "exec", dont_inherit=True)
        return base64.b64encode(marshal.dumps(compiled)).decode()

    if plan["kind"] == "tests":
        files = [{"module": f["module"], "path": f["path"], "code": code(f["source"], f["path"], False)}
                 for f in plan["files"]]
        return dict(plan, files=files)
    cells = []
    for cell in plan["cells"]:
        cell = dict(cell)
        if "run" in cell:
            cell["run"] = code(_ipython(cell["run"]), cell.get("label", "<cell>"))
        if "code" in cell:
            cell["code"] = code(_ipython(cell["code"]), f"<{cell['exercise']}>")
        if "define" in cell:
            cell["define"] = code(_ipython(cell["define"]), f"<{cell.get('label', 'exercise')}>", False)
        cells.append(cell)
    return dict(plan, cells=cells)


def _strip_docstrings(tree):
    """The docstrings of a test file or of the reference's code go: code objects keep them as constants."""
    import ast
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            node.body = node.body[1:] or [ast.Pass()]


def _with_bodies(target, task, bodies):
    path = target / task.path
    pending = list(bodies)

    def replace(region, lines):
        if region.kind != SOLUTION or region.meta.get("task") != task.id:
            return None
        return [lines[region.begin], *pending.pop(0).split("\n"), lines[region.end]]

    patched = replace_regions(path.read_text(encoding="utf-8"), replace, task.path)
    path.write_text(patched, encoding="utf-8")
    for twin in task.twins:  # shipped code that does this task's work: left out, as in the student edition
        twin_path = target / twin
        twin_path.write_text(without_twins(twin_path.read_text(encoding="utf-8"), twin, task.id), encoding="utf-8")
    return _syntax_error(patched, task.path)


def nnref_units(task, root, work, bodies=None, keep=None):
    """The visible and hidden units of an nnref task (on the reference when ``bodies`` is None)."""
    units = []
    for hidden in (False, True):
        skeletons = {}
        files = _test_files(root, task, hidden, keep, skeletons)
        if not files:
            continue
        task_dir = work / "task"
        if not task_dir.exists():
            task_dir.mkdir(parents=True)
            problem = _nnref_copy(root, task_dir, task if bodies is not None else None, bodies)
            if problem:
                return problem
        # PyTorch (a test oracle) is imported before the first test starts its clock
        torch = any("pytorch()" in f["source"] or "import torch" in f["source"] for f in files)
        plan = {"kind": "tests", "cwd": "/box", "sys_path": ["/task"],
                "preload": ["numpy", "pytest", *(["torch"] if torch else [])],
                "files": [{k: v for k, v in f.items() if k != "weights"} for f in files]}
        unit = Unit(f"{task.id}{' (hidden)' if hidden else ''}", "tests", plan, task_dir, [task.id], hidden)
        unit.weights = {f["module"]: f["weights"] for f in files}
        unit.skeletons = skeletons
        units.append(unit)
    return units


def _exercise_code(task_id, sources, bodies, hidden, keep=None, skeletons=None):
    """The exercise's cells as one program: the student's (or reference) code, the checks rewritten."""
    cells = []
    bodies = list(bodies) if bodies is not None else None
    for k, source in enumerate(sources):
        regions = find_regions(source, f"cell {k + 1}")
        lines = source.split("\n")
        inside = {i + 1 for r in regions for i in range(r.begin, r.end + 1)}
        hidden_lines = {i + 1 for r in regions if r.kind == HIDDEN_TESTS for i in range(r.begin, r.end + 1)}
        visible_asserts = {n for n in range(1, len(lines) + 1) if n not in inside}
        text = checks.rewrite_lines(source, visible_asserts, prefix=f"{task_id}/v{k}:", keep=keep,
                                    skeletons=skeletons)
        if hidden:
            text = checks.rewrite_lines(text, hidden_lines, prefix=f"{task_id}/h{k}:", keep=keep,
                                        skeletons=skeletons)

        def replace(region, region_lines):
            if region.kind == HIDDEN_TESTS:
                return region_lines[region.begin + 1:region.end] if hidden else []
            if region.kind == SOLUTION and bodies is not None:
                return bodies.pop(0).split("\n") if bodies else []
            return region_lines[region.begin + 1:region.end]

        cells.append(replace_regions(text, replace, f"cell {k + 1}"))
    return cells


def chapter_units(path, tasks, root, work, answers=None, keep=None):
    """A chapter's visible unit and, if its exercises have hidden tests, its hidden unit.

    ``answers`` maps a task id to the student's bodies; None grades the reference.
    Returns ``(units, problems)``: problems are the tasks that cannot run (syntax errors).
    """
    reference = nbformat.read(root / path, as_version=4)
    exercises, _problems = notebooks.exercises(reference)
    by_first = {e.code_cells[0]: e for e in exercises if e.code_cells}
    in_exercise = {i for e in exercises for i in e.code_cells}
    graded = {t.id: t for t in tasks}
    task_dir = work / "task"
    if not task_dir.exists():
        task_dir.mkdir(parents=True)
        _nnref_copy(root, task_dir)
    problems, units = {}, []
    has_hidden = any(t.hidden_tests for t in tasks)
    for hidden in ([False, True] if has_hidden else [False]):
        cells, skeletons = [], {}
        for index, cell in enumerate(reference.cells):
            if cell.cell_type != "code":
                continue
            exercise = by_first.get(index)
            if exercise is not None:
                task = graded.get(exercise.label)
                sources = notebooks.solution_sources(reference, exercise)
                # What the cells after it may use: the reference's definitions, run (checks off) after
                # the exercise whatever the student did there, so that no exercise's grade depends
                # on another's being solved or graded.
                define = {"define": "\n".join(_exercise_code(exercise.label, sources, None, False)),
                          "index": index, "label": exercise.label}
                bodies = None if answers is None or task is None else answers.get(task.id)
                if task is None or (hidden and not task.hidden_tests) or (answers is not None and bodies is None):
                    cells.append(define)  # not graded in this unit: its definitions only
                    continue
                code = _exercise_code(task.id, sources, bodies, hidden, keep, skeletons)
                errors = [e for e in (_syntax_error(_ipython(c), f"{task.id}, cell {k + 1}")
                                      for k, c in enumerate(code)) if e]
                if errors:
                    problems[task.id] = errors[0]
                    cells.append(define)
                    continue
                cells.append({"exercise": task.id, "code": "\n".join(code), **define})
            elif index not in in_exercise:
                cells.append({"run": cell.source, "label": f"<{Path(path).stem}, cell {index}>"})
        plan = {"kind": "chapter", "cwd": f"/box/{Path(path).parent.as_posix()}", "sys_path": ["/task"],
                "preload": ["numpy"], "cells": cells}
        unit = Unit(f"{Path(path).stem}{' (hidden)' if hidden else ''}", "chapter", plan, task_dir,
                    [t.id for t in tasks], hidden)
        unit.book = root / Path(path).parent
        unit.skeletons = skeletons
        units.append(unit)
    return units, problems


def _ipython(source):
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except ImportError:
        return source


# -- running units --------------------------------------------------------------------------------------
class Runner:
    """Runs units in sandboxes, restarting after a test that ran past its limit."""

    def __init__(self, timeout=10.0, unsafe=False, limits=None):
        self.timeout, self.unsafe, self.limits = timeout, unsafe, limits
        if not unsafe:
            problem = sandbox.check()
            if problem:
                raise sandbox.SandboxUnavailable(
                    f"{problem}. The grader runs students' code only in a sandbox; pass --unsafe to grade "
                    "without one (only for code you trust).")

    def run(self, unit, work, slack=1.0, reference=None):
        """``(records, events)``: every record of the unit's runs; events: tests that timed out or crashed.

        ``reference``: the reference run's records.  Given, the grader's clock is theirs: each test
        gets ``max(timeout, 3 x`` its reference time``)``, the wait before each test
        ``max(2 x timeout, 4 x`` the longest wait on the reference``)``, before the first test of a run
        ``max(2 x timeout, 4 x`` all waits``)``, and a run all of these at most; only the reference's
        tests start a test's clock.  Without it (the trusted reference itself): generous limits.
        """
        records, events, start_at, attempt = [], {}, 0, 0
        ends = [r for r in reference or [] if r.get("r") == "end" and "seconds" in r]
        seconds = {r.get("test"): float(r["seconds"]) for r in ends}
        gaps = [float(r.get("gap", 0)) for r in reference or [] if r.get("r") == "start" and "gap" in r]

        def limit(test):  # the time limit, or three times what the test took on the reference
            return max(self.timeout, 3 * seconds.get(test, 0)) * slack

        if reference is not None:
            between = max(2 * self.timeout, 4 * max(gaps, default=0)) * slack
            setup = max(2 * self.timeout, 4 * sum(gaps)) * slack
        else:
            between = setup = max(60.0, self.timeout) * slack
        while True:
            attempt += 1
            box = work / f"box-{attempt}"
            box.mkdir(parents=True)
            if unit.kind == "chapter":
                shutil.copytree(unit.book, box / unit.book.name,
                                ignore=shutil.ignore_patterns("_*", "*.ipynb", ".*", "*.md"))
            plan = compiled_plan(dict(unit.plan, start_at=start_at))
            if self.unsafe:
                plan = _unsafe_plan(plan, unit.task_dir, box)
            # the run ends by this time, whatever the sandbox sends
            total = setup + sum(limit(test) + between for test in seconds) if reference is not None else 3600.0
            outcome = sandbox.run(plan, unit.task_dir, box, limits=self.limits, test_limit=limit,
                                  setup_limit=setup, between_limit=between, total_limit=total, unsafe=self.unsafe,
                                  tests=set(seconds) if reference is not None else None)
            shutil.rmtree(box, ignore_errors=True)
            records += outcome.records
            if outcome.how == "done":
                return records, events
            started = [r for r in outcome.records if r.get("r") == "start"]
            ended = {r.get("test") for r in outcome.records if r.get("r") == "end"}
            running = next((r for r in reversed(started) if r.get("test") not in ended), None)
            if running is None:
                events["*"] = (outcome.how, outcome.stderr[-2000:])
                return records, events
            events[str(running.get("test"))] = (outcome.how, outcome.stderr[-2000:])
            try:
                start_at = max(start_at, int(running.get("index", 0))) + 1  # always forward
            except (TypeError, ValueError):
                return records, events
            if attempt > max(len(seconds), 1) + 1:
                return records, events


def _unsafe_plan(plan, task_dir, box):
    """Without bwrap, the plan's sandbox paths are the real folders."""
    text = json.dumps(plan).replace('"/task', json.dumps(str(task_dir))[:-1]).replace('"/box', json.dumps(str(box))[:-1])
    return json.loads(text)


# -- the reference run, cached ------------------------------------------------------------------------
def _fingerprint(root, unit):
    digest = hashlib.sha256(json.dumps(unit.plan, sort_keys=True).encode())
    for path in sorted((root / "nnref").rglob("*.py")):
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    for tool in (sandbox.RUNNER, Path(checks.__file__), Path(sandbox.__file__)):  # how values are taken
        digest.update(tool.read_bytes())
    return digest.hexdigest()[:32]


_cache_lock = threading.Lock()
_key_locks, _memory_cache = {}, {}


def reference_records(unit, root, cache_dir, runner, work):
    """The records of ``unit`` run on the reference (from ``cache_dir`` when it was run before)."""
    key = _fingerprint(root, unit)
    with _cache_lock:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:  # graders of several submissions wait for one reference run
        if key in _memory_cache:
            return _memory_cache[key]
        path = Path(cache_dir) / f"{key}.json" if cache_dir else None
        if path is not None and path.exists():
            _memory_cache[key] = json.loads(path.read_text(encoding="utf-8"))
            return _memory_cache[key]
        _memory_cache[key] = records = _reference_run(unit, runner, work)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(records), encoding="utf-8")
        return records


def _stable_form(record):
    """A check's values with each ``id()`` numbered by first appearance (ids differ from run to run)."""
    seen = {}

    def walk(value):
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: (seen.setdefault(v, len(seen)) if k == "id" else walk(v)) for k, v in value.items()}
        return value
    return walk([record.get("leaves"), record.get("expected"), record.get("raised"), record.get("error")])


def _reference_run(unit, runner, work):
    """Two runs of the reference: a check whose values differ between them (a time, a random draw)
    is marked ``unstable``, and judged on both sides of the student's run (``checks.both_sides_ids``).
    Each check must hold on the reference's own values, as the grader evaluates them."""
    records, events = runner.run(unit, work / "1", slack=6.0)  # the reference is trusted: generous limits
    again, _events = runner.run(unit, work / "2", slack=6.0)
    values = {(r.get("test"), r.get("id"), r.get("n")): _stable_form(r) for r in again if r.get("r") == "check"}
    errors = []
    for record in records:
        if record.get("r") == "check":
            key = (record.get("test"), record.get("id"), record.get("n"))
            if values.get(key) != _stable_form(record):
                record["unstable"] = True
            ok, why, _hint = checks.judge(unit.skeletons.get(str(record.get("id"))), record,
                                          dict(record, expected=record.get("expected")), both=True)
            if not ok:
                errors.append(f"{record.get('test')}: check {record.get('id')} is false on the reference: {why}")
    errors += [f"{r.get('test')}: {r.get('error')}" for r in records
               if r.get("r") == "import-error" or (r.get("r") == "end" and r.get("how") in ("error", "crashed"))]
    if events or errors:
        raise CourseError(f"the reference solution fails its own checks in {unit.name}: "
                          f"{events or ''} {'; '.join(errors)[:2000]}")
    return records


# -- scoring ----------------------------------------------------------------------------------------------
def _by_test(records):
    checks_, ends = {}, {}
    for record in records:
        kind = record.get("r")
        test = str(record.get("test"))
        if kind == "check":
            key = (str(record.get("id")), record.get("n"))
            checks_.setdefault(test, {}).setdefault(key, record)  # the first record of a check counts
        elif kind == "end":
            ends.setdefault(test, record)
    return checks_, ends


def score_unit(unit, reference, student, events, both=frozenset()):
    """``{task id: [test results]}``: each test's weight, whether it passed, and why not."""
    ref_checks, ref_ends = _by_test(reference)
    stu_checks, stu_ends = _by_test(student)
    tests = [r["test"] for r in reference if r.get("r") == "start"]
    import_errors = [r for r in student if r.get("r") == "import-error"]
    results = {}
    for test in tests:
        if ref_ends.get(test, {}).get("how") == "skip":
            continue
        task_id = test if unit.kind == "chapter" else unit.tasks[0]
        checks_here = {key: ref for key, ref in ref_checks.get(test, {}).items()
                       if unit.kind != "chapter" or ("/h" if unit.hidden else "/v") in key[0]}
        failures, hints = [], {}
        for key, ref in checks_here.items():
            ok, why, hints[key] = checks.judge(unit.skeletons.get(key[0]), ref, stu_checks.get(test, {}).get(key),
                                               both=key[0] in both)
            if not ok:
                failures.append((key, why))
        end = stu_ends.get(test)
        event = events.get(test) or events.get("*")
        # (status, why for the instructor, hint for the student: never text the sandbox sent)
        if event:
            how, _stderr = event
            problem = ("timeout", "ran past the time limit", None) if how == "timeout" else \
                ("crashed", "the process running it stopped", None)
        elif end is None:
            problem = ("crashed", str(import_errors[0].get("error")), "the test file could not be imported: "
                       f"{checks.exception_name(import_errors[0].get('error'))}") if import_errors else \
                ("crashed", "it did not run", None)
        elif end.get("how") == "error":
            problem = ("error", f"{end.get('error', '')}" + (f" ({end['where']})" if end.get("where") else ""),
                       f"raised {checks.exception_name(end.get('error', ''))}")
        elif end.get("how") == "crashed":
            problem = ("crashed", str(end.get("error", "")), "the process running it stopped")
        elif end.get("how") == "skip":
            problem = ("error", "skipped", None)
        else:
            problem = None
        problem_hint = problem and (problem[2] or problem[1])
        if unit.kind == "chapter":
            # an exercise: every check is worth one part; an error fails the checks it did not reach
            for key in checks_here:
                ok = key not in dict(failures)
                unreached = problem and not stu_checks.get(test, {}).get(key)
                results.setdefault(task_id, []).append(
                    {"test": f"{test} check {key[0]}", "weight": 1.0, "passed": ok, "hidden": unit.hidden,
                     "why": "" if ok else (problem[1] if unreached else dict(failures)[key]),
                     "hint": "" if ok else (problem_hint if unreached else hints[key]),
                     "problem": problem and problem[0]})
            continue
        module, name = test.split("::", 1)
        function = name.split("[", 1)[0]
        cases = sum(1 for t in tests if t.split("::", 1)[1].split("[", 1)[0] == function
                    and t.startswith(module + "::"))
        weight = float(unit.weights.get(module, {}).get(function, 1)) / cases
        ok = not failures and problem is None
        why = "" if ok else (problem[1] if problem else failures[0][1])
        hint = "" if ok else (problem_hint if problem else hints[failures[0][0]])
        results.setdefault(task_id, []).append(
            {"test": test, "weight": weight, "passed": ok, "hidden": unit.hidden, "why": why, "hint": hint,
             "problem": problem and problem[0]})
    return results


@dataclass
class TaskResult:
    id: str
    kind: str
    where: str
    chapter: str
    points: float
    max_points: int
    status: str
    message: str = ""
    tests: list = field(default_factory=list)
    hint: str = ""        # the message for the student: the grader's words only (see feedback_markdown)


def _task_result(task, tests, status=None, message=""):
    if status is None:
        total = sum(t["weight"] for t in tests)
        passed = sum(t["weight"] for t in tests if t["passed"])
        fraction = passed / total if total else 0.0
        if total and passed == total:
            status = "passed"
        elif any(t.get("problem") == "timeout" for t in tests):
            status = "timeout"
        elif any(t.get("problem") == "crashed" for t in tests):
            status = "crashed"
        elif passed:
            status = "partial"
        else:
            status = "failed"
        first = next((t for t in tests if not t["passed"]), None)
        hint = ""
        if first is not None:
            message = ("a hidden test failed" if first["hidden"] else f"{first['test']}: {first['why']}")
            hint = ("a hidden test failed" if first["hidden"] else f"{first['test']}: {first.get('hint', '')}")
        points = round(task.points * fraction, 2)
    else:
        points = 0.0
        # the grader's own messages (a missing file, a syntax error in the student's own code), but not
        # the text of an exception met while grading, which may quote what the sandbox sent
        hint = message.split(":", 2)[0] + ": " + message.split(":", 2)[1].strip() \
            if status == "could-not-grade" else message
    return TaskResult(id=task.id, kind=task.kind,
                      where=f"{task.path}: {task.where}" if task.kind == "nnref" else task.path,
                      chapter=task.chapter, points=points, max_points=task.points, status=status,
                      message=message[:2000], tests=tests, hint=hint[:2000])


# -- grading ----------------------------------------------------------------------------------------------
def _answers(found, edition):
    """``{task id: bodies}`` and ``{task id: (status, message)}`` for those that cannot be graded."""
    answers, verdicts = {}, {}
    read = read_answers(found, edition)
    for task in found:
        bodies = read[task.id]
        if isinstance(bodies, LookupError):
            verdicts[task.id] = ("missing", str(bodies))
        elif len(bodies) != task.regions:
            verdicts[task.id] = ("missing", f"expected {task.regions} '### BEGIN YOUR CODE' block(s) for "
                                            f"{task.id} in {task.path}, found {len(bodies)} (were the markers removed?)")
        elif _is_stub(bodies):
            verdicts[task.id] = ("not-attempted", "the code is the stub as handed out")
        else:
            answers[task.id] = bodies
    return answers, verdicts


def could_not_grade(err):
    """The reason in a "could not grade" row: what went wrong, never a traceback."""
    return f"could not grade: {type(err).__name__}: {str(err)[:300]}"


def grade(submission, out=None, root=None, timeout=10.0, jobs=None, only=None, unsafe=False,
          cache_dir=None, roster=None, runner=None, student_id=None):
    """Grade ``submission``; write the reports into ``out`` if given; return the report.

    ``student_id``: who handed it in, as the instructor's download or the LMS says;
    by default the submission's file or folder name (``intake.submission_id``).
    Whatever goes wrong with one unit (its sandbox's records, its scoring)
    makes that unit's tasks "could-not-grade" rows; the others are graded.
    """
    root = course_root(root)
    runner = runner or Runner(timeout=timeout, unsafe=unsafe)  # no sandbox: stop before anything else
    found = checked_tasks(root)
    unknown = set(only or ()) - {t.id for t in found}
    if unknown:
        raise CourseError(f"no such task: {', '.join(sorted(unknown))} (python -m coursekit tasks)")
    found = [t for t in found if only is None or t.id in only]
    start = time.monotonic()
    if student_id is None:
        student_id, identity_problem = student_identity(Path(submission).name, roster)
    else:
        identity_problem = None if roster is None or student_id in roster else \
            f"id {student_id!r} is not on the roster"
    with tempfile.TemporaryDirectory(prefix="coursekit-grade-") as scratch:
        scratch = Path(scratch)
        edition, notes = open_submission(submission, scratch)
        answers, verdicts = _answers(found, edition)
        # 1. the reference runs (cached): what every check expects
        pairs = []  # (reference unit, how to build the student's unit)
        for task in (t for t in found if t.kind == "nnref"):
            if task.id not in answers:
                continue
            for index, unit in enumerate(nnref_units(task, root, scratch / "ref" / task.slug)):
                pairs.append((unit, lambda keep, task=task, index=index: nnref_units(
                    task, root, scratch / "student" / f"{task.slug}-{index}", answers[task.id], keep)))
        for path in sorted({t.path for t in found if t.kind == "chapter"}):
            # one reference unit per chapter, whichever exercises this student answered: run once
            # for the class (cached); the student's unit runs the answered ones
            tasks = [t for t in found if t.path == path]
            if not any(t.id in answers for t in tasks):
                continue
            name = Path(path).stem
            ref_units, _ = chapter_units(path, tasks, root, scratch / "ref" / name)
            for index, unit in enumerate(ref_units):
                pairs.append((unit, lambda keep, path=path, tasks=tasks, name=name, index=index: chapter_units(
                    path, tasks, root, scratch / "student" / f"{name}-{index}", answers, keep)))

        def run_pair(pair):
            ref_unit, build = pair
            try:
                reference = reference_records(ref_unit, root, cache_dir, runner,
                                              scratch / "runs" / f"ref-{id(ref_unit)}")
                both = checks.both_sides_ids(reference, ref_unit.skeletons)
                keep = checks.keep_for_student(both)
                built = build(keep)
                if isinstance(built, str):  # the student's nnref file does not compile
                    return None, {ref_unit.tasks[0]: ("syntax-error", built)}
                units, problems = built if isinstance(built, tuple) else (built, {})
                problems = {k: ("syntax-error", v) for k, v in problems.items()}
                unit = units[[u.hidden for u in units].index(ref_unit.hidden)]
                records, events = runner.run(unit, scratch / "runs" / f"stu-{id(unit)}", reference=reference)
                return score_unit(unit, reference, records, events, both), problems
            except Exception as err:  # this unit's tasks, not the submission, not the class
                return None, {task_id: ("could-not-grade", could_not_grade(err))
                              for task_id in ref_unit.tasks if task_id in answers}

        tests = {}
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            for results, problems in pool.map(run_pair, pairs):
                for task_id, problem in problems.items():
                    if verdicts.get(task_id, ("",))[0] != "could-not-grade":
                        verdicts[task_id] = problem
                for task_id, rows in (results or {}).items():
                    if task_id in answers:
                        tests.setdefault(task_id, []).extend(rows)
    rows = []
    for task in found:
        if task.id in verdicts:
            rows.append(_task_result(task, [], *verdicts[task.id]))
        else:
            rows.append(_task_result(task, tests.get(task.id, [])))
    report = {
        "student": student_id,
        "identity_problem": identity_problem,
        "submission": Path(submission).name,
        "points": round(sum(r.points for r in rows), 2),
        "max_points": sum(r.max_points for r in rows),
        "counts": {s: sum(r.status == s for r in rows) for s in STATUSES},
        "time_limit_per_test": timeout,
        "sandbox": "none (--unsafe)" if unsafe else f"bubblewrap; limits: {sandbox.whole_sandbox_limits()}",
        "seconds": round(time.monotonic() - start, 1),
        "left_out": notes,
        "tasks": [vars(r) for r in rows],
    }
    if out is not None:
        write_report(report, out)
    return report


def write_report(report, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (out / "report.md").write_text(report_markdown(report), encoding="utf-8")
    (out / "feedback.md").write_text(feedback_markdown(report), encoding="utf-8")


def _cell(text, limit=300):
    return intake.markdown_cell(text, limit)


def report_markdown(report):
    """The instructor's report: every test, hidden ones named."""
    counts = ", ".join(f"{n} {s}" for s, n in report["counts"].items() if n)
    lines = [f"# Grade report: {report['points']:g} / {report['max_points']} points", "",
             f"Student: {_cell(report['student'])}" + (f" ({_cell(report['identity_problem'])})"
                                                       if report["identity_problem"] else "") + "  ",
             f"Submission: {_cell(report['submission'])}  ",
             f"Tasks: {counts}  ",
             f"Time limit per test: {report['time_limit_per_test']:g} s; graded in {report['seconds']} s; "
             f"sandbox: {report['sandbox']}", ""]
    lines += [f"- left out of the submission: {note}" for note in report.get("left_out", [])]
    lines += ["", "| Task | Where | Status | Points | First failure |", "| --- | --- | --- | --- | --- |"]
    for task in report["tasks"]:
        first = next((t for t in task["tests"] if not t["passed"]), None)
        failure = _cell(f"{first['test']}: {first['why']}") if first else _cell(task["message"])
        lines.append(f"| {_cell(task['id'])} | {_cell(task['where'])} | {task['status']} | "
                     f"{task['points']:g} / {task['max_points']} | {failure} |")
    return "\n".join(lines) + "\n"


def feedback_markdown(report):
    """What the student sees: per task, status and points; for each failed visible test, what and why.

    Hidden tests are counted, never named or quoted; no paths but the edition's own.  The "why"
    shown is the grader's own words (``hint``), never text from the student's process: a value or
    an exception message the submission made could carry whatever its sandbox could read.
    """
    lines = [f"# Feedback: {report['points']:g} / {report['max_points']} points", "",
             f"Student: {_cell(report['student'] or 'unidentified (ask your instructor)')}", ""]
    if report.get("left_out"):
        lines += ["Left out of your submission (a submission holds regular files only):", ""]
        lines += [f"- {note}" for note in report["left_out"]] + [""]
    lines += ["| Task | Status | Points |", "| --- | --- | --- |"]
    for task in report["tasks"]:
        lines.append(f"| {_cell(task['id'])} | {task['status']} | {task['points']:g} / {task['max_points']} |")
    lines.append("")
    for task in report["tasks"]:
        if task["status"] == "passed":
            continue
        lines.append(f"## {_cell(task['id'])}: {task['status']}")
        lines.append("")
        if not task["tests"]:
            lines.append(f"- {_cell(task.get('hint', task['message']), 500)}")
        visible = [t for t in task["tests"] if not t["hidden"]]
        hidden = [t for t in task["tests"] if t["hidden"]]
        for test in visible:
            if not test["passed"]:
                lines.append(f"- {_cell(test['test'], 120)}: {_cell(test.get('hint', ''), 240)}")
        if hidden:
            failed = sum(not t["passed"] for t in hidden)
            lines.append(f"- hidden tests: {len(hidden) - failed} of {len(hidden)} passed")
        lines.append("")
    return "\n".join(lines) + "\n"
