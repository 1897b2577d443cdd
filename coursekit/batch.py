"""Grading a class: ``python -m coursekit grade SUBMISSIONS`` (a folder of submissions, or a zip of zips).

Every submission (a zip, or a folder holding a student edition) is graded as
``grader.grade`` grades one, several at a time across the machine's cores,
with one shared cache of the reference runs.  Into ``OUT``:

* ``graded/KEY.json``: each submission's full report, named after a hash of
  its content and its name; a submission already there is not graded again,
  so an interrupted run resumes where it stopped;
* ``gradebook.csv``: one row per student (id, points per task, total);
* ``feedback/ID.md``: one student-safe feedback file per student;
* ``report.md``: the instructor's report (every submission, its statuses,
  identity problems, time taken).

A student's id is the name of their submission (``alice.zip`` -> ``alice``),
which the instructor's download sets; two submissions with one id are both
reported and neither is written over the other (the gradebook row says
"conflict", with no points, until the instructor keeps one).  No submission
stops the class: whatever goes wrong grading one becomes its "could not
grade" row.
"""
import csv
import hashlib
import io
import json
import os
import sys
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import grader, intake
from .student import checked_tasks
from .tasks import CourseError, course_root


def load_roster(path):
    """The ids of a roster: a CSV file with an ``id`` column (other columns are kept for the gradebook)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or "id" not in rows[0]:
        raise CourseError(f"{path}: a roster is a CSV file with an 'id' column")
    return {row["id"].strip(): row for row in rows if row.get("id", "").strip()}


def is_single_submission(path):
    """Whether ``path`` is one student edition (not a folder or zip of submissions)."""
    path = Path(path)
    if path.is_dir():
        return (path / "course.json").exists() or ((path / "nnref").is_dir() and (path / "book").is_dir())
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False
    return not any(name.lower().endswith(".zip") for name in names)


def submissions(source, scratch):
    """``[(name, path)]``: the submissions in a folder, or in a zip of zips (unzipped into ``scratch``)."""
    source = Path(source)
    if source.is_file():
        if not zipfile.is_zipfile(source):
            raise CourseError(f"{source} is neither a folder nor a zip file")
        source, _notes = intake.ingest(source, Path(scratch) / "class", total=intake.CLASS_TOTAL)
        inner = [p for p in source.iterdir() if p.is_dir()]
        if len(inner) == 1 and not any(p.suffix == ".zip" for p in source.iterdir()):
            source = inner[0]  # the zip held one folder of submissions
    found = [(p.name, p) for p in sorted(source.iterdir()) if not p.is_symlink()
             and ((p.is_file() and p.suffix.lower() == ".zip") or p.is_dir())]
    if not found:
        raise CourseError(f"no submissions (zip files or folders) in {source}")
    return found


def _key(name, path):
    """A hash of the submission's name and content: the same submission is graded once."""
    try:
        content = intake.content_key(path)
    except OSError as err:  # it cannot be read: grading says why, in its row
        content = f"unreadable {err.errno}"
    return hashlib.sha256(f"{name}\0{content}".encode()).hexdigest()[:24]


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total, stream=sys.stderr):
        self.total, self.done, self.stream, self.start = total, 0, stream, time.monotonic()
        self.lock = threading.Lock()

    def step(self, label=""):
        with self.lock:
            self.done += 1
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            elapsed = time.monotonic() - self.start
            left = elapsed / self.done * (self.total - self.done) if self.done else 0
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} graded, "
                              f"{elapsed:.0f} s, about {left:.0f} s left  {label[:30]:<30}")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def grade_all(source, out, root=None, jobs=None, timeout=10.0, unsafe=False, roster=None, only=None,
              progress=True):
    """Grade every submission in ``source``; write the gradebook, feedback and report into ``out``."""
    root = course_root(root)
    runner = grader.Runner(timeout=timeout, unsafe=unsafe)  # no sandbox: stop before anything else
    found = [t for t in checked_tasks(root) if only is None or t.id in only]
    out = Path(out)
    (out / "graded").mkdir(parents=True, exist_ok=True)
    roster_rows = load_roster(roster) if roster else None
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="coursekit-class-") as scratch:
        items = submissions(source, scratch)
        keys = {name: _key(name, path) for name, path in items}
        todo = [(name, path) for name, path in items if not (out / "graded" / f"{keys[name]}.json").exists()]
        bar = Progress(len(items)) if progress else None
        for _ in range(len(items) - len(todo)):
            if bar:
                bar.step("(already graded)")

        def one(item):
            name, path = item
            student_id, problem = grader.student_identity(name, roster_rows)
            try:
                report = grader.grade(path, root=root, timeout=timeout, jobs=1, only=only, unsafe=unsafe,
                                      cache_dir=out / "reference-cache", roster=roster_rows, runner=runner,
                                      student_id=student_id)
            except Exception as err:  # this submission's row says so; the class goes on
                report = {"student": student_id, "identity_problem": problem, "submission": name,
                          "points": 0, "max_points": sum(t.points for t in found),
                          "not_graded": grader.could_not_grade(err),
                          "tasks": [vars(grader._task_result(t, [], "could-not-grade", grader.could_not_grade(err)))
                                    for t in found],
                          "counts": {"could-not-grade": len(found)}, "seconds": 0}
            report["submission"] = name
            target = out / "graded" / f"{keys[name]}.json"
            partial = target.with_suffix(".part")
            partial.write_text(json.dumps(report), encoding="utf-8")
            partial.replace(target)  # a report is there whole, or not at all
            return name

        workers = jobs or max(1, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for future in as_completed([pool.submit(one, item) for item in todo]):
                name = future.result()
                if bar:
                    bar.step(name)
        reports = [json.loads((out / "graded" / f"{keys[name]}.json").read_text(encoding="utf-8"))
                   for name, _path in items]
    seconds = time.monotonic() - start
    rows = gradebook(reports, found, roster_rows)
    write_gradebook(rows, found, out / "gradebook.csv")
    (out / "feedback").mkdir(exist_ok=True)
    ids = [_row_id(r) for r in reports]
    for report in reports:
        # one file per id; with a conflict, one per submission, so that none is written over
        name = _row_id(report) if ids.count(_row_id(report)) == 1 else f"{_row_id(report)}--{report['submission']}"
        (out / "feedback" / f"{_file_name(name)}.md").write_text(grader.feedback_markdown(report), encoding="utf-8")
    (out / "report.md").write_text(class_report(reports, rows, found, seconds, len(todo)), encoding="utf-8")
    return rows, reports


def _row_id(report):
    return report.get("student") or f"unidentified:{report['submission']}"


def _file_name(text):
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in text)[:100]


