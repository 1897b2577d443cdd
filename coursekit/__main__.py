"""``python -m coursekit COMMAND``: the instructor's commands (see book/instructors.md)."""
import argparse
import json
import sys
from pathlib import Path

import nbformat
import yaml

from . import batch, exercise_twins, gradescope, grader, notebooks, student, tasks, twins
from .tasks import CourseError


def cmd_student(args):
    found = student.build(args.outdir, root=args.root, force=args.force)
    print(f"student edition with {len(found)} tasks written to {args.outdir}")
    print(f"  nnref tasks: {', '.join(t.id for t in found if t.kind == 'nnref')}")
    print(f"  chapter exercises: {sum(t.kind == 'chapter' for t in found)}")


def cmd_grade(args):
    only = set(args.task) if args.task else None
    if not batch.is_single_submission(args.submission):
        out = Path(args.out or "grades")
        rows, reports = batch.grade_all(args.submission, out, root=args.root, jobs=args.jobs, timeout=args.timeout,
                                        unsafe=args.unsafe, roster=args.roster, only=only)
        print(f"{len(reports)} submissions, {len(rows)} students: {out / 'gradebook.csv'}, "
              f"{out / 'feedback'}/, {out / 'report.md'}")
        return
    out = args.out or Path("grades") / Path(args.submission).stem
    roster = batch.load_roster(args.roster) if args.roster else None
    report = grader.grade(args.submission, out=out, root=args.root, timeout=args.timeout, jobs=args.jobs,
                          only=only, unsafe=args.unsafe, roster=roster,
                          cache_dir=Path(out) / "reference-cache")
    for task in report["tasks"]:
        note = "" if task["status"] == "passed" else f"  {task['message'][:100]}"
        print(f"{task['status']:>13}  {task['points']:>5g}/{task['max_points']:<2} {task['id']}{note}")
    print(f"\n{report['points']:g} / {report['max_points']} points in {report['seconds']} s; "
          f"student: {report['student']}; reports: {Path(out) / 'report.md'}, feedback.md, report.json")


def cmd_export_gradescope(args):
    path = gradescope.export(args.out, root=args.root, timeout=args.timeout)
    print(f"Gradescope autograder written to {path}")


def cmd_gradescope_run(args):
    return gradescope.run(args.submission, args.results, root=args.root, timeout=args.timeout,
                          metadata=args.metadata)


def cmd_tasks(args):
    found, problems = tasks.discover(args.root)
    print(tasks.task_map(found), end="")
    if problems:
        print(f"\n{len(problems)} problem(s): run `python -m coursekit check`", file=sys.stderr)


