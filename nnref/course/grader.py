"""The autograder: ``python -m nnref.course grade SUBMISSION [--out DIR]``.

A submission is a student edition (a folder, or a zip of one) with the
students' code between the ``### BEGIN YOUR CODE`` / ``### END YOUR CODE``
markers.  Each task is graded on its own, against the instructor's tests:

* an **nnref task** runs its visible and hidden pytest files
  (``tests/course/tasks``, ``tests/course/hidden``) on a copy of the
  *reference* nnref in which only that task's code is the student's, so a
  mistake in one function cannot fail another task; the tests compare with
  fixed answers, with the reference solution and, where installed, with PyTorch;
* a **chapter task** (an exercise) runs the reference chapter up to the
  exercise, then the exercise's cells with the student's code in place of the
  solution: the visible asserts and the hidden tests of the reference.

Tasks run in forked processes with a time limit each (``_worker.py``): a
syntax error, an exception, a crash or an infinite loop costs that task only.
The report, per task (status, first failing assertion, points), is written
as ``report.md`` and ``report.json``.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import notebooks
from .markers import SOLUTION, MarkerError, replace_regions
from .student import CourseError, checked_tasks, read_answer
from .tasks import ROOT

WORKER = Path(__file__).with_name("_worker.py")
STATUSES = ("passed", "failed", "syntax-error", "timeout", "crashed", "missing")


@dataclass
class TaskResult:
    id: str
    kind: str
    where: str
    chapter: str
    points: int
    max_points: int
    status: str
    message: str = ""
    location: str = ""
    seconds: float = 0.0
    output: str = field(default="", repr=False)


# -- the submission ---------------------------------------------------------------------------------
def open_submission(submission, scratch):
    """The folder of the student edition inside ``submission`` (a folder or a .zip)."""
    submission = Path(submission)
    if submission.is_file() and zipfile.is_zipfile(submission):
        target = Path(scratch) / "submission"
        with zipfile.ZipFile(submission) as archive:
            archive.extractall(target)  # zipfile keeps members inside target
        submission = target
    if not submission.is_dir():
        raise CourseError(f"{submission} is neither a folder nor a zip file")
    children = sorted(p for p in submission.iterdir() if p.is_dir())
    grandchildren = sorted(p for child in children for p in child.iterdir() if p.is_dir())
    for folder in [submission, *children, *grandchildren]:
        if (folder / "course.json").exists() or ((folder / "nnref").is_dir() and (folder / "book").is_dir()):
            return folder
    raise CourseError(f"{submission} does not look like a student edition (no course.json, "
                      "no nnref/ and book/ folders)")


# -- plans for the workers --------------------------------------------------------------------------
def _sandbox(task, bodies, root, scratch):
    """A copy of the reference nnref with only ``task``'s regions replaced by the student's code."""
    sandbox = Path(scratch) / "sandboxes" / task.slug
    shutil.copytree(root / "nnref", sandbox / "nnref",
                    ignore=shutil.ignore_patterns("course", "__pycache__", "*.pyc"))
    path = sandbox / task.path
    text = path.read_text(encoding="utf-8")
    pending = list(bodies)

    def replace(region, lines):
        if region.kind != SOLUTION or region.meta.get("task") != task.id:
            return None
        return [lines[region.begin], *pending.pop(0).split("\n"), lines[region.end]]

    patched = replace_regions(text, replace, task.path)
    path.write_text(patched, encoding="utf-8")
    return sandbox, patched


def _syntax_error(text, filename):
    try:
        compile(text, filename, "exec")
    except SyntaxError as err:
        line = f", line {err.lineno}" if err.lineno else ""
        source = f": {err.text.strip()}" if err.text else ""
        return f"SyntaxError: {err.msg} ({filename}{line}){source}"
    return None


def _answer(task, edition):
    """``(bodies, problem)``: the student's code for ``task``, or why it cannot be graded."""
    try:
        bodies = read_answer(task, edition)
    except LookupError as err:
        return None, str(err)
    if len(bodies) != task.regions:
        return None, (f"expected {task.regions} '### BEGIN YOUR CODE' block(s) for {task.id} in "
                      f"{task.path}, found {len(bodies)} (were the markers removed?)")
    return bodies, None


