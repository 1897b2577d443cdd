"""Measure the grader on a synthetic class: ``python tests/course/measure_class.py N OUT.json``.

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
    main(int(sys.argv[1]), sys.argv[2])
