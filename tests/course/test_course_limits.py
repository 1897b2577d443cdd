"""Each limit of a sandbox holds for the sandbox as a whole: exceeded by several processes, with a control under it.

Memory and processes are counted by the sandbox's control group (``sandbox.Group``), disk by its
size-limited tmpfs, wall time by the grader's clock; a notebook is parsed in a limited child.
"""
import json
import resource
import textwrap

import pytest

from course_root import ROOT
from coursekit import checks, grader, sandbox, student
from coursekit.sandbox import Limits

FORK_AND_REPORT = '''
import os, time


def children(count, work):
    """Run ``work()`` in ``count`` forked processes at once; the numbers they return, summed."""
    pipes, pids = [], []
    for _ in range(count):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                value = work()
            except BaseException:
                value = 0
            os.write(write, str(value).encode())
            os._exit(0)
        os.close(write)
        pipes.append(read)
        pids.append(pid)
    total = 0
    for read, pid in zip(pipes, pids):
        text = os.read(read, 100)
        total += int(text) if text else 0  # killed before it could say: nothing
        os.waitpid(pid, 0)
    return total
'''

MEMORY = FORK_AND_REPORT + '''
def test_limit():
    def hold():  # 300 MiB, every page touched, held while the others hold theirs
        block = bytearray(b"\\x01") * (300 << 20)
        time.sleep(2)
        return 1
    assert children(4, hold) == 4
'''

PROCESSES = FORK_AND_REPORT + '''
def test_limit():
    def spawn():
        made = []
        for _ in range(20):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(3)
                os._exit(0)
            made.append(pid)
        time.sleep(1)
        for pid in made:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        return len(made)
    assert children(4, spawn) == 80
'''

DISK = FORK_AND_REPORT + '''
def test_limit():
    def fill():
        written = 0
        for k in range(2):  # 2 x 50 MiB per process (one file stays under the per-file limit)
            try:
                with open(f"/box/fill-{os.getpid()}-{k}", "wb") as f:
                    for _ in range(50):
                        f.write(b"\\x01" * (1 << 20))
                        f.flush()
                        written += 1
            except OSError:
                break
        return written
    assert children(4, fill) == 400
'''


def run_limit(source, tmp_path, limits, **clock):
    task = tmp_path / "task"
    task.mkdir(exist_ok=True)
    plan = {"kind": "tests", "cwd": "/box", "sys_path": ["/task"], "preload": [],
            "files": [{"module": "test_limit", "path": "/task/tests/test_limit.py",
                       "source": checks.rewrite(textwrap.dedent(source), "test_limit.py")}]}
    box = tmp_path / f"box-{len(list(tmp_path.iterdir()))}"
    outcome = sandbox.run(grader.compiled_plan(plan), task, box, limits=limits, **({"test_limit": 60.0} | clock))
    values = [(r.get("leaves") or [None])[0] for r in outcome.records if r.get("r") == "check"]
    return outcome, (values[0] if values else None)


@pytest.fixture(scope="module", autouse=True)
def sandboxed():
    if sandbox.check():
        pytest.fail(f"no sandbox here: {sandbox.check()}")


def needs_groups():
    group = sandbox.Group.make(Limits())
    if group is None:
        pytest.skip("no control group can be made here: memory is limited per process (see book/instructors.md)")
    group.remove()


def test_memory_is_limited_for_the_sandbox_as_a_whole(tmp_path):
    """Four processes of 300 MiB each: under the per-process limit (1 GiB), over the sandbox's (768 MiB)."""
    needs_groups()
    _outcome, held = run_limit(MEMORY, tmp_path, Limits(memory=1 << 30, sandbox_memory=768 << 20))
    assert held is None or held < 4
    _outcome, held = run_limit(MEMORY, tmp_path, Limits(memory=1 << 30, sandbox_memory=3 << 30))
    assert held == 4  # the control: the same processes, under a larger limit


def test_processes_are_limited_for_the_sandbox_as_a_whole(tmp_path):
    """Four processes start 20 each: 80 in all, over the sandbox's 24."""
    _outcome, made = run_limit(PROCESSES, tmp_path, Limits(processes=24))
    assert made is not None and made <= 24
    _outcome, made = run_limit(PROCESSES, tmp_path, Limits(processes=128))
    assert made == 80


def test_disk_is_limited_for_the_sandbox_as_a_whole(tmp_path):
    """Four processes write 100 MiB each into /box: 400 MiB, over the sandbox's 128 MiB."""
    _outcome, written = run_limit(DISK, tmp_path, Limits(disk=128 << 20))
    assert written is not None and written <= 128
    _outcome, written = run_limit(DISK, tmp_path, Limits(disk=512 << 20))
    assert written == 400
    assert not list(tmp_path.glob("box-*/fill-*"))  # nothing was written to the grader's disk


def test_no_record_extends_the_wall_clock(tmp_path):
    """Three processes announce tests (the one running, new ones, old ones) every 0.1 s: the run ends on time."""
    source = FORK_AND_REPORT + textwrap.dedent('''
        import __main__, json
        def test_limit():
            def announce():
                for n in range(100000):
                    for test in ("test_limit::test_limit", f"fake-{os.getpid()}-{n}"):
                        for kind in ("start", "end"):
                            __main__.send({"r": kind, "test": test, "index": 0, "how": "ok"})
                    time.sleep(0.1)
            children(3, announce)
        ''')
    outcome, _ = run_limit(source, tmp_path, Limits(), test_limit=2.0, setup_limit=30.0, between_limit=1.0,
                           total_limit=60.0, tests={"test_limit::test_limit"})
    assert outcome.how == "timeout" and outcome.seconds < 8  # the test's limit and one wait, whatever is sent
    outcome, _ = run_limit(source, tmp_path, Limits(), test_limit=30.0, setup_limit=30.0, total_limit=5.0,
                           tests={"test_limit::test_limit"})
    assert outcome.how == "timeout" and outcome.seconds < 8  # the total


def test_a_huge_notebook_is_parsed_inside_limits(tmp_path, monkeypatch):
    """100,000 cells (40 MiB): the child that parses it runs out of memory; the grader does not grow."""
    cells = [{"cell_type": "code", "source": "x" * 400, "metadata": {}, "outputs": [], "execution_count": None}
             for _ in range(100_000)]
    path = tmp_path / "huge.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    del cells
    monkeypatch.setitem(student.NOTEBOOK_LIMITS, "memory", 100 << 20)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(LookupError, match="MemoryError"):
        student.notebook_answers([(path, ["walking-ex1"], "huge.ipynb")])
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 << 10  # KiB: under 50 MiB
    # the control: a chapter of the course, under the same limit
    chapter = "book/07_walking_the_tree.ipynb"
    parsed = student.notebook_answers([(ROOT / chapter, ["walking-ex1"], chapter)])
    assert parsed[chapter]["walking-ex1"] is not None
