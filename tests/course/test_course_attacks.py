"""The attack suite: what a hostile submission (mallory, in class_fixture.py) tries, and that none of it works.

Each attack sits in one task of the submission; an attack that works says
"ATTACK SUCCEEDED" and fails its own task.  Each test checks that the attack
failed *and* that the honest part of the same submission was graded right.
"""
import os
from pathlib import Path

from class_fixture import MARK, NNREF_TASK
from course_root import ROOT
from coursekit import sandbox


def mallory(graded_class):
    report = next(r for r in graded_class["reports"] if r["student"] == "s006")
    return report, {t["id"]: t for t in report["tasks"]}


def whys(task):
    return " ".join(t["why"] for t in task["tests"]) + " " + task["message"]


def test_forged_results_earn_nothing(graded_class):
    """walking-ex1: a wrong answer, with patched probes, forged 'end ok' records and 'passed' result files."""
    report, tasks = mallory(graded_class)
    assert tasks["walking-ex1"]["status"] == "failed" and tasks["walking-ex1"]["points"] == 0
    assert all(not t["passed"] for t in tasks["walking-ex1"]["tests"])


def test_memory_processes_and_network_are_limited(graded_class):
    """walking-ex2: 20 GiB, 50 processes, a socket to 127.0.0.1; then the right answer, hidden checks included."""
    _report, tasks = mallory(graded_class)
    assert MARK not in whys(tasks["walking-ex2"]), whys(tasks["walking-ex2"])
    assert tasks["walking-ex2"]["status"] == "passed"
    assert any(t["hidden"] for t in tasks["walking-ex2"]["tests"])
    assert not graded_class["connected"]


def test_killing_the_runner_costs_that_exercise_only(graded_class):
    """walking-ex3 kills the process that runs the chapter; walking-ex4 is still graded, in a new sandbox."""
    _report, tasks = mallory(graded_class)
    assert tasks["walking-ex3"]["status"] == "crashed"
    assert tasks["walking-ex4"]["status"] == "passed"


def test_hidden_tests_and_references_cannot_be_read_or_changed(graded_class):
    """walking-ex4 looks for hidden tests, reference notebooks and solutions, and appends to a hidden test."""
    _report, tasks = mallory(graded_class)
    assert MARK not in whys(tasks["walking-ex4"]), whys(tasks["walking-ex4"])
    assert graded_class["hidden_unchanged"]


def test_the_reference_solution_cannot_be_imported(graded_class):
    """The nnref task searches the sandbox for the reference named_modules, to use it: it is not there."""
    _report, tasks = mallory(graded_class)
    task = tasks[NNREF_TASK]
    assert MARK not in whys(task), whys(task)
    assert "NotImplementedError: no reference solution to import" in whys(task)
    assert task["points"] == 0


def test_a_daemon_changes_nothing_after_grading(graded_class):
    """walking-ex4 leaves a double-forked daemon that writes records 2 s later: it died with its sandbox."""
    out = graded_class["out"]
    now = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert now == graded_class["snapshot"]
    survivors = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid = int(next(line for line in status.read_text().splitlines() if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if uid in sandbox.ISSUED:  # a user of this process's sandboxes (other graders may be running)
            survivors.append(status.parent.name)
    assert sandbox.ISSUED and not survivors


def test_feedback_holds_no_hidden_source_and_no_instructor_paths(graded_class):
    hidden_lines = set()
    for path in (ROOT / "tests" / "course" / "hidden").glob("*.py"):
        visible = (ROOT / "tests" / "course" / "tasks" / path.name.replace("_hidden", "")).read_text()
        hidden_lines |= {line.strip() for line in path.read_text().splitlines()
                         if len(line.strip()) > 25 and line.strip() not in visible}
    assert hidden_lines
    for feedback in (graded_class["out"] / "feedback").iterdir():
        text = feedback.read_text()
        assert str(ROOT) not in text and "/tmp/" not in text and "coursekit" not in text, feedback.name
        assert not [line for line in hidden_lines if line in text], feedback.name
        assert "hidden tests:" in text or "s001" in feedback.name or "s006" not in feedback.name


def test_every_sandboxed_process_ran_as_another_user():
    """The sandbox's own check: a fresh unprivileged user, not the grader's."""
    assert sandbox.check() is None
    if os.geteuid() == 0:
        assert min(sandbox.UIDS) > 65535
