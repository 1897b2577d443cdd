"""Shared pieces of the course-tooling tests (tests/course/test_course_*.py)."""
import hashlib
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest

# task_helpers.py lives with the visible task tests; the hidden ones import it too.
sys.path.insert(0, str(Path(__file__).parent / "tasks"))

from course_root import ROOT  # noqa: E402 (the tests import it from there, not from conftest)


@pytest.fixture(scope="session")
def grading_timeout():
    """Seconds per test when the tests grade: small, so that the looping fixtures cost little."""
    return 6.0


@pytest.fixture(scope="session")
def student_edition(tmp_path_factory):
    """A fresh student edition of this repository (build it once; copy it before changing it)."""
    from coursekit import student

    out = tmp_path_factory.mktemp("course") / "student-edition"
    student.build(out, root=ROOT)
    return out


@pytest.fixture
def edition_copy(student_edition, tmp_path):
    """A private copy of the student edition, to write answers into."""
    return Path(shutil.copytree(student_edition, tmp_path / "edition"))


@pytest.fixture(scope="session")
def graded_class(student_edition, tmp_path_factory, grading_timeout):
    """The synthetic class of class_fixture.py, graded as ./dev.sh grade grades a class.

    Also records what the hostile submission could have changed on this machine:
    a listening socket it tries to reach, the hidden test file it tries to append to.
    """
    from class_fixture import TASKS, build_class
    from coursekit import batch, sandbox

    if sandbox.check():  # ./dev.sh setup installs bubblewrap: without it the grader must not run
        pytest.fail(f"no sandbox here: {sandbox.check()}")
    folder = tmp_path_factory.mktemp("class")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    hidden_file = ROOT / "tests" / "course" / "hidden" / "test_module_named_modules_hidden.py"
    secrets = [str(hidden_file), str(ROOT / "tests" / "course"), str(ROOT / "coursekit"),
               str(ROOT / "book" / "07_walking_the_tree.ipynb"), str(ROOT / "nnref")]
    before = hashlib.sha256(hidden_file.read_bytes()).hexdigest()
    ids = build_class(student_edition, folder, ROOT, listener.getsockname()[1], secrets, str(hidden_file))
    roster = folder / "roster.csv"
    roster.write_text("id,name\n" + "".join(f"{i},{n}\n" for n, i in ids.items() if i) + "s099,Zoe\n")
    start = time.monotonic()
    rows, reports = batch.grade_all(folder / "submissions", folder / "out", root=ROOT, jobs=2,
                                    timeout=grading_timeout, roster=roster, only=set(TASKS), progress=False)
    seconds = time.monotonic() - start
    out = folder / "out"
    snapshot = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    time.sleep(3)  # longer than the hostile daemon waits before it acts
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    return {"rows": rows, "reports": reports, "out": out, "seconds": seconds, "ids": ids,
            "snapshot": snapshot, "connected": connected, "hidden_file": hidden_file,
            "hidden_unchanged": before == hashlib.sha256(hidden_file.read_bytes()).hexdigest(),
            "folder": folder}
