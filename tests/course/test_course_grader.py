"""The grader on a synthetic class (class_fixture.py): gradebook, statuses, partial credit, time limits, reports."""
import ast
import csv
import json

import pytest

from class_fixture import NNREF_TASK, TASKS, expected_points
from course_root import ROOT
from coursekit import batch, checks, gradescope, grader, sandbox, student
from coursekit.__main__ import main


def functions_of(path):
    return [n.name for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def test_the_gradebook_is_exactly_right(graded_class):
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    expected = expected_points(found, functions_of(ROOT / found[NNREF_TASK].tests[0]),
                               functions_of(ROOT / found[NNREF_TASK].hidden_tests[0]))
    with open(graded_class["out"] / "gradebook.csv", newline="") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    assert set(rows) == set(expected) | {"s099"}  # Zoe, on the roster, handed nothing in
    for student_id, points in expected.items():
        got = {task_id: float(rows[student_id][task_id]) for task_id in TASKS}
        assert got == pytest.approx(points), student_id
        assert float(rows[student_id]["total"]) == pytest.approx(sum(points.values())), student_id
    assert float(rows["s099"]["total"]) == 0


def test_statuses_say_what_happened(graded_class):
    by_student = {r["student"] or r["submission"]: {t["id"]: t for t in r["tasks"]} for r in graded_class["reports"]}
    assert {t["status"] for t in by_student["s001"].values()} == {"passed"}
    assert by_student["s002"]["walking-ex3"]["status"] == "not-attempted"  # not "failed"
    assert by_student["s003"][NNREF_TASK]["status"] == "syntax-error"
    assert "module.py" in by_student["s003"][NNREF_TASK]["message"]
    assert by_student["s003"]["walking-ex1"]["status"] == "failed"
    assert "ValueError: not like this" in by_student["s003"]["walking-ex3"]["tests"][0]["why"]
    dave = by_student["dave"]
    assert dave[NNREF_TASK]["status"] == "timeout" and 0 < dave[NNREF_TASK]["points"] < 2
    assert dave["walking-ex4"]["status"] == "timeout"
    assert by_student["s005"][NNREF_TASK]["status"] == "crashed"
    assert by_student["s005"]["walking-ex3"]["status"] == "crashed"
    assert "SIGABRT" in by_student["s005"]["walking-ex3"]["tests"][0]["why"]


def test_identity_comes_from_the_submission_name_and_the_roster(graded_class):
    """mallory (s006.zip) says she is s001 in her student.json: nothing the student wrote names the student."""
    reports = {r["submission"]: r for r in graded_class["reports"]}
    assert reports["s001.zip"]["student"] == "s001" and reports["s006.zip"]["student"] == "s006"
    assert reports["dave.zip"]["student"] == "dave" and "not on the roster" in reports["dave.zip"]["identity_problem"]
    report = (graded_class["out"] / "report.md").read_text()
    assert "| dave | dave.zip |" in report and "conflict" not in report
    assert sorted(p.name for p in (graded_class["out"] / "feedback").iterdir()) == \
        ["dave.md", "s001.md", "s002.md", "s003.md", "s005.md", "s006.md"]


def test_loops_cost_seconds_not_minutes(graded_class, grading_timeout):
    # six submissions, two loops and a killed runner among them, on two cores shared with the rest
    assert graded_class["seconds"] < 240
    for report in graded_class["reports"]:
        assert report["seconds"] < 120, report["submission"]


def test_grading_again_resumes(graded_class, grading_timeout):
    """Already graded submissions are kept: a second run grades nothing and writes the same gradebook."""
    out = graded_class["out"]
    before = (out / "gradebook.csv").read_text()
    rows, _reports = batch.grade_all(graded_class["folder"] / "submissions", out, root=ROOT, jobs=2,
                                     timeout=grading_timeout, only=set(TASKS), progress=False,
                                     roster=graded_class["folder"] / "roster.csv")
    assert (out / "gradebook.csv").read_text() == before
    assert "Graded 0 submissions" in (out / "report.md").read_text()


def test_gradescope_results_follow_the_documented_format(graded_class):
    """https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format"""
    report = next(r for r in graded_class["reports"] if r["student"] == "s003")
    data = json.loads(json.dumps(gradescope.results(report)))
    allowed_top = {"score", "execution_time", "output", "output_format", "test_output_format",
                   "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
    allowed_test = {"score", "max_score", "status", "name", "name_format", "number", "output",
                    "output_format", "tags", "visibility", "extra_data"}
    visibilities = {"hidden", "after_due_date", "after_published", "visible"}
    assert set(data) <= allowed_top
    assert isinstance(data["score"], float) and isinstance(data["execution_time"], int)
    assert data["visibility"] in visibilities and data["stdout_visibility"] in visibilities
    assert [t["name"] for t in data["tests"]] == TASKS
    for test in data["tests"]:
        assert set(test) <= allowed_test
        assert isinstance(test["score"], float) and isinstance(test["max_score"], float)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed") and test["visibility"] in visibilities
        assert isinstance(test["output"], str) and isinstance(test["tags"], list)
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"])) == report["points"]


def test_gradescope_export(tmp_path):
    import zipfile
    path = gradescope.export(tmp_path / "autograder.zip", root=ROOT)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        run = archive.read("run_autograder").decode()
        mode = archive.getinfo("run_autograder").external_attr >> 16
    assert {"setup.sh", "run_autograder", "coursekit/grader.py", "tests/course/hidden/"
            "test_module_named_modules_hidden.py", "nnref/__init__.py"} <= names
    assert mode & 0o111 and "gradescope-run /autograder/submission /autograder/results/results.json" in run
    assert not any(name.startswith(("_build/", ".venv/", ".git/")) for name in names)


def test_without_bubblewrap_grading_refuses(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox, "_checked", {"result": "bubblewrap is not installed"})
    with pytest.raises(sandbox.SandboxUnavailable, match="--unsafe"):
        grader.Runner()
    (tmp_path / "class").mkdir()
    assert main(["--root", str(ROOT), "grade", str(tmp_path / "class")]) == 2
    assert "--unsafe" in capsys.readouterr().err


def test_the_course_root_is_named_or_found(tmp_path, monkeypatch):
    from coursekit import tasks
    monkeypatch.delenv("COURSEKIT_ROOT", raising=False)
    monkeypatch.chdir(ROOT / "book")
    assert tasks.course_root() == ROOT
    monkeypatch.chdir(tmp_path)
    with pytest.raises(tasks.CourseError, match="COURSEKIT_ROOT"):
        tasks.course_root()
    monkeypatch.setenv("COURSEKIT_ROOT", str(ROOT))
    assert tasks.course_root() == ROOT


@pytest.mark.parametrize("source, subject, expected, passed", [
    ("assert f() == [1, 2]", [1, 2], [1, 2], True),
    ("assert f() == [1, 2]", [1, 3], [1, 2], False),
    ("assert f() < 0.1", 0.05, 0.1, True),
    ("assert f() < 0.1", 0.5, 0.1, False),
    ("assert f() is None", None, None, True),
    ("assert f() is None", 3, None, False),
])
def test_checks_are_judged_on_data(source, subject, expected, passed):
    """The grader evaluates the check on the student's subject and the reference's expected value."""
    (check_id,) = checks.check_ids(source)
    skeletons = {}
    rewritten = checks.rewrite(source, keep=checks.keep_for_student([]), skeletons=skeletons)
    assert "[1, 2]" not in rewritten and "0.1" not in rewritten  # the student's run never holds the answer
    reference = {"kind": "expr", "leaves": [expected], "expected": [expected] if "None" not in source else []}
    assert checks.judge(skeletons[check_id], reference, {"leaves": [subject]})[0] is passed


def records_of(source, namespace, both=True):
    """The records the runner's probes send for ``source`` run in this process (no sandbox: data only)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("coursekit_runner_copy", ROOT / "coursekit" / "_runner.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    records = []
    runner.send = lambda record: records.append(json.loads(json.dumps(record)))
    runner.CURRENT["test"] = "t"
    skeletons = {}
    code = checks.rewrite(source, keep=(lambda _id: True) if both else checks.keep_for_student([]),
                          skeletons=skeletons)
    exec(compile(code, "<checks>", "exec"), runner.namespace_globals(dict(namespace)))
    return skeletons, {r["id"]: r for r in records}


@pytest.mark.parametrize("source, right, wrong", [
    # the grader's any/isinstance, on the modules the sandbox sent (their types)
    ("assert not any(isinstance(m, Bad) for m in ms)", {"ms": "[A(), A()]"}, {"ms": "[A(), Bad()]"}),
    ("assert all(len(x) == 2 for x in xs) and len(xs) == 2", {"xs": "[[1, 2], (3, 4)]"}, {"xs": "[[1, 2], [3]]"}),
    # identity: the student's objects, shared as the reference's are
    ("assert y is x", {"y": "x"}, {"y": "A()"}),
    ("assert [id(v) for v in vs] == [id(x), id(x)]", {"vs": "[x, x]"}, {"vs": "[x, A()]"}),
    ("assert y in {x, A()}", {"y": "x"}, {"y": "A()"}),
    # numbers and tensors, evaluated by the grader's numpy
    ("assert max(abs(a - b) for a, b in zip(u, [1.0, 2.0])) < 1e-6", {"u": "[1.0, 2.0]"}, {"u": "[1.0, 2.5]"}),
    ("assert np.allclose(t, np.ones(3), atol=1e-6) and (t == 1).all() and t.sum().item() == 3",
     {"t": "np.ones(3)"}, {"t": "np.array([1.0, 1.0, 0.9])"}),
    ("assert sorted(d) == ['a', 'b'] and set(d.values()) == {1}", {"d": "{'b': 1, 'a': 1}"}, {"d": "{'a': 1}"}),
])
def test_the_grader_evaluates_checks_on_the_values_sent(source, right, wrong):
    """Each check judged on the values the runner sends, against the reference's: passes with the
    reference's own values, fails with an honest wrong answer."""
    base = "import numpy as np\nclass A: pass\nclass Bad: pass\nx = A()\n"
    setup = lambda values: base + "".join(f"{k} = {v}\n" for k, v in values.items())
    skeletons, reference = records_of(setup(right) + source, {})
    both = checks.both_sides_ids(list(reference.values()), skeletons)
    for values, passed in ((right, True), (wrong, False)):
        _skeletons, student = records_of(setup(values) + source, {}, both=True)
        assert set(student) == set(reference)  # the same checks, at the same lines
        results = [checks.judge(skeletons[i], reference[i], student.get(i), both=i in both)[0] for i in reference]
        assert all(results) is passed, (values, results)