def nnref_plan(found, edition, root, scratch, timeout):
    steps = []
    for task in found:
        bodies, problem = _answer(task, edition)
        step = {"task": task.id, "slug": task.slug, "timeout": timeout}
        if problem:
            step["result"] = {"status": "missing", "message": problem}
        else:
            sandbox, patched = _sandbox(task, bodies, root, scratch)
            error = _syntax_error(patched, task.path)
            if error:
                step["result"] = {"status": "syntax-error", "message": error}
            step["sandbox"] = str(sandbox)
            step["tests"] = [str(root / t) for t in task.tests + task.hidden_tests]
        steps.append(step)
    return {"kind": "nnref", "steps": steps, "sys_path": [],
            "preload": ["numpy", "ml_dtypes", "pytest", "torch"]}


def chapter_plan(path, found, edition, root, timeout):
    """Run the reference chapter; at each exercise graded, a task step with the student's cells."""
    reference = nbformat.read(root / path, as_version=4)
    exercises, _problems = notebooks.exercises(reference)
    first_cells = {e.code_cells[0]: e for e in exercises if e.code_cells}
    later_cells = {i for e in exercises for i in e.code_cells[1:]}
    tasks = {t.id: t for t in found}
    steps = []
    for index, cell in enumerate(reference.cells):
        if cell.cell_type != "code" or index in later_cells:
            continue
        exercise = first_cells.get(index)
        if exercise is not None and exercise.label in tasks:
            steps.append(_chapter_step(reference, exercise, tasks[exercise.label], edition, timeout))
            continue
        for i in exercise.code_cells if exercise is not None else [index]:
            steps.append({"run": reference.cells[i].source, "label": f"{path} cell {i}",
                          "allow_error": "raises-exception" in reference.cells[i].metadata.get("tags", [])})
    return {"kind": "chapter", "steps": steps, "sys_path": [str(root)], "preload": []}


def _chapter_step(reference, exercise, task, edition, timeout):
    sources = notebooks.solution_sources(reference, exercise)
    step = {"task": task.id, "slug": task.slug, "timeout": timeout, "reference": sources}
    bodies, problem = _answer(task, edition)
    if problem:
        step["result"] = {"status": "missing", "message": problem}
    else:
        try:
            step["student"] = notebooks.fill_solutions(sources, bodies, task.id)
        except MarkerError as err:
            step["result"] = {"status": "missing", "message": str(err)}
    return step


# -- running ---------------------------------------------------------------------------------------
def _run_worker(plan, name, root, scratch, timeout):
    workdir = Path(scratch) / "work" / name
    workdir.mkdir(parents=True)
    plan.update(workdir=str(workdir), timeout=timeout, reference=str(root),
                results=str(workdir / "results.jsonl"), log=str(workdir / "worker.log"),
                env={"MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1",
                     "NNREF_COURSE_REFERENCE": str(root)})
    plan_path = workdir / "plan.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH="")
    tasks_in_plan = sum("task" in s for s in plan["steps"])
    limit = 300 + tasks_in_plan * (timeout + 5)  # chapter code + every task at its limit
    try:
        completed = subprocess.run([sys.executable, str(WORKER), str(plan_path)], cwd=workdir, env=env,
                                   capture_output=True, text=True, timeout=limit)
        trouble = completed.stderr[-2000:] if completed.returncode else ""
    except subprocess.TimeoutExpired:
        trouble = f"the grader's worker for {name} ran past {limit} s"
    results = {}
    if (workdir / "results.jsonl").exists():
        for line in (workdir / "results.jsonl").read_text(encoding="utf-8").splitlines():
            result = json.loads(line)
            results[result.pop("id")] = result
    for step in plan["steps"]:
        if "task" in step and step["task"] not in results:
            results[step["task"]] = {"status": "crashed",
                                     "message": f"the grader's worker stopped before this task: {trouble}"}
    return results


