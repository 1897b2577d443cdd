"""Submissions are data, a class always finishes, feedback carries no text from the sandbox.

A second hostile class, graded through the real command line
(``python -m coursekit grade CLASS``) and Gradescope's step
(``python -m coursekit gradescope-run``): links to the instructor's files,
FIFOs, zip members that lie or are damaged, files that are not UTF-8 or not
JSON, garbage on the runner's channel, a submission that reads the
reference solution and sends it back, an id made of a spreadsheet formula,
two submissions with one id, and records that try to keep a sandbox alive.
Each is paired with an honest answer in the same or another submission.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from class_fixture import MARK, NNREF_TASK
from course_root import ROOT
from coursekit import batch, checks, student

SECRET = "TOP-SECRET-LINE-7f3a9c"
EXERCISE = "walking-ex1"
NOTEBOOK = "book/07_walking_the_tree.ipynb"
MODULE = "nnref/core/nn/modules/module.py"
# a line of the reference named_modules: the file that holds it is in the sandbox as bytecode only
REFERENCE_LINE = 'submodule_prefix = prefix + ("." if prefix else "") + name'

CHANNEL_GARBAGE = textwrap.dedent('''
    import __main__, os
    for _line in (b"\\xff\\xfe not json", b"[1, 2]", b'{"r": "check", "test": "walking-ex1", "id": {"a": 1}, "n": [1]}',
                  b'{"r": "start", "test": {"a": 1}}', b'{"r": 5}', b'{"r": "end", "test": "walking-ex1", "n": true}'):
        os.write(__main__.OUT, _line + b"\\n")
    ''')

READS_THE_REFERENCE = textwrap.dedent(f'''
    _source = open("/task/{MODULE}").read()
    _at = _source.find({REFERENCE_LINE!r})
    per_child = {{name: sum(p.numel() for p in child.parameters()) for name, child in net.named_children()}}
    total = _source[_at:_at + 80] if _at >= 0 else "{MARK}: no reference here"
    ''')

RAISES_THE_REFERENCE = textwrap.dedent(f'''
    _source = open("/task/{MODULE}").read()
    _at = _source.find({REFERENCE_LINE!r})
    raise ValueError(_source[_at:_at + 80])
    ''')

# several processes keep announcing tests, old and new, and never finish
KEEPS_THE_CLOCK_RUNNING = textwrap.dedent('''
    import __main__, json, os, time
    for _k in range(3):
        if os.fork() == 0:
            _n = 0
            while True:
                _n += 1
                for _test in ("walking-ex1", f"fake-{_k}-{_n}", "walking-ex2"):
                    os.write(__main__.OUT, (json.dumps({"r": "start", "test": _test, "index": 0}) + "\\n").encode())
                    os.write(__main__.OUT, (json.dumps({"r": "end", "test": _test, "how": "ok"}) + "\\n").encode())
                time.sleep(0.2)
    while True:
        time.sleep(1)
    ''')


def zip_folder(folder, target, links=(), extra=()):
    """Zip ``folder`` under its own name; ``links``: (name, target) symlink members; ``extra``: (name, bytes)."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(Path(folder).rglob("*")):
            if file.is_file():
                archive.write(file, Path(folder.name) / file.relative_to(folder))
        for name, points_to in links:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = 0o120777 << 16
            archive.writestr(info, points_to)
        for name, data in extra:
            archive.writestr(name, data)
    return target


