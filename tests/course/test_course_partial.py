"""Honest partial work: an exercise is graded on the same state whatever the student did in the others.

gpu-ex3's given code uses ``net``, which gpu-ex2's solution defines: the grader runs the reference's
definitions after each exercise (``grader.chapter_units``), so a student who skipped gpu-ex2, or got
it wrong, is graded on gpu-ex3 as one who solved it; and the chapter's reference runs once for the class.
Graded a second time, from scratch, the class gets the same gradebook.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from course_root import ROOT
from coursekit import student

TASKS = ["gpu-ex2", "gpu-ex3"]


def test_an_exercise_does_not_depend_on_another_being_solved(student_edition, tmp_path):
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    reference = {t: student.reference_answer(found[t], ROOT) for t in TASKS}
    answers = {"s101": {"gpu-ex2": reference["gpu-ex2"], "gpu-ex3": reference["gpu-ex3"]},  # complete
               "s102": {"gpu-ex3": reference["gpu-ex3"]},                                     # skipped ex2
               "s103": {"gpu-ex2": ["net = None"], "gpu-ex3": reference["gpu-ex3"]}}          # ex2 wrong
    for name, mine in answers.items():
        path = Path(shutil.copytree(student_edition, tmp_path / "class" / name))
        for task_id, bodies in mine.items():
            student.write_answer(found[task_id], path, bodies)
    gradebooks = []
    for out in (tmp_path / "out", tmp_path / "again"):  # the second grading, from scratch, gives the same gradebook
        done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "grade",
                               str(tmp_path / "class"), "--out", str(out), *[a for t in TASKS for a in ("--task", t)],
                               "--jobs", "2"], capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stderr[-2000:]
        gradebooks.append((out / "gradebook.csv").read_bytes())
    assert gradebooks[0] == gradebooks[1]
    out = tmp_path / "out"
    rows = {r["id"]: r for r in csv.DictReader(open(out / "gradebook.csv", newline=""))}
    assert {i: (float(r["gpu-ex2"]), float(r["gpu-ex3"])) for i, r in rows.items()} == \
        {"s101": (1, 1), "s102": (0, 1), "s103": (0, 1)}
    # one reference run of the chapter for the class, whichever exercises each student answered
    units = [json.loads(p.read_text()) for p in (out / "reference-cache").glob("*.json")]
    assert len(units) == (2 if any(found[t].hidden_tests for t in TASKS) else 1)


def test_no_exercise_uses_a_name_only_a_later_solution_defines():
    """Every chapter: given code may use what an earlier exercise's solution defines (the grader runs the
    reference's definitions after each exercise), never what only a later one's does."""
    import nbformat
    from coursekit import notebooks
    for path in sorted((ROOT / "book").glob("[0-9]*.ipynb")):
        assert notebooks.cross_exercise_names(nbformat.read(path, as_version=4), path.name) == [], path.name


def test_a_name_from_a_later_solution_is_found():
    """Planted: gpu-ex2's given code uses load_checkpoint, which only gpu-ex3's solution defines."""
    import nbformat
    from coursekit import notebooks
    notebook = nbformat.read(ROOT / "book" / "16_gpu.ipynb", as_version=4)
    assert notebooks.cross_exercise_names(notebook) == []  # gpu-ex3 uses gpu-ex2's net: supplied
    exercise = next(e for e in notebooks.exercises(notebook)[0] if e.label == "gpu-ex2")
    notebook.cells[exercise.code_cells[-1]].source += "\nassert callable(load_checkpoint)"
    assert notebooks.cross_exercise_names(notebook) == \
        ["gpu-ex2 uses load_checkpoint, which only the solution of gpu-ex3 defines (later)"]
