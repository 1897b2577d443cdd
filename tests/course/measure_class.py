"""Measure the grader on a synthetic class: ``python tests/course/measure_class.py N OUT.json [--honest]``.

With ``--honest``: N honest submissions cycling through complete, untouched,
a random half of the tasks, a random quarter, and all but one (answers are the
reference's, so each answered task is worth all its points and the others
none), graded twice into two folders: the two gradebooks must be the same.

N submissions cycling through class_fixture.py's six kinds (solved, half
done, broken, looping, crashing, hostile), each zip named after its own id
(``KIND-NNN.zip``: ids come from the names), graded as
``./dev.sh grade`` grades a class (tasks: class_fixture.TASKS).  Records the
wall time, the average per submission, the gradebook's exactness, and the
sandbox's own cost: the same trivial run with and without bubblewrap.
"""
import ast
import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(HERE)]

from class_fixture import NNREF_TASK, TASKS, build_class, expected_points  # noqa: E402
from coursekit import batch, sandbox, student  # noqa: E402


def functions(path):
    return [n.name for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def sandbox_cost(runs=10):
    """Seconds per run of ``python -c pass``: in bubblewrap (as the grader starts it) and without."""
    with tempfile.TemporaryDirectory() as scratch:
        task, box = Path(scratch) / "task", Path(scratch) / "box"
        task.mkdir()
        box.mkdir()
        uid = sandbox.UIDS[0] if os.geteuid() == 0 else None
        if uid is not None:
            os.chown(box, uid, uid)
        wrapped = sandbox.bwrap_command(task, box, uid)[:-2] + ["-c", "pass"]
        plain = [sys.executable, "-s", "-c", "pass"]
        times = {}
        for name, command in (("bwrap", wrapped), ("plain", plain)):
            start = time.monotonic()
            for _ in range(runs):
                subprocess.run(command, check=True, capture_output=True)
            times[name] = (time.monotonic() - start) / runs
    return times


HONEST_KINDS = ("complete", "untouched", "half", "quarter", "all-but-one")


def honest(count, out_json, jobs=None, timeout=10.0):
    """The mixed honest class (see the module docstring)."""
    import random
    folder = Path(tempfile.mkdtemp(prefix="coursekit-measure-"))
    base = folder / "edition"
    student.build(base, root=ROOT)
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    reference = {t: student.reference_answer(found[t], ROOT) for t in TASKS}
    submissions = folder / "class"
    submissions.mkdir()
    expected, kinds = {}, {}
    for k in range(count):
        kind = HONEST_KINDS[k % len(HONEST_KINDS)]
        draw = random.Random(k)
        chosen = {"complete": list(TASKS), "untouched": [], "half": draw.sample(TASKS, len(TASKS) // 2),
                  "quarter": draw.sample(TASKS, max(1, len(TASKS) // 4)),
                  "all-but-one": draw.sample(TASKS, len(TASKS) - 1)}[kind]
        name = f"{kind}-{k:03d}"
        edition = Path(shutil.copytree(base, folder / "editions" / name))
        for task_id in chosen:
            student.write_answer(found[task_id], edition, reference[task_id])
        with zipfile.ZipFile(submissions / f"{name}.zip", "w") as archive:
            for file in sorted(edition.rglob("*")):
                archive.write(file, Path(name) / file.relative_to(edition))
        shutil.rmtree(edition)
        expected[name] = {t: (found[t].points if t in chosen else 0) for t in TASKS}
        kinds[name] = kind
    runs = []
    for run in ("first", "second"):
        start = time.monotonic()
        _rows, reports = batch.grade_all(submissions, folder / run, root=ROOT, jobs=jobs, timeout=timeout,
                                         only=set(TASKS))
        seconds = time.monotonic() - start
        with open(folder / run / "gradebook.csv", newline="") as f:
            rows = {row["id"]: row for row in csv.DictReader(f)}
        wrong = [i for i, points in expected.items()
                 if i not in rows or any(abs(float(rows[i][t]) - p) > 1e-9 for t, p in points.items())]
        by_kind = {}
        for report in reports:
            by_kind.setdefault(kinds[report["student"]], []).append(report["seconds"])
        runs.append({"wall_seconds": round(seconds, 1), "seconds_per_submission": round(seconds / count, 2),
                     "gradebook_wrong": wrong, "load_average_after": os.getloadavg(),
                     "mean_seconds_by_kind": {k: round(sum(v) / len(v), 1) for k, v in by_kind.items()}})
    same = (folder / "first" / "gradebook.csv").read_text() == (folder / "second" / "gradebook.csv").read_text()
    result = {"submissions": count, "kinds": HONEST_KINDS, "tasks": TASKS, "cores": os.cpu_count(),
              "jobs": jobs or os.cpu_count(), "time_limit_per_test": timeout, "runs": runs,
              "second_gradebook_same": same}
    Path(out_json).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    shutil.rmtree(folder, ignore_errors=True)


def main(count, out_json, jobs=None, timeout=10.0):
    folder = Path(tempfile.mkdtemp(prefix="coursekit-measure-"))
    base = folder / "edition"
    student.build(base, root=ROOT)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    hidden = ROOT / "tests" / "course" / "hidden" / "test_module_named_modules_hidden.py"
    ids = build_class(base, folder / "six", ROOT, listener.getsockname()[1], [str(hidden)], str(hidden))
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    expected_by_id = expected_points(found, functions(ROOT / found[NNREF_TASK].tests[0]),
                                     functions(ROOT / found[NNREF_TASK].hidden_tests[0]))
    kinds = {"alice": "s001", "bob": "s002", "carol": "s003", "dave": "dave", "erin": "s005", "mallory": "s006"}
    submissions = folder / "class"
    submissions.mkdir()
    expected = {}
    names = list(ids)
    for k in range(count):
        kind = names[k % len(names)]
        name = f"{kind}-{k:03d}"
        edition = folder / "six" / "editions" / kind
        with zipfile.ZipFile(submissions / f"{name}.zip", "w") as archive:
            for file in sorted(edition.rglob("*")):
                archive.write(file, Path(name) / file.relative_to(edition))
        expected[name] = expected_by_id[kinds[kind]]
    start = time.monotonic()
    batch.grade_all(submissions, folder / "out", root=ROOT, jobs=jobs, timeout=timeout, only=set(TASKS))
    seconds = time.monotonic() - start
    with open(folder / "out" / "gradebook.csv", newline="") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    wrong = [i for i, points in expected.items()
             if i not in rows or any(abs(float(rows[i][t]) - p) > 1e-9 for t, p in points.items())]
    result = {"submissions": count, "tasks": TASKS, "wall_seconds": round(seconds, 1),
              "seconds_per_submission": round(seconds / count, 2),
              "cores": os.cpu_count(), "load_average_after": os.getloadavg(),
              "gradebook_rows": len(rows), "gradebook_wrong": wrong,
              "sandbox_start_seconds": sandbox_cost(), "time_limit_per_test": timeout}
    Path(out_json).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    (honest if "--honest" in sys.argv[3:] else main)(int(sys.argv[1]), sys.argv[2])
