"""Runs one group of tasks for the grader: ``python _worker.py PLAN.json`` (see grader.py).

Started as a script, by path, so that importing it imports no nnref: each
nnref task must import *its own* sandboxed copy.  Standard library only, until
the plan says what to preload.

A plan is a list of steps.  ``{"run": code}`` executes reference code (a
chapter's cells) in this process; ``{"task": ...}`` forks a child that runs
the task's code and tests and writes its result, while this process waits at
most ``timeout`` seconds, kills the child's whole process group if it is late,
and then (for a chapter) runs the reference solution so that the following
exercises see the state they expect.  So a crash, a hang or a syntax error
costs one task only, and a chapter's code runs once, not once per exercise.
"""
import ast
import contextlib
import io
import json
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == HERE:
    del sys.path[0]  # this folder is nnref/course: nothing to import from here


def main(plan_path):
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    sys.path[:0] = plan.get("sys_path", [])
    os.environ.update(plan.get("env", {}))
    if plan.get("cwd"):
        os.chdir(plan["cwd"])
    log = open(plan["log"], "a", encoding="utf-8", errors="replace")
    for module in plan.get("preload", []):
        try:
            __import__(module)
        except ImportError:
            pass
    namespace = {"__name__": "__main__"}
    for step in plan["steps"]:
        if "run" in step:
            run_reference(step, namespace, log)
            continue
        result = step.get("result") or run_task(plan, step, namespace)
        result["id"] = step["task"]
        with open(plan["results"], "a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")
        if plan["kind"] == "chapter":
            for code in step["reference"]:
                run_reference({"run": code, "label": f"reference of {step['task']}"}, namespace, log)


def run_reference(step, namespace, log):
    """Execute reference code; its output and any error go to the group's log only."""
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        try:
            exec(compile(step["run"], f"<{step.get('label', 'reference')}>", "exec"), namespace)
        except BaseException:
            if not step.get("allow_error"):
                print(f"[grader] the reference code {step.get('label')} raised:", file=log)
                traceback.print_exc(file=log)
    log.flush()


# -- one task in a child process --------------------------------------------------------------------
def run_task(plan, step, namespace):
    result_path = os.path.join(plan["workdir"], f"result-{step['slug']}.json")
    output_path = os.path.join(plan["workdir"], f"output-{step['slug']}.txt")
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 70
        try:
            os.setpgid(0, 0)
            output = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(output, 1)
            os.dup2(output, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", 0), write_through=True)
            sys.stderr = sys.stdout
            run = run_chapter_task if plan["kind"] == "chapter" else run_nnref_task
            result = run(plan, step, namespace)
            with open(result_path, "w", encoding="utf-8") as f:
                json.dump(result, f)
            status = 0
        except BaseException:
            traceback.print_exc()  # the grader's own trouble: into the task's output
        finally:
            os._exit(status)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # as the child does, so that a kill never misses it
    return wait_for(pid, step.get("timeout", plan["timeout"]), start, result_path, output_path)


def wait_for(pid, timeout, start, result_path, output_path):
    deadline = start + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"status": "timeout", "seconds": round(time.monotonic() - start, 2),
                    "message": f"did not finish within the time limit of {timeout:g} s "
                               "(an infinite loop?)", "output": tail(output_path)}
        time.sleep(0.01)
    seconds = round(time.monotonic() - start, 2)
    # Whatever the task started in its process group goes with it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if os.path.exists(result_path):
        with open(result_path, encoding="utf-8") as f:
            result = json.load(f)
        result.update(seconds=seconds, output=tail(output_path))
        return result
    if os.WIFSIGNALED(status):
        how = f"was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    else:
        how = f"exited with code {os.WEXITSTATUS(status)}"
    return {"status": "crashed", "seconds": seconds, "output": tail(output_path),
            "message": f"the process running the task {how} before it finished"}


