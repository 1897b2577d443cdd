"""The autograder on a fixture submission: some tasks solved, others broken in every way a task can break."""
import json
import shutil
import time
import zipfile

import nbformat
import pytest

from nnref.course import grader, student

# What each broken task gets instead of its solution, and the status it must earn.
BROKEN = {
    "module.named_modules": ("        def broken(:\n            pass", "syntax-error"),
    "linear.forward": ("        while True:\n            pass", "timeout"),
    "walking-ex4": ("while True:\n    pass", "timeout"),
    "backward-ex2": ("w = (", "syntax-error"),
    "hooks-ex1": ("import os\nos.abort()", "crashed"),
    "walking-ex1": ("per_child = {}\ntotal = 0", "failed"),
    "tensors-ex2": ("raise SystemExit(3)", "failed"),
}
MISSING = "apply-ex1"  # its YOUR CODE markers are deleted


def remove_markers(edition, task):
    path = edition / task.path
    notebook = nbformat.read(path, as_version=4)
    exercises, _ = student.notebooks.exercises(notebook)
    for index in next(e for e in exercises if e.label == task.id).code_cells:
        cell = notebook.cells[index]
        cell.source = "\n".join(line for line in cell.source.splitlines() if "### " not in line)
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def graded(student_edition, tmp_path_factory, grading_timeout):
    """Solve everything, break the tasks above, zip it, grade it."""
    folder = tmp_path_factory.mktemp("fixture")
    edition = shutil.copytree(student_edition, folder / "alice")
    found = {t.id: t for t in student.solve(edition)}
    for task_id, (code, _status) in BROKEN.items():
        student.write_answer(found[task_id], edition, [code] * found[task_id].regions)
    remove_markers(edition, found[MISSING])
    archive = folder / "alice.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in edition.rglob("*"):
            out.write(path, path.relative_to(folder))
    start = time.monotonic()
    report = grader.grade(archive, out=folder / "report", timeout=grading_timeout, jobs=2)
    return report, time.monotonic() - start, folder / "report", found


def test_every_task_gets_its_expected_status(graded):
    report, _seconds, _out, found = graded
    statuses = {t["id"]: t["status"] for t in report["tasks"]}
    expected = {task_id: "passed" for task_id in found}
    expected.update({task_id: status for task_id, (_code, status) in BROKEN.items()})
    expected[MISSING] = "missing"
    assert statuses == expected


def test_messages_say_what_went_wrong(graded):
    tasks_by_id = {t["id"]: t for t in graded[0]["tasks"]}
    assert tasks_by_id["module.named_modules"]["message"].startswith("SyntaxError")
    assert "module.py" in tasks_by_id["module.named_modules"]["message"]
    assert "time limit" in tasks_by_id["walking-ex4"]["message"]
    assert "SIGABRT" in tasks_by_id["hooks-ex1"]["message"]
    failed = tasks_by_id["walking-ex1"]
    assert failed["message"].startswith("AssertionError: assert {} == ")
    assert "assert per_child ==" in failed["location"]
    assert "SystemExit" in tasks_by_id["tensors-ex2"]["message"]
    assert "YOUR CODE" in tasks_by_id[MISSING]["message"]
    # the other tasks of the same files and chapters are untouched by their neighbours' trouble
    assert tasks_by_id["module.named_members"]["status"] == "passed"
    assert tasks_by_id["walking-ex2"]["status"] == "passed"


def test_time_limits_hold(graded, grading_timeout):
    report, seconds, _out, _found = graded
    for task in report["tasks"]:
        assert task["seconds"] <= grading_timeout + 3, task["id"]
    # Two loops of grading_timeout each, in parallel groups, plus the chapters' own code.
    assert seconds < 150


def test_reports(graded):
    report, _seconds, out, found = graded
    saved = json.loads((out / "report.json").read_text())
    assert saved["points"] == report["points"] == sum(t["points"] for t in report["tasks"])
    broken_points = sum(found[i].points for i in [*BROKEN, MISSING])
    assert report["points"] == report["max_points"] - broken_points
    markdown = (out / "report.md").read_text()
    assert markdown.startswith(f"# Grade report: {report['points']} / {report['max_points']} points")
    for task in report["tasks"]:
        assert f"| `{task['id']}` |" in markdown


def test_broken_tasks_pass_once_put_back(student_edition, tmp_path, grading_timeout):
    """The tasks broken above earn their points with the reference solutions (and only those are graded)."""
    edition = shutil.copytree(student_edition, tmp_path / "bob")
    chosen = {*BROKEN, MISSING}
    student.solve(edition, task_ids=chosen)
    report = grader.grade(edition, timeout=grading_timeout, jobs=2, only=chosen)
    assert {t["id"]: t["status"] for t in report["tasks"]} == {task_id: "passed" for task_id in chosen}