CONFLICT = "conflict"


def gradebook(reports, found, roster_rows=None):
    """One row per student.  Several submissions with one id: a row that says so, with no points
    (the class report lists them; the instructor keeps one), never one written over the other."""
    by_id = {}
    for report in sorted(reports, key=lambda r: r["submission"]):
        by_id.setdefault(_row_id(report), []).append(report)
    rows = {}
    for student_id, mine in by_id.items():
        if len(mine) > 1:
            rows[student_id] = {"id": student_id, "submission": "; ".join(r["submission"] for r in mine),
                                **{t.id: "" for t in found}, "total": CONFLICT}
            continue
        report = mine[0]
        points = {t["id"]: t["points"] for t in report.get("tasks", [])}
        rows[student_id] = {"id": student_id, "submission": report["submission"],
                            **{t.id: points.get(t.id, 0) for t in found}, "total": report.get("points", 0)}
    for student_id in (roster_rows or {}):
        rows.setdefault(student_id, {"id": student_id, "submission": "", **{t.id: 0 for t in found}, "total": 0})
    return [rows[k] for k in sorted(rows)]


def write_gradebook(rows, found, path):
    """The CSV, every text cell safe to open in a spreadsheet (``intake.csv_cell``)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["id", "submission", *[t.id for t in found], "total"],
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: intake.csv_cell(v) for k, v in row.items()} for row in rows)
    Path(path).write_text(buffer.getvalue(), encoding="utf-8")


def class_report(reports, rows, found, seconds, graded_now):
    cell = intake.markdown_cell
    lines = [f"# Class report: {len(reports)} submissions, {len(rows)} students", "",
             f"Graded {graded_now} submissions in {seconds:.0f} s "
             f"({seconds / max(graded_now, 1):.1f} s each on average); the others were graded before.", "",
             "| Student | Submission | Points | Statuses | Problems |", "| --- | --- | --- | --- | --- |"]
    ids = [_row_id(r) for r in reports]
    for report in sorted(reports, key=lambda r: (_row_id(r), r["submission"])):
        counts = ", ".join(f"{n} {s}" for s, n in report.get("counts", {}).items() if n)
        problems = [report.get("identity_problem") or "", report.get("not_graded") or ""]
        if ids.count(_row_id(report)) > 1:
            problems.append("conflict: several submissions with this id; none is in the gradebook until you "
                            "keep one (rename or remove the others)")
        if report.get("left_out"):
            problems.append(f"{len(report['left_out'])} file(s) left out of the submission")
        lines.append(f"| {cell(_row_id(report))} | {cell(report['submission'])} | {report.get('points', 0):g} / "
                     f"{report.get('max_points', 0)} | {counts} | {cell('; '.join(p for p in problems if p), 600)} |")
    return "\n".join(lines) + "\n"
