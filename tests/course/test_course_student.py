"""The student edition: the marked work is really gone, it comes back, and the rest still runs."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat

from coursekit import grader, student, tasks

ROOT = Path(__file__).resolve().parents[2]


def run_pytest(edition, junit):
    """The edition's own tests, run as a student would (from its folder, its nnref first)."""
    env = dict(os.environ, PYTHONPATH=str(edition), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={junit}"], cwd=edition, env=env, capture_output=True, text=True)
    failures = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("classname").rsplit(".", 1)[-1]
        failed = case.find("failure") is not None or case.find("error") is not None
        failures.setdefault(name, []).append(failed)
    return failures


def test_layout(student_edition):
    found, _ = tasks.discover(ROOT)
    for name in ("README.md", "conftest.py", "pyproject.toml", "requirements.txt", "course.json"):
        assert (student_edition / name).is_file()
    assert not (student_edition / "nnref" / "course").exists()
    assert not (student_edition / "tests" / "course" / "hidden").exists()
    assert json.loads((student_edition / "course.json").read_text())["tasks"] == [t.id for t in found]
    # The chapters read as in ./dev.sh lab: the same JupyterLab and jupyterlab-myst pins.
    wanted = (student_edition / "requirements.txt").read_text().splitlines()
    for pin in ("jupyterlab==", "jupyterlab-myst=="):
        lab_pin = next(l for l in (ROOT / "requirements-lab.txt").read_text().splitlines() if l.startswith(pin))
        assert lab_pin in wanted, f"the student edition's requirements.txt lacks {lab_pin}"
    readme = (student_edition / "README.md").read_text()
    for task in found:
        assert task.id in readme
    leaks = [str(p) for p in student_edition.rglob("*") if p.is_file()
             and p.suffix in (".py", ".ipynb", ".md") and "BEGIN SOLUTION" in p.read_text(errors="replace")]
    assert not leaks, leaks


def test_nnref_bodies_are_stubs(student_edition):
    found, _ = tasks.discover(ROOT)
    for task in (t for t in found if t.kind == "nnref"):
        bodies = student.read_answer(task, student_edition)
        assert len(bodies) == task.regions
        for body in bodies:
            assert [line.strip() for line in body.splitlines()] == \
                ["# YOUR CODE HERE", "raise NotImplementedError()"]
        reference = student.reference_answer(task, ROOT)
        assert all(len(r.splitlines()) >= 1 for r in reference)


def test_chapters_lose_solutions_hidden_tests_and_their_outputs(student_edition):
    chapter = nbformat.read(student_edition / "book" / "07_walking_the_tree.ipynb", as_version=4)
    reference = nbformat.read(ROOT / "book" / "07_walking_the_tree.ipynb", as_version=4)
    text = "\n".join(cell.source for cell in chapter.cells)
    assert "def my_named_modules" not in text           # the solution
    assert "holder.register_module" not in text         # its hidden tests
    assert "assert same(my_named_modules(net)" in text  # its visible tests stay
    assert "owns a `Linear(8, 8)`" not in text          # the solution's explanation
    exercises, _ = student.notebooks.exercises(chapter)
    for exercise in exercises:
        for index in exercise.code_cells:
            assert chapter.cells[index].outputs == []
    # everything before the exercises is the reference chapter, outputs included, except the
    # listings of nnref source that show the named_modules task's solution
    first = min(e.cell for e in exercises)
    assert [c.source for c in chapter.cells[:first]] == [c.source for c in reference.cells[:first]]
    cleared = [i for i, (mine, theirs) in enumerate(zip(chapter.cells[:first], reference.cells[:first]))
               if mine.get("outputs") != theirs.get("outputs")]
    assert cleared, "the chapter lists Module.named_modules, a task's solution"
    for index in cleared:
        assert chapter.cells[index].outputs == []
        assert "named_modules" in str(reference.cells[index].outputs)


def _meaningful_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def _contains_run(lines, run):
    return any(lines[i:i + len(run)] == run for i in range(len(lines) - len(run) + 1))


def test_stored_listings_do_not_show_the_solutions_of_nnref_tasks(student_edition):
    """The chapters list nnref's source (show_source); a stored listing made from the instructor's
    package would hand the student the body they are asked to write."""
    from coursekit.markers import SOLUTION, find_regions
    found, _ = tasks.discover(ROOT)
    bodies = []
    for path in sorted({t.path for t in found if t.kind == "nnref"}):
        text = (ROOT / path).read_text(encoding="utf-8")
        lines = text.splitlines()
        bodies += [(path, _meaningful_lines("\n".join(region.body(lines))))
                   for region in find_regions(text, path) if region.kind == SOLUTION]
    assert bodies, "the course has nnref tasks"
    listed = 0
    for chapter in sorted((student_edition / "book").glob("*.ipynb")):
        for cell in nbformat.read(chapter, as_version=4).cells:
            for output in cell.get("outputs", []):
                shown = _meaningful_lines(output.get("data", {}).get("text/plain", ""))
                listed += bool(shown) and shown[0].startswith("# nnref/")
                leaked = [path for path, body in bodies if body and _contains_run(shown, body)]
                assert not leaked, f"{chapter.name} stores a listing with the solution in {leaked}"
    assert listed, "the edition still shows the listings that reveal nothing"


def test_edition_imports_its_own_nnref(student_edition):
    code = ("import nnref, nnref.nn, nnref.optim, nnref.nn.functional; print(nnref.__file__); "
            "print(nnref.nn.Linear(2, 3).weight.shape)")
    result = subprocess.run([sys.executable, "-c", code], cwd=student_edition, capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(student_edition)), check=True)
    loaded = Path(result.stdout.splitlines()[0]).resolve()
    assert loaded == (student_edition / "nnref" / "__init__.py").resolve()


