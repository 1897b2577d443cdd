"""The repository's root, for the course-tooling tests.

Imported by name (``from course_root import ROOT``), not from ``conftest``: pytest keeps only
the last conftest it loaded as the module ``conftest``, so in a run that also names a folder
with a conftest of its own (tests/device, tests/distributions) ``from conftest import ROOT``
got that folder's conftest and the test file failed to collect.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