def cmd_check(args):
    found, problems = tasks.discover(args.root)
    for problem in problems:
        print(problem)
    print(f"{len(found)} tasks, {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_twins(args):
    wanted = set(args.task) if args.task else None
    report, found = {}, []
    if args.kind in ("nnref", "all"):
        twins_, tried = twins.find(args.root, task_ids=wanted, jobs=args.jobs, timeout=args.timeout)
        report["nnref"] = tried
        graded = [t for t in tried if t["status"] is not None]
        print(f"nnref tasks: {len(tried)} candidates, {len(graded)} past the screen and graded:")
        for t in graded:
            print(f"{t['status']:>13}  {t['points']:>5g}/{t['max_points']:<2} {t['task']} <- {t['label']}")
        for t in twins_:
            print(f"twin: a body of {t['task']} that only calls {t['label']} passes; mark that code "
                  f"'### BEGIN SOLUTION twin={t['task']}' (book/instructors.md, No solution twin)")
        found += twins_
    if args.kind in ("chapter", "all"):
        twins_, tried = exercise_twins.find(args.root, task_ids=wanted, jobs=args.jobs, timeout=args.timeout)
        report["chapter"] = tried
        print(f"chapter exercises: {len(tried)} answers graded (controls included):")
        for t in tried:
            print(f"{t['status']:>13}  {t['points']:>5g}/{t['max_points']:<2} {t['task']} <- {t['label']}")
        for t in twins_:
            print(f"twin: {t['task']} passes with an answer that only calls what it rebuilds ({t['label']}); "
                  f"add a hidden test that takes it away (book/instructors.md, No solution twin)")
        found += twins_
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 1 if found else 0


def cmd_mark(args):
    for path in args.notebooks:
        notebook = nbformat.read(path, as_version=4)
        changed = notebooks.mark_notebook(notebook)
        for label, index in changed:
            print(f"--- {path}, {label} (cell {index}) ---\n{notebook.cells[index].source}\n")
        if changed and not args.dry_run:
            nbformat.write(notebook, path)
        print(f"{path}: {len(changed)} cell(s) {'would be ' if args.dry_run else ''}marked")


def cmd_site_config(args):
    """The student website's config: the book's, with the solutions hidden."""
    root = tasks.course_root(args.root)
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config.get('title', '')} (student edition)".strip()
    sphinx = config.setdefault("sphinx", {})
    sphinx.setdefault("config", {})["hide_solutions"] = True
    # Paths of local extensions are read relative to the config file: make them absolute.
    sphinx["local_extensions"] = {name: str((root / folder).resolve())
                                  for name, folder in sphinx.get("local_extensions", {}).items()}
    # The launch buttons would open the reference notebooks, solutions included.
    config.pop("launch_buttons", None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Generated by `python -m coursekit site-config` from _config.yml: do not edit.\n"
                   + yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    print(out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m coursekit", description=__doc__)
    parser.add_argument("--root", help="the course's repository (default: $COURSEKIT_ROOT, or the current "
                        "folder or the nearest one above it with book/, nnref/ and tests/course/)")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("student", help="write the student edition into OUTDIR")
    p.add_argument("outdir")
    p.add_argument("--force", action="store_true", help="replace OUTDIR if it is not empty")
    p.set_defaults(run=cmd_student)

    p = commands.add_parser("grade", help="grade one submission (a student edition, folder or zip) or a class "
                                          "(a folder of them, or a zip of zips)")
    p.add_argument("submission")
    p.add_argument("--out", help="output folder (default: grades/NAME for one submission, grades/ for a class)")
    p.add_argument("--timeout", type=float, default=10.0, help="time limit per test in seconds (10)")
    p.add_argument("--jobs", type=int, help="sandboxes run at the same time (default: CPU count)")
    p.add_argument("--task", action="append", help="grade only this task (repeatable)")
    p.add_argument("--roster", help="CSV file with an 'id' column: the students' ids")
    p.add_argument("--unsafe", action="store_true",
                   help="grade without the sandbox where bubblewrap does not work (only code you trust)")
    p.set_defaults(run=cmd_grade)

    p = commands.add_parser("export-gradescope", help="write a Gradescope autograder zip")
    p.add_argument("out")
    p.add_argument("--timeout", type=float, default=10.0, help="time limit per test in seconds (10)")
    p.set_defaults(run=cmd_export_gradescope)

    p = commands.add_parser("gradescope-run", help="(run_autograder's step) grade /autograder/submission")
    p.add_argument("submission")
    p.add_argument("results")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--metadata", help="Gradescope's submission_metadata.json: the submitter's id")
    p.set_defaults(run=cmd_gradescope_run)

    p = commands.add_parser("tasks", help="print the task map (Markdown)")
    p.set_defaults(run=cmd_tasks)

    p = commands.add_parser("check", help="check the markers; exit 1 if anything is wrong")
    p.set_defaults(run=cmd_check)

    p = commands.add_parser("twins", help="look for shipped code that passes an nnref task or a chapter exercise "
                                          "as its whole answer; exit 1 if any does")
    p.add_argument("--task", action="append", help="only this task or exercise (repeatable)")
    p.add_argument("--kind", choices=("nnref", "chapter", "all"), default="all",
                   help="nnref tasks, chapter exercises, or both (all)")
    p.add_argument("--json", help="write every candidate tried, and how it was graded, to this file")
    p.add_argument("--timeout", type=float, default=10.0, help="time limit per test in seconds (10)")
    p.add_argument("--jobs", type=int, default=2, help="sandboxes run at the same time (2)")
    p.set_defaults(run=cmd_twins)

    p = commands.add_parser("mark", help="propose SOLUTION markers for unmarked exercise solutions")
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--dry-run", action="store_true", help="print the proposal, change nothing")
    p.set_defaults(run=cmd_mark)

    p = commands.add_parser("site-config", help="write the student website's Jupyter Book config")
    p.add_argument("out")
    p.set_defaults(run=cmd_site_config)

    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except CourseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
