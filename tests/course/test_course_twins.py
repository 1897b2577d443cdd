"""No solution twin: no code the student edition ships complete does an nnref task's work (issue 27, item 3).

``coursekit.twins.find`` builds the student edition, writes for every nnref task
and every shipped function that takes the task function's arguments (its
module's and class's, the seams' installed functions, the optimizers' fused
updates) a submission whose task body only calls it, and grades those with
the real grader.  None may pass.  The planted cases show it finds a twin: the
course with sgd_update_'s ``twin=`` markers taken out (the defence removed),
and a copy of ``Module.named_modules``'s body planted in the mirror module.
"""
import shutil
from pathlib import Path

import pytest

from course_root import ROOT
from coursekit import student, twins
from coursekit.markers import SOLUTION, find_regions


def course_copy(target):
    """The parts of the course that student.build and the grader read, copied into ``target``."""
    for name in ("nnref", "book", "tests/course"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("requirements.txt", "requirements-lab.txt"):
        shutil.copy(ROOT / name, target / name)
    return target


def test_no_shipped_function_passes_a_task(grading_timeout):
    found, tried = twins.find(ROOT, jobs=2, timeout=grading_timeout)
    tasks = {t.id for t in student.checked_tasks(ROOT) if t.kind == "nnref"}
    assert {t["task"] for t in tried if t["label"] != twins.CONTROL} == tasks  # every nnref task has candidates
    assert found == [], [f"{t['task']} <- {t['label']}" for t in found]
    # the known twin is a candidate, passes the screen (the reference keeps it), and fails in the grader,
    # where the task's reference solution, graded beside it, passes
    fused = [t for t in tried if t["label"] in ("nnref.optim._fused.sgd_update_",
                                                "the seam nnref.core.optim.sgd.tuned_update")]
    assert len(fused) == 2 and all(t["screen"] and t["status"] == "failed" for t in fused), fused
    controls = {t["task"]: t for t in tried if t["label"] == twins.CONTROL}
    assert set(controls) == tasks and all(t["screen"] for t in controls.values())  # the screen can pass
    assert controls["sgd.update"]["status"] == "passed"


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """One search on one course copy with both plants in it: sgd_update_ shipped whole (its ``twin=``
    markers taken out, the defence removed), and a copy of Module.named_modules's body planted as a
    function of the mirror module nnref/nn/modules/module.py.  Each nnref task is graded on the
    reference with only its own body the submission's, so the two plants do not meet, and one
    search (one student edition, one listing, one class graded) serves the two tests below."""
    root = course_copy(tmp_path_factory.mktemp("planted") / "course")
    fused = root / "nnref" / "optim" / "_fused.py"
    text = fused.read_text()
    markers_were_there = any(r.kind == SOLUTION and r.meta.get("twin") == "sgd.update" for r in find_regions(text))
    fused.write_text("".join(line for line in text.splitlines(keepends=True) if "twin=sgd.update" not in line
                             and "### END SOLUTION" not in line))
    task = next(t for t in student.checked_tasks(root) if t.id == "module.named_modules")
    (body,) = student.reference_answer(task, root)
    mirror = root / "nnref" / "nn" / "modules" / "module.py"
    mirror.write_text(mirror.read_text() + "\n\ndef _walk(self, memo=None, prefix='', remove_duplicate=True):\n" +
                      body.replace("module.named_modules(", "_walk(module, ") + "\n")
    found, tried = twins.find(root, task_ids={"sgd.update", task.id}, jobs=2, timeout=6.0)
    return {"markers_were_there": markers_were_there, "found": found, "tried": tried}


def test_a_twin_without_its_markers_is_found(planted):
    """The defence removed: sgd_update_ shipped whole. The finder reports it, the seam too."""
    assert planted["markers_were_there"]
    found = [t for t in planted["found"] if t["task"] == "sgd.update"]
    # (failing, it shows what the screen let through and the grader's verdict on each: it failed
    # once in CI, seam missing, and passed in every run since, loaded or not)
    screened = [t for t in planted["tried"] if t["task"] == "sgd.update" and t["screen"]]
    assert sorted(t["label"] for t in found) == ["nnref.optim._fused.sgd_update_",
                                                 "the seam nnref.core.optim.sgd.tuned_update"], screened


def test_a_planted_twin_is_found(planted):
    """A copy of Module.named_modules's body, planted as a function of the mirror module nnref/nn/modules/module.py."""
    tried = [t for t in planted["tried"] if t["task"] == "module.named_modules"]
    found = [t for t in planted["found"] if t["task"] == "module.named_modules"]
    assert [t["label"] for t in found] == ["nnref.nn.modules.module._walk"], tried
    assert [t["status"] for t in tried if t["label"] == twins.CONTROL] == ["passed"]


@pytest.mark.parametrize("flag", ["fused", "foreach"])
def test_the_student_edition_leaves_the_twin_out(student_edition, flag):
    """In the student edition SGD(fused=True) says which exercise it belongs to; the reference takes it."""
    import subprocess
    import sys
    code = ("import nnref, nnref.optim\n"
            "p = nnref.nn.Parameter(nnref.ones(2)); p.grad = nnref.ones(2)\n"
            f"nnref.optim.SGD([p], lr=0.5, {flag}=True).step()\n"
            "print(p.tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=student_edition,
                          env={"PYTHONPATH": str(student_edition), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0
    assert "NotImplementedError: nnref.optim._fused.sgd_update_ is part of exercise sgd.update" in done.stderr
    reference = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                               env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    assert reference.stdout.strip() == "[0.5, 0.5]"


@pytest.mark.parametrize("marker, problem", [
    ("### BEGIN SOLUTION twin=sgd.updat", "twin=sgd.updat names no task marked in nnref"),
    ("### BEGIN SOLUTION twin=sgd.update points=2", "a twin region takes twin=TASK only"),
])
def test_a_twin_marker_names_a_task_and_nothing_else(tmp_path, marker, problem):
    from coursekit import tasks
    root = course_copy(tmp_path / "course")
    fused = root / "nnref" / "optim" / "_fused.py"
    fused.write_text(fused.read_text().replace("### BEGIN SOLUTION twin=sgd.update", marker))
    _found, problems = tasks.discover(root)
    assert [p for p in problems if problem in p and "nnref/optim/_fused.py" in p], problems


def test_the_twin_is_a_task_s_and_hidden_from_listings():
    """sgd.update lists its twin's file, whose lines the student edition's chapter listings may not show."""
    from coursekit import tasks
    task = next(t for t in student.checked_tasks(ROOT) if t.id == "sgd.update")
    assert task.twins == ["nnref/optim/_fused.py"]
    lines = (ROOT / "nnref" / "optim" / "_fused.py").read_text().splitlines()
    hidden = tasks.solved_lines(ROOT, [task])["nnref/optim/_fused.py"]
    assert any("add_scaled_(param, -lr, d_p, work)" in lines[n - 1] for n in hidden)
    assert not any("def sgd_update_" in lines[n - 1] for n in hidden)  # the signature and docstring stay