def damage_member(path, member):
    """Flip bytes in the middle of ``member``'s compressed data (its CRC no longer matches)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    data = bytearray(Path(path).read_bytes())
    start = info.header_offset + 30 + len(info.orig_filename.encode()) + len(info.extra)
    middle = start + info.compress_size // 2
    data[middle:middle + 64] = bytes(64)
    Path(path).write_bytes(bytes(data))


@pytest.fixture(scope="module")
def hostile_class(student_edition, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    honest = student.reference_answer(found[EXERCISE], ROOT)
    secret_file = folder / "instructor-secret.txt"
    secret_file.write_text(SECRET + "\n")
    subs = folder / "class"
    subs.mkdir()

    def edition(name, answer=None):
        path = Path(shutil.copytree(student_edition, folder / "editions" / name, symlinks=True))
        if answer is not None:
            student.write_answer(found[EXERCISE], path, [answer] if isinstance(answer, str) else answer)
        return path

    # s010: a folder, honest, with a link to the instructor's file, a link to /etc and a FIFO
    path = Path(shutil.copytree(edition("s010", honest), subs / "s010"))
    (path / "notes.txt").symlink_to(secret_file)
    (path / "etc").symlink_to("/etc")
    os.mkfifo(path / "pipe")
    # s011: a folder whose notebook is a link to the instructor's file
    path = Path(shutil.copytree(edition("s011"), subs / "s011"))
    (path / NOTEBOOK).unlink()
    (path / NOTEBOOK).symlink_to(secret_file)
    # s012: a zip, honest, with a symlink member and members that point outside
    zip_folder(edition("s012", honest), subs / "s012.zip", links=[("s012/notes.txt", str(secret_file))],
               extra=[("../escaped.txt", b"out"), ("/absolute.txt", b"out"), ("s012/a\x07b.txt", b"bell")])
    # s013: a zip whose notebook member is damaged
    zip_folder(edition("s013", honest), subs / "s013.zip")
    damage_member(subs / "s013.zip", f"s013/{NOTEBOOK}")
    # s014: a non-UTF-8 byte in an nnref file, the exercise honest
    path = edition("s014", honest)
    (path / MODULE).write_bytes((path / MODULE).read_bytes().replace(b"import", b"imp\xffort", 1))
    zip_folder(path, subs / "s014.zip")
    # s015: the notebook is not JSON
    path = edition("s015")
    (path / NOTEBOOK).write_text("{not json")
    zip_folder(path, subs / "s015.zip")
    # s016: garbage on the runner's channel, then the honest answer
    zip_folder(edition("s016", CHANNEL_GARBAGE + honest[0]), subs / "s016.zip")
    # s017, s018: the reference solution, read in the sandbox, sent back as a value or a message
    zip_folder(edition("s017", READS_THE_REFERENCE), subs / "s017.zip")
    zip_folder(edition("s018", RAISES_THE_REFERENCE), subs / "s018.zip")
    # names the instructor's download gave: a formula, and an id two submissions share
    zip_folder(edition("formula"), subs / "=HYPERLINK(1)|x.zip")
    zip_folder(edition("at"), subs / "@SUM(1).zip")
    zip_folder(edition("s019"), subs / "s019.zip")
    shutil.copytree(folder / "editions" / "s019", subs / "s019")
    # s020: several processes announce tests to keep the sandbox's clock running
    zip_folder(edition("s020", KEEPS_THE_CLOCK_RUNNING), subs / "s020.zip")

    out = folder / "out"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "grade", str(subs),
                           "--out", str(out), "--task", EXERCISE, "--task", NNREF_TASK, "--timeout", "3",
                           "--jobs", "2"], capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    reports = {r["submission"]: r for r in (json.loads(p.read_text()) for p in (out / "graded").glob("*.json"))}
    return {"out": out, "reports": reports, "folder": folder, "seconds": seconds, "subs": subs,
            "secret_file": secret_file}


def task(report, task_id=EXERCISE):
    return next(t for t in report["tasks"] if t["id"] == task_id)


def everything_written(out):
    return "\n".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_the_class_is_graded_whole(hostile_class):
    reports = hostile_class["reports"]
    assert len(reports) == 14
    rows = list(csv.DictReader(open(hostile_class["out"] / "gradebook.csv", newline="")))
    assert len(rows) == 13  # s019's two submissions share a row


def test_links_devices_and_fifos_are_left_out_and_said(hostile_class):
    reports = hostile_class["reports"]
    s010 = reports["s010"]
    assert task(s010)["status"] == "passed"  # the honest part, graded
    said = " ".join(s010["left_out"])
    assert said.count("symbolic link") == 2 and "FIFO" in said
    feedback = (hostile_class["out"] / "feedback" / "s010.md").read_text()
    assert "notes.txt" in feedback and "FIFO" in feedback
    s011 = reports["s011"]
    assert task(s011)["status"] == "missing" and "symbolic link" in " ".join(s011["left_out"])
    assert SECRET not in everything_written(hostile_class["out"])


def test_zip_members_that_lie_are_left_out(hostile_class):
    s012 = hostile_class["reports"]["s012.zip"]
    assert task(s012)["status"] == "passed"
    said = " ".join(s012["left_out"])
    assert "symbolic link" in said and said.count("not a path inside the submission") == 2, said
    assert "escaped.txt" in said and "a?b.txt" in said
    assert not list(hostile_class["folder"].rglob("escaped.txt")) and not Path("/absolute.txt").exists()


def test_faults_in_one_submission_cost_that_submission_only(hostile_class):
    """A damaged zip member, a non-UTF-8 byte, a notebook that is not JSON, garbage on the channel."""
    reports = hostile_class["reports"]
    s013 = reports["s013.zip"]
    assert task(s013)["status"] == "missing" and "damaged" in " ".join(s013["left_out"])
    s014 = reports["s014.zip"]
    assert task(s014, NNREF_TASK)["status"] == "missing" and "UTF-8" in task(s014, NNREF_TASK)["message"]
    assert task(s014)["status"] == "passed"
    s015 = reports["s015.zip"]
    assert task(s015)["status"] == "missing" and "cannot be read" in task(s015)["message"]
    assert task(reports["s016.zip"])["status"] == "passed"


def test_the_reference_read_in_the_sandbox_never_reaches_the_student(hostile_class):
    """s017 would return a line of the reference as its value, s018 raise it: the file is not there to read
    (test_course_secrets.py searches everywhere else), and no text of it reaches anyone."""
    reports, out = hostile_class["reports"], hostile_class["out"]
    for name in ("s017", "s018"):
        assert task(reports[f"{name}.zip"])["points"] < task(reports[f"{name}.zip"])["max_points"]
        assert MARK not in json.dumps(reports[f"{name}.zip"])  # the reference was there to read
        feedback = (out / "feedback" / f"{name}.md").read_text().replace("\\", "")  # Markdown escapes off
        assert REFERENCE_LINE[:30] not in feedback and "submodule_prefix" not in feedback
    instructor = json.dumps(reports["s017.zip"]) + json.dumps(reports["s018.zip"])
    assert REFERENCE_LINE[:30].replace('"', '\\"') not in instructor
    assert instructor.count("FileNotFoundError") >= 2  # the search itself ran, and found no source


def test_ids_come_from_names_and_cells_are_escaped(hostile_class):
    out = hostile_class["out"]
    text = (out / "gradebook.csv").read_text()
    for row in csv.reader(text.splitlines()):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    rows = {r["id"]: r for r in csv.DictReader(text.splitlines())}
    assert rows["'@SUM_1"]["submission"] == "'@SUM(1).zip"
    assert rows["HYPERLINK_1__x"]["submission"] == "'=HYPERLINK(1)|x.zip"
    for line in (out / "report.md").read_text().splitlines():
        if line.startswith("| "):
            assert line.replace("\\|", "").count("|") == 6, line


def test_an_id_two_submissions_share_is_a_conflict_not_an_overwrite(hostile_class):
    out = hostile_class["out"]
    rows = {r["id"]: r for r in csv.DictReader(open(out / "gradebook.csv", newline=""))}
    assert rows["s019"]["total"] == batch.CONFLICT and rows["s019"]["submission"] == "s019; s019.zip"
    assert {p.name for p in (out / "feedback").glob("s019*")} == {"s019--s019.md", "s019--s019.zip.md"}
    assert (out / "report.md").read_text().count("conflict: several submissions with this id") == 2


def test_records_do_not_keep_a_sandbox_alive(hostile_class):
    """s020's processes announce tests, new and old, every 0.2 s: the grader's clock ends the run anyway."""
    s020 = hostile_class["reports"]["s020.zip"]
    assert task(s020)["status"] == "timeout" and task(s020)["points"] == 0
    assert s020["seconds"] < 60


def test_the_gradescope_step_reads_no_link(hostile_class, tmp_path):
    results = tmp_path / "results.json"
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"email": "s011@example.org", "sid": "s011"}]}))
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "gradescope-run",
                           str(hostile_class["subs"] / "s011"), str(results), "--timeout", "3",
                           "--metadata", str(metadata)], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]
    text = results.read_text()
    assert SECRET not in text and "symbolic link" in text


def test_the_gradescope_step_refuses_without_a_sandbox(hostile_class, tmp_path):
    """No bubblewrap on the PATH: results.json says the autograder refused, and the step fails."""
    results = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "gradescope-run",
                           str(hostile_class["subs"] / "s010"), str(results)], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT), PATH="/nonexistent"))
    data = json.loads(results.read_text())
    assert done.returncode == 1 and data["score"] == 0 and "refused" in data["output"]
    assert "sandbox" in data["output"] and not data["tests"]
    unsafe = subprocess.run([sys.executable, "-m", "coursekit", "--root", str(ROOT), "export-gradescope",
                             str(tmp_path / "a.zip"), "--unsafe"], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert unsafe.returncode == 2 and "unrecognized arguments: --unsafe" in unsafe.stderr


def test_a_fault_in_scoring_is_that_submissions_row(student_edition, tmp_path, monkeypatch):
    """An error inside the grader's scoring (injected: judge raises on one value) costs that row only."""
    found = {t.id: t for t in student.checked_tasks(ROOT)}
    honest = student.reference_answer(found[EXERCISE], ROOT)
    for name, answer in (("s030", honest), ("s031", ["per_child = {}\ntotal = 4242"])):
        path = Path(shutil.copytree(student_edition, tmp_path / "class" / name))
        student.write_answer(found[EXERCISE], path, answer)
    judge = checks.judge

    def faulty(skeleton, reference, record, both=False):
        if record and 4242 in (record.get("leaves") or []):
            raise RuntimeError("injected fault in scoring")
        return judge(skeleton, reference, record, both)

    monkeypatch.setattr(checks, "judge", faulty)
    rows, reports = batch.grade_all(tmp_path / "class", tmp_path / "out", root=ROOT, jobs=2, timeout=3,
                                    only={EXERCISE}, progress=False)
    by_id = {r["student"]: r for r in reports}
    assert task(by_id["s030"])["status"] == "passed"
    assert task(by_id["s031"])["status"] == "could-not-grade"
    assert "injected fault in scoring" in task(by_id["s031"])["message"]
    assert "injected" not in (tmp_path / "out" / "feedback" / "s031.md").read_text()