def test_visible_tests_fail_for_every_task_then_pass_with_the_reference(edition_copy, tmp_path):
    found, _ = tasks.discover(ROOT)
    expected_files = {f"test_{t.slug}" for t in found if t.kind == "nnref"}
    before = run_pytest(edition_copy, tmp_path / "before.xml")
    assert set(before) == expected_files
    assert all(any(results) for results in before.values()), \
        f"tests that do not fail on the stub: {[n for n, r in before.items() if not any(r)]}"

    student.solve(edition_copy)
    after = run_pytest(edition_copy, tmp_path / "after.xml")
    assert set(after) == expected_files
    assert not [n for n, results in after.items() if any(results)], after


def test_empty_answers_fail(edition_copy, grading_timeout):
    """With ``pass`` as the answer, no graded task of the class fixture is passed.

    So the markers really take the work out: no task is passed without writing it.
    (Grading every task of the course takes minutes; the other nnref tasks' visible
    tests fail on their stubs above, and the chapters' stubs stop their cells below.)
    """
    from class_fixture import TASKS
    found, _ = tasks.discover(ROOT)
    chosen = [t for t in found if t.id in TASKS]
    for task in chosen:
        stubs = student.read_answer(task, edition_copy)
        student.write_answer(task, edition_copy,
                             [stub[:len(stub) - len(stub.lstrip())] + "pass" for stub in stubs])
    report = grader.grade(edition_copy, root=ROOT, timeout=grading_timeout, jobs=2, only={t.id for t in chosen})
    statuses = {t["id"]: t["status"] for t in report["tasks"]}
    assert set(statuses) == {t.id for t in chosen}
    # a check the exercise does not touch (the model still runs) may pass: partial credit, never full
    assert set(statuses.values()) <= {"failed", "partial"}, statuses
    assert all(t["points"] < t["max_points"] for t in report["tasks"])
    assert report["points"] < report["max_points"] / 4


def test_an_untouched_chapter_runs(edition_copy):
    """Chapter 1 runs on the student's nnref, its exercises stopping at their stubs.

    Its lessons already call ``backward()``, which needs the ``engine.dependencies``
    task, so the nnref tasks are put back first: what is checked is that the edition's
    notebook is the chapter, minus the solutions.
    """
    found, _ = tasks.discover(ROOT)
    student.solve(edition_copy, task_ids={t.id for t in found if t.kind == "nnref"})
    student_edition = edition_copy
    book = student_edition / "book"
    script = f"""
import json, nbformat
from nbclient import NotebookClient
nb = nbformat.read({str(book / '01_tensors.ipynb')!r}, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import nnref; print(nnref.__file__)"))
NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
               resources={{"metadata": {{"path": {str(book)!r}}}}}).execute()
errors = [(i, "BEGIN YOUR CODE" in c.source, o["ename"]) for i, c in enumerate(nb.cells)
          if c.cell_type == "code" for o in c.outputs if o["output_type"] == "error"
          and "raises-exception" not in c.metadata.get("tags", [])]
print(json.dumps({{"errors": errors, "nnref": nb.cells[-1].outputs[0]["text"].strip()}}))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                            cwd=book, env=dict(os.environ, PYTHONPATH=str(student_edition)))
    ran = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(ran["nnref"]).resolve() == (student_edition / "nnref" / "__init__.py").resolve()
    assert ran["errors"], "the exercises' stubs should stop their cells"
    assert all(in_exercise and name == "NotImplementedError" for _, in_exercise, name in ran["errors"]), ran