def tail(path, lines=40, limit=65536):
    """The last lines a task printed (a task may print without end: read only the end)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - limit))
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def run_chapter_task(plan, step, namespace):
    """Execute the exercise's cells, the student's code in place of the solution, in the chapter's state."""
    cells = []
    for k, source in enumerate(step["student"]):
        filename = f"<{step['task']}, cell {k + 1}>"
        try:
            cells.append((filename, source, compile_cell(source, filename)))
        except SyntaxError as err:
            return {"status": "syntax-error", "message": describe_syntax_error(err)}
    for filename, source, code in cells:
        try:
            exec(code, namespace)
        except BaseException as err:  # SystemExit too: the student's code does not get to end the grader
            return failure(err, {filename: source})
    return {"status": "passed", "message": ""}


def compile_cell(source, filename):
    """Compile a cell as Jupyter would run it (magics rewritten), with pytest's assert messages."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        source = TransformerManager().transform_cell(source)
    except ImportError:
        pass
    tree = ast.parse(source, filename)
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
        rewrite_asserts(tree, source.encode())
    except ImportError:
        pass
    return compile(tree, filename, "exec")


def describe_syntax_error(err):
    where = f"{err.filename}, line {err.lineno}" if err.lineno else err.filename
    text = f": {err.text.strip()}" if err.text else ""
    return f"SyntaxError: {err.msg} ({where}){text}"


def failure(err, sources):
    """The first failing assertion (or the exception) with the line of code it came from."""
    location = ""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if frame.filename in sources:
            lines = sources[frame.filename].splitlines()
            line = lines[frame.lineno - 1].strip() if 0 < frame.lineno <= len(lines) else ""
            location = f"{frame.filename}, line {frame.lineno}: {line}"
            break
    if isinstance(err, AssertionError):
        detail = str(err).strip()
        message = f"AssertionError: {detail}" if detail else "AssertionError"
    elif isinstance(err, NotImplementedError):
        message = "NotImplementedError: not written yet (the stub raises it)"
    else:
        message = f"{type(err).__name__}: {err}"
    return {"status": "failed", "message": message[:2000], "location": location}


def run_nnref_task(plan, step, namespace):
    """Run the task's pytest files against the sandboxed nnref holding the student's code."""
    sys.path[:0] = [step["sandbox"], os.path.join(plan["reference"], "tests", "course", "tasks")]
    os.chdir(plan["workdir"])
    # Only pytest itself: the plugins installed alongside (nbval, hypothesis, ...) take a second
    # to load and the task tests use none of them; an empty ini skips the project's settings.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    ini = os.path.join(plan["workdir"], "pytest.ini")
    with open(ini, "w", encoding="utf-8") as f:
        f.write("[pytest]\n")
    import pytest

    class Collect:
        def __init__(self):
            self.passed, self.failures = 0, []

        def pytest_runtest_logreport(self, report):
            if report.passed and report.when == "call":
                self.passed += 1
            elif report.failed:
                self.failures.append(report)

        def pytest_collectreport(self, report):
            if report.failed:
                self.failures.append(report)

    collect = Collect()
    code = pytest.main([*step["tests"], "-q", "-p", "no:cacheprovider", "-c", ini,
                        "--rootdir", plan["reference"], "--tb=short"], plugins=[collect])
    counts = f"{collect.passed} test(s) passed, {len(collect.failures)} failed"
    if code == 0 and not collect.failures and collect.passed:
        return {"status": "passed", "message": counts}
    if not collect.failures:
        return {"status": "failed", "message": f"pytest exited with code {int(code)} ({counts})"}
    first = collect.failures[0]
    crash = getattr(first.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(first.longrepr).strip().splitlines()[-1]
    if message.startswith("NotImplementedError"):
        message = "NotImplementedError: not written yet (the stub raises it)"
    location = f"{first.nodeid}" + (f" ({os.path.basename(crash.path)}:{crash.lineno})" if crash else "")
    return {"status": "failed", "message": f"{message[:2000]} [{counts}]", "location": location}


if __name__ == "__main__":
    main(sys.argv[1])
