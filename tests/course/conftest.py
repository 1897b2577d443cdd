"""Shared pieces of the course-tooling tests (tests/course/test_course_*.py)."""
import shutil
import sys
from pathlib import Path

import pytest

# task_helpers.py lives with the visible task tests; the hidden ones import it too.
sys.path.insert(0, str(Path(__file__).parent / "tasks"))


@pytest.fixture(scope="session")
def grading_timeout():
    """Seconds per task when the tests grade: small, so that the looping fixture costs little."""
    return 10.0


@pytest.fixture(scope="session")
def student_edition(tmp_path_factory):
    """A fresh student edition of this repository (build it once; copy it before changing it)."""
    from nnref.course import student

    out = tmp_path_factory.mktemp("course") / "student-edition"
    student.build(out)
    return out


@pytest.fixture
def edition_copy(student_edition, tmp_path):
    """A private copy of the student edition, to write answers into."""
    return Path(shutil.copytree(student_edition, tmp_path / "edition"))
