"""Gradescope: ``python -m coursekit export-gradescope OUT.zip`` writes an autograder for it.

Gradescope runs the autograder in a fresh container per submission
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): the zip's
``setup.sh`` installs what it needs once, ``run_autograder`` grades
``/autograder/submission`` and writes ``/autograder/results/results.json``.
Here ``run_autograder`` runs this same grader (``gradescope-run``), sandbox
and all, on the course copied into ``/autograder/source`` (the reference runs
happen in each container: Gradescope keeps nothing between submissions).
Every task is a Gradescope test with its points; hidden tests are counted in
the output, never shown.  There is no way to grade here without the sandbox:
if bubblewrap cannot create its namespaces in Gradescope's container, every
submission gets a results.json that says the autograder refused (score 0,
the reason shown to student and instructor) and ``run_autograder`` exits 1.
An unsandboxed run would let a submission end the grader and write its own
results.json; the export has no option for it.
"""
import json
import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from . import grader, sandbox
from .student import checked_tasks
from .tasks import course_root

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
apt-get update
apt-get install -y --no-install-recommends bubblewrap python3 python3-venv python3-pip graphviz
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install -r /autograder/source/requirements.txt
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission; it writes /autograder/results/results.json.
set -uo pipefail
cd /autograder/source
export COURSEKIT_ROOT=/autograder/source PYTHONPATH=/autograder/source
exec /autograder/venv/bin/python -m coursekit gradescope-run /autograder/submission /autograder/results/results.json \\
    --timeout {timeout:g} --metadata /autograder/submission_metadata.json
"""

PARTS = ["nnref", "book", "tests/course", "coursekit", "requirements.txt", "_config.yml", "_toc.yml",
         "pyproject.toml"]


def export(out, root=None, timeout=10.0):
    """Write the autograder zip; returns its path."""
    root = course_root(root)
    checked_tasks(root)  # the markers must be right before anything is exported
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="coursekit-gradescope-") as scratch:
        source = Path(scratch) / "source"
        for part in PARTS:
            path = root / part
            if path.is_dir():
                shutil.copytree(path, source / part, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.pyc", "_build", ".ipynb_checkpoints"))
            elif path.exists():
                (source / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, source / part)
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            _add(archive, "setup.sh", SETUP)
            _add(archive, "run_autograder", RUN.format(timeout=timeout))
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(source).as_posix())
    return out


def _add(archive, name, text):
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFREG | 0o755) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, text)


def results(report):
    """Gradescope's results.json for a grader report: one test per task, with its points."""
    tests = []
    for number, task in enumerate(report["tasks"], start=1):
        feedback = grader.feedback_markdown({**report, "tasks": [task]}).split("\n## ", 1)
        output = f"{task['status']}: " + (feedback[1].split("\n", 1)[1].strip() if len(feedback) > 1 else "")
        tests.append({"name": task["id"], "number": str(number), "score": float(task["points"]),
                      "max_score": float(task["max_points"]),
                      "status": "passed" if task["status"] == "passed" else "failed",
                      "output": output.strip(), "output_format": "md", "visibility": "visible",
                      "tags": [task["kind"], task["chapter"]] if task["chapter"] else [task["kind"]]})
    identity = report.get("identity_problem")
    return {"score": float(report["points"]), "execution_time": int(round(report.get("seconds", 0))),
            "output": (f"{report['points']:g} / {report['max_points']} points."
                       + (f" Note: {identity}." if identity else "")
                       + "".join(f"\n\n- {note}" for note in report.get("left_out", []))),
            "output_format": "md", "visibility": "visible", "stdout_visibility": "hidden",
            "tests": tests}


def submitter_id(metadata_path):
    """The submitter's id from Gradescope's ``submission_metadata.json`` (Gradescope writes it, outside
    the submission): the first user's ``sid``, else their email; None if there is none."""
    try:
        users = json.loads(Path(metadata_path).read_text(encoding="utf-8")[:1_000_000]).get("users") or []
        user = users[0]
        return str(user.get("sid") or user.get("email") or "").strip()[:100] or None
    except (OSError, ValueError, AttributeError, IndexError, TypeError):
        return None


def run(submission, results_path, root=None, timeout=10.0, metadata=None):
    """``run_autograder``'s step: grade the submission, write ``results.json``; 1 if it could not grade.

    Without a working sandbox it refuses (``grader.Runner`` raises before any
    student code is read) and says so in results.json.
    """
    root = course_root(root)
    results_path = Path(results_path)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    status = 0
    try:
        report = grader.grade(submission, root=root, timeout=timeout, jobs=os.cpu_count(),
                              student_id=submitter_id(metadata) if metadata else "gradescope")
        data = results(report)
    except sandbox.SandboxUnavailable as err:
        status = 1
        data = {"score": 0.0, "output": f"The autograder refused to grade: it runs submissions only in a "
                                        f"sandbox, and there is none here ({err}). Tell your instructor.",
                "visibility": "visible", "stdout_visibility": "hidden", "tests": []}
    except Exception as err:  # Gradescope shows the output; the grader's trouble is not the student's score
        status = 1
        data = {"score": 0.0, "output": f"The autograder could not grade this submission "
                                        f"({type(err).__name__}). Tell your instructor.",
                "visibility": "visible", "stdout_visibility": "hidden", "tests": []}
    results_path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return status
