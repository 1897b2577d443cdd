"""The solution markers: every exercise has a marked solution and a test, they parse, the book hides them.

Whether each solution *passes* its tests is checked where the code runs: nbval
runs every chapter (asserts included), tests/course/tasks and
tests/course/hidden run on the reference nnref, and test_course_grader.py
grades the reference solutions.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit import markers, notebooks, tasks
from coursekit.markers import MarkerError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def discovered():
    return tasks.discover(ROOT)


def test_every_exercise_has_a_marked_solution_and_a_test(discovered):
    found, problems = discovered
    assert not problems, "fix the solution markers:\n  " + "\n  ".join(problems)
    chapters = {t.chapter for t in found if t.kind == "chapter"}
    assert chapters == {p.stem for p in tasks.chapter_paths(ROOT)}


def test_nnref_tasks_have_visible_tests_and_a_chapter(discovered):
    found, _ = discovered
    nnref_tasks = {t.id: t for t in found if t.kind == "nnref"}
    assert {"module.named_modules", "module.named_members", "module.save_to_state_dict",
            "module.call_impl", "engine.dependencies", "linear.forward", "sgd.update"} <= set(nnref_tasks)
    for task in nnref_tasks.values():
        assert (ROOT / task.tests[0]).is_file()
        assert task.hidden_tests, f"{task.id} has no hidden tests"
        assert task.points > 0 and task.chapter


def test_task_map_lists_every_task(discovered):
    found, _ = discovered
    table = tasks.task_map(found)
    for task in found:
        assert f"| `{task.id}` |" in table
    assert f"{len(found)} tasks" in table
    result = subprocess.run([sys.executable, "-m", "coursekit", "tasks"], capture_output=True,
                            text=True, check=True, cwd=ROOT)
    assert result.stdout == table


def test_instructor_guide_is_in_the_book():
    guide = (ROOT / "book" / "instructors.md").read_text(encoding="utf-8")
    assert "```{task-map}" in guide
    assert re.search(r"^\s*- file: book/instructors\s*$", (ROOT / "_toc.yml").read_text(), re.M)


# -- the markers themselves ------------------------------------------------------------------------
SOURCE = """\
def f(x):
    '''doc'''
    ### BEGIN SOLUTION task=demo.f points=2
    y = x + 1
    return y
    ### END SOLUTION

### BEGIN HIDDEN TESTS
assert f(1) == 2
### END HIDDEN TESTS
"""


def test_regions_and_metadata():
    solution, hidden = markers.find_regions(SOURCE)
    assert (solution.kind, solution.begin, solution.end, solution.indent) == ("SOLUTION", 2, 5, "    ")
    assert solution.meta == {"task": "demo.f", "points": "2"}
    assert hidden.kind == "HIDDEN TESTS" and hidden.body(SOURCE.splitlines()) == ["assert f(1) == 2"]


def test_student_version_and_filling_it_back():
    from coursekit.student import student_source

    stub = student_source(SOURCE)
    assert "BEGIN SOLUTION" not in stub and "HIDDEN TESTS" not in stub and "x + 1" not in stub
    assert ("    ### BEGIN YOUR CODE task=demo.f\n    # YOUR CODE HERE\n"
            "    raise NotImplementedError()\n") in stub
    filled = markers.fill_your_code(stub, ["    return x + 1"], task="demo.f")
    namespace = {}
    exec(filled, namespace)
    assert namespace["f"](1) == 2
    assert markers.your_code(filled, "demo.f") == ["    return x + 1"]


def test_reference_view_drops_only_the_marker_lines():
    shown = markers.strip_reference_markers(SOURCE)
    assert "###" not in shown and "return y" in shown and "assert f(1) == 2" in shown
    assert markers.strip_reference_markers("### BEGIN SOLUTIONS\n") == "### BEGIN SOLUTIONS\n"


@pytest.mark.parametrize("bad", [
    "### BEGIN SOLUTION\nx = 1\n",                                   # never closed
    "x = 1\n### END SOLUTION\n",                                     # no BEGIN
    "### BEGIN SOLUTION\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS\n### END SOLUTION\n",
    "### BEGIN SOLUTION points\n### END SOLUTION\n",                 # not key=value
    "### BEGIN SOLUTION\n### END HIDDEN TESTS\n",                    # mismatched
])
def test_malformed_markers_are_errors(bad):
    with pytest.raises(MarkerError):
        markers.find_regions(bad)


def test_proposed_markers_leave_the_asserts_out():
    source = ("import math\n\n# the answer\nanswer = math.sqrt(16)\nprint(answer)\n"
              "assert answer == 4\nfor k in range(2):\n    assert k < 2\n"
              "extra = answer * 2\nassert extra == 8\n")
    proposed = notebooks.propose_markers(source)
    assert proposed == ("### BEGIN SOLUTION\nimport math\n\n# the answer\nanswer = math.sqrt(16)\n"
                        "print(answer)\n### END SOLUTION\nassert answer == 4\nfor k in range(2):\n"
                        "    assert k < 2\n### BEGIN SOLUTION\nextra = answer * 2\n### END SOLUTION\n"
                        "assert extra == 8")


# -- the rendered book -----------------------------------------------------------------------------
def _site():
    site = Path(os.environ.get("NNREF_SITE_DIR", ROOT / "_build" / "html"))
    if not (site / "index.html").exists():
        pytest.skip("the book is not built (./dev.sh test builds it first)")
    return site


def test_built_pages_show_no_marker():
    site = _site()
    pages = [p for p in site.rglob("*.html") if p.name != "instructors.html"]  # it shows examples
    assert any("07_walking_the_tree" in p.name for p in pages)
    leaks = [str(p.relative_to(site)) for p in pages
             if re.search(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)", p.read_text(encoding="utf-8"))]
    assert not leaks, f"pages showing solution markers: {leaks}"
    walking = (site / "book" / "07_walking_the_tree.html").read_text(encoding="utf-8")
    assert "my_named_modules" in walking          # the solution is shown...
    assert "holder.register_module" not in walking  # ...its hidden tests are not
    # each exercise shows its id, the one the grader's feedback uses
    found, _ = tasks.discover(ROOT)
    for task in (t for t in found if t.path == "book/07_walking_the_tree.ipynb"):
        assert re.search(rf'<code[^>]*exercise-id[^>]*>(<span[^>]*>)?{re.escape(task.id)}', walking), task.id


def test_downloadable_notebooks_have_no_marker():
    site = _site()
    sources = list((site / "_sources").rglob("*.ipynb"))
    assert sources
    for path in sources:
        assert "### BEGIN SOLUTION" not in path.read_text(encoding="utf-8"), path


def test_listings_of_solutions_are_recognised_in_both_stored_forms():
    """The student site drops a stored listing from its HTML form, the student edition from the
    notebook: both forms of every listing that shows a task's solution must be recognised."""
    found, _ = tasks.discover(ROOT)
    solved = tasks.solved_lines(ROOT, found)
    caught = 0
    for chapter in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in nbformat.read(chapter, as_version=4).cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "text/plain" in data and "text/html" in data:
                    as_text = notebooks.shows_a_solution(data["text/plain"], solved)
                    assert as_text == notebooks.shows_a_solution(data["text/html"], solved), chapter.name
                    caught += as_text
    assert caught >= len({t.path for t in found if t.kind == "nnref"})
