"""Solution twins: code the student edition ships complete that does an nnref task's work.

``python -m coursekit twins`` (and ``tests/course/test_course_twins.py`` in CI)
looks for them the way a student would: for every nnref task it lists the
shipped functions that take the task function's arguments (``_twins_child.py``),

* the functions and methods (public and private) of the task's module, of
  its mirror module (``nnref/core/x.py`` -> ``nnref/x.py``) and of the
  task's class (inherited and attached ones included) and its subclasses
  there;
* every function the mirror installs in a seam of the core (``_seams.install``),
  read through the seam at call time and where it is defined;
* the optimizers' fused/``foreach`` updates (``nnref/optim/_fused.py``);

screens them (the task's visible tests, in a forked child on the reference,
with the task's body only calling the candidate), writes for each one left a
submission whose task body only calls it (``return twin(...)``, ``yield from
twin(...)`` for a generator), grades those with the real grader
(``batch.grade_all``: the task's own visible and hidden checks, in the
sandbox), and reports every delegate that passes.  A twin that is part of
the course is marked ``### BEGIN SOLUTION twin=TASK`` around its body: the
student edition, and the grader while it grades TASK, replace that body by
an error naming the exercise (``markers.twin_stub_lines``); see
book/instructors.md, "No solution twin".

Classes are not candidates (a constructor returns a new object, never does a
body's work in place), nor is the task function itself.  Chapter exercises
have their own search (``exercise_twins.py``): their built-ins are shipped by
design, and taken away by their hidden tests instead.
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import batch
from .markers import YOUR_CODE, fill_your_code, find_regions
from .student import build, checked_tasks, reference_answer
from .tasks import course_root

# A screen that runs longer rules nothing out: its candidate is graded.
SCREEN_SECONDS = 60.0


def candidates(root, found):
    """``{task id: {"arguments", "generator", "candidates": [{"label", "module", "names", "screen"}]}}``.

    Listed, and screened, in a child process on ``root``'s nnref (``_twins_child.py``).
    """
    wanted = [{"id": t.id, "module": t.path[:-len(".py")].replace("/", "."), "where": t.where, "path": t.path,
               "tests": t.tests[0]} for t in found]
    done = subprocess.run([sys.executable, "-I", str(Path(__file__).with_name("_twins_child.py")), str(root),
                           str(SCREEN_SECONDS), str(Path(__file__).resolve().parents[1])],
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


CONTROL = "the reference solution (control)"


def find(root=None, task_ids=None, work=None, jobs=2, timeout=10.0):
    """``(twins, tried)`` for the nnref tasks of the course at ``root`` (those in ``task_ids``).

    ``tried``: every candidate, ``{"task", "label", "screen", "status", "points", "max_points"}``
    (``status`` None where the screen already failed it); ``twins``: those the grader passed.
    Each task also has a control, labelled ``CONTROL``: its reference solution, screened, and
    graded beside the task's candidates when any is graded; it must pass, or nothing is shown.
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
                 for task_id, listing in listings.items() for c in listing["candidates"] + [listing["control"]]}
        graded = {task_id: [c for c in listing["candidates"] if c["screen"]] for task_id, listing in listings.items()}
        for task in found:
            if graded[task.id]:
                graded[task.id].append(listings[task.id]["control"])
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
                    bodies = (reference_answer(task, root) if candidate["label"] == CONTROL
                              else delegate_lines(regions, listings[task.id], candidate))
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
    controls = [t for t in tried if t["label"] == CONTROL]
    broken = [t for t in controls if not t["screen"] or t["status"] not in (None, "passed")]
    if broken:
        raise RuntimeError(f"the reference solutions do not pass where the candidates are tried: {broken}")
    return [t for t in tried if t["status"] == "passed" and t["label"] != CONTROL], tried