def grade(submission, out=None, root=ROOT, timeout=60.0, jobs=None, only=None):
    """Grade ``submission``; write ``report.md`` and ``report.json`` into ``out`` if given."""
    root = Path(root)
    found = checked_tasks(root)
    unknown = set(only or ()) - {t.id for t in found}
    if unknown:
        raise CourseError(f"no such task: {', '.join(sorted(unknown))} (python -m nnref.course tasks)")
    found = [t for t in found if only is None or t.id in only]
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nnref-grade-") as scratch:
        edition = open_submission(submission, scratch)
        plans = []
        nnref_tasks = [t for t in found if t.kind == "nnref"]
        if nnref_tasks:
            plans.append(("nnref", nnref_plan(nnref_tasks, edition, root, scratch, timeout)))
        chapters = sorted({t.path for t in found if t.kind == "chapter"}, reverse=True)
        if chapters:
            # Chapters run in a copy of book/, as in Jupyter (relative paths work), and write there.
            shutil.copytree(root / "book", Path(scratch) / "book", ignore=shutil.ignore_patterns("_*"))
        for path in chapters:
            chapter_tasks = [t for t in found if t.path == path]
            plan = chapter_plan(path, chapter_tasks, edition, root, timeout)
            plan["cwd"] = str((Path(scratch) / path).parent)
            plans.append((Path(path).stem, plan))
        results = {}
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            for found_results in pool.map(lambda p: _run_worker(p[1], p[0], root, scratch, timeout), plans):
                results.update(found_results)
    report = _report(found, results, submission, time.monotonic() - start, timeout)
    if out is not None:
        write_report(report, out)
    return report


def _pytorch_version():
    try:
        from importlib.metadata import version
        return version("torch")
    except Exception:
        return None


def _report(found, results, submission, seconds, timeout):
    rows = []
    for task in found:
        result = results.get(task.id, {"status": "crashed", "message": "no result"})
        status = result.get("status", "crashed")
        rows.append(TaskResult(
            id=task.id, kind=task.kind,
            where=f"{task.path}: {task.where}" if task.kind == "nnref" else task.path,
            chapter=task.chapter, max_points=task.points, points=task.points if status == "passed" else 0,
            status=status, message=result.get("message", ""), location=result.get("location", ""),
            seconds=result.get("seconds", 0.0), output=result.get("output", "")))
    return {
        "submission": str(submission),
        "points": sum(r.points for r in rows),
        "max_points": sum(r.max_points for r in rows),
        "counts": {s: sum(r.status == s for r in rows) for s in STATUSES},
        "time_limit_per_task": timeout,
        "seconds": round(seconds, 1),
        "pytorch": _pytorch_version(),
        "tasks": [vars(r) for r in rows],
    }


def write_report(report, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (out / "report.md").write_text(report_markdown(report), encoding="utf-8")


def _cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")[:300]


def report_markdown(report):
    counts = ", ".join(f"{n} {s}" for s, n in report["counts"].items() if n)
    lines = [f"# Grade report: {report['points']} / {report['max_points']} points", "",
             f"Submission: `{report['submission']}`  ",
             f"Tasks: {counts}  ",
             f"Time limit per task: {report['time_limit_per_task']:g} s; graded in {report['seconds']} s; "
             f"PyTorch {report['pytorch'] or 'not installed (no comparison with it)'}", "",
             "| Task | Where | Status | Points | First failure |", "| --- | --- | --- | --- | --- |"]
    for task in report["tasks"]:
        failure = _cell(task["message"]) if task["status"] != "passed" else ""
        if task["location"] and task["status"] != "passed":
            failure += f" (at {_cell(task['location'])})"
        lines.append(f"| `{task['id']}` | {_cell(task['where'])} | {task['status']} | "
                     f"{task['points']} / {task['max_points']} | {failure} |")
    return "\n".join(lines) + "\n"
