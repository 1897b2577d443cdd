"""Release check: the README's two commands work on a fresh Debian.

Marked ``release``, so the default run (``./dev.sh test``, CI) leaves it out; run it with

    .venv/bin/python -m pytest -m release tests/release -p no:cacheprovider

as root on a Debian/Ubuntu machine with ``debootstrap`` (``apt-get install debootstrap``) and
a Debian mirror in reach.  It skips, saying why, when any of that is missing.

What it does:

1. ``debootstrap --variant=minbase --include=git,python3,ca-certificates bookworm ROOT MIRROR``:
   a Debian with git and Python and nothing of this project.
2. Clones this repository (its committed HEAD, or the commit ``$NNREF_RELEASE_REF`` names) into
   ``/root/inside-nn-module`` with the git *inside* that Debian.
3. Runs ``./dev.sh book`` there, then ``./dev.sh test`` (or ``$NNREF_RELEASE_TEST_COMMAND``
   instead of the second one, e.g. a reduced pytest selection after ``./dev.sh setup``), and
   checks that both exit 0 and that ``_build/html/index.html`` exists.

The commands run as root in that Debian, as the README's root path does: ``dev.sh``
installs Graphviz, MathJax, python3-venv, Chromium and bubblewrap with apt-get from the same
mirror.  They run in a mount namespace of their own whose root is the new Debian
(``unshare --mount`` + ``pivot_root``, with /proc, /dev and /sys mounted in it): unlike a
plain ``chroot``, that lets bubblewrap, the grader's sandbox, create its namespaces, and
every mount disappears with the namespace, so nothing is left mounted if the run dies.
The host's pip configuration (its ``pip.conf`` files, ``PIP_*`` variables and the local wheel
folders and indexes they name, bind-mounted read-only) is carried in, so pip installs what
it would install on this machine (for instance the CPU build of PyTorch) rather than
whatever the public index offers.  Set ``NNREF_DEBIAN_MIRROR`` to use another mirror, and
``NNREF_RELEASE_KEEP=DIR`` to keep the Debian root in DIR (it is removed otherwise).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = "bookworm"
MIRROR = os.environ.get("NNREF_DEBIAN_MIRROR", "http://deb.debian.org/debian").rstrip("/")
CLONE = "/root/inside-nn-module"
PIP_CONFIGS = ["/etc/pip.conf", "/etc/xdg/pip/pip.conf", "/root/.config/pip/pip.conf",
               "/root/.pip/pip.conf"]

pytestmark = [pytest.mark.release, pytest.mark.timeout(6 * 3600)]


def readme_commands() -> list[str]:
    """The commands of README's 'Two commands' block (as tests/test_repo_setup.py reads them)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = re.search(r"^## Two commands\s*$(.*?)(?=^##\s|\Z)", text, flags=re.M | re.S).group(1)
    block = re.search(r"```[a-z]*\n(.*?)```", body, flags=re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines()
            if line.split("#", 1)[0].strip()]


def why_not_runnable() -> str | None:
    if os.geteuid() != 0:
        return "needs root (debootstrap, mounts)"
    for tool in ("debootstrap", "unshare", "pivot_root", "git"):
        if shutil.which(tool) is None:
            return f"needs {tool} (apt-get install debootstrap util-linux git)"
    try:
        with urllib.request.urlopen(f"{MIRROR}/dists/{SUITE}/Release", timeout=15) as reply:
            reply.read(64)
    except OSError as err:
        return f"no Debian mirror in reach at {MIRROR} ({err})"
    return None


def local_pip_paths() -> list[str]:
    """Local folders and files the host's pip configuration names (find-links, file:// indexes,
    constraints), so they can be mounted at the same place in the new Debian."""
    text = "\n".join(Path(p).read_text(encoding="utf-8", errors="replace")
                     for p in PIP_CONFIGS if Path(p).is_file())
    text += "\n" + "\n".join(f"{k} = {v}" for k, v in os.environ.items() if k.startswith("PIP_"))
    paths = set()
    for word in re.split(r"[\s=]+", text):
        word = word.removeprefix("file://")
        if word.startswith("/") and Path(word).exists():
            paths.add(word.rstrip("/"))
    # a file:// index names its simple/ folder; mount the folder that holds it
    return sorted({str(Path(p).parent) if Path(p).name == "simple" else p for p in paths})


def run_inside(debian: Path, command: str, log: Path, timeout: float) -> int:
    """Run a shell command as root inside the Debian root, in a private mount namespace."""
    binds = local_pip_paths()
    mounts = [
        "set -e",
        "mount --make-rprivate /",
        f"mount --bind {shlex.quote(str(debian))} {shlex.quote(str(debian))}",
        f"cd {shlex.quote(str(debian))}",
        "mount -t proc proc proc",
        "mount --rbind /sys sys",
        "mount --rbind /dev dev",
    ]
    for path in binds:
        target = f"./{path.lstrip('/')}"
        kind = "-d" if Path(path).is_dir() else "-f"
        mounts += [f"[ {kind} {shlex.quote(target)} ] || "
                   + (f"mkdir -p {shlex.quote(target)}" if kind == "-d"
                      else f"{{ mkdir -p $(dirname {shlex.quote(target)}); : > {shlex.quote(target)}; }}"),
                   f"mount --bind -o ro {shlex.quote(path)} {shlex.quote(target)}"]
    mounts += [
        "mkdir -p .oldroot",
        "pivot_root . .oldroot",
        "cd /",
        "umount -l /.oldroot",
        "rmdir /.oldroot",
    ]
    env = {"HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb", "DEBIAN_FRONTEND": "noninteractive",
           "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    inner = " ".join(["exec", "env", "-i", *(shlex.quote(f"{k}={v}") for k, v in env.items()),
                      "bash", "-c", shlex.quote(command)])
    script = "\n".join(mounts + [inner])
    with open(log, "ab") as out:
        out.write(f"\n### {command}\n".encode())
        out.flush()
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "--fork", "--kill-child",
                               "sh", "-c", script], stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=timeout).returncode


def tail(log: Path, lines: int = 60) -> str:
    return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def test_readme_commands_in_a_fresh_debian(tmp_path):
    reason = why_not_runnable()
    if reason:
        pytest.skip(reason)
    commands = readme_commands()
    assert commands == ["./dev.sh book", "./dev.sh test"], commands
    keep = os.environ.get("NNREF_RELEASE_KEEP")
    debian = Path(keep) if keep else tmp_path / "debian"
    log = tmp_path / "release.log" if not keep else Path(keep).with_suffix(".log")
    print(f"log: {log}")
    times = {}
    try:
        start = time.monotonic()
        with open(log, "wb") as out:
            made = subprocess.run(
                ["debootstrap", "--variant=minbase", "--include=git,python3,ca-certificates",
                 SUITE, str(debian), MIRROR], stdout=out, stderr=subprocess.STDOUT, timeout=3600)
        times["debootstrap"] = time.monotonic() - start
        assert made.returncode == 0, f"debootstrap failed:\n{tail(log)}"
        shutil.copy("/etc/resolv.conf", debian / "etc/resolv.conf")
        for config in PIP_CONFIGS:
            if Path(config).is_file():
                (debian / config.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(config, debian / config.lstrip("/"))

        # The repository's committed state, cloned by the new Debian's own git.
        origin = debian / "mnt/origin.git"
        subprocess.run(["git", "clone", "--quiet", "--bare", "--no-local", str(ROOT), str(origin)],
                       check=True)
        ref = os.environ.get("NNREF_RELEASE_REF", "HEAD")
        clone = f"git clone --quiet /mnt/origin.git {CLONE} && git -C {CLONE} checkout --quiet {shlex.quote(ref)}"
        assert run_inside(debian, clone, log, 600) == 0, tail(log)
        assert (debian / CLONE.lstrip("/") / "dev.sh").is_file()

        second = os.environ.get("NNREF_RELEASE_TEST_COMMAND", commands[1])
        for command in (commands[0], second):
            start = time.monotonic()
            rc = run_inside(debian, f"cd {CLONE} && {command}", log, 5 * 3600)
            times[command] = time.monotonic() - start
            assert rc == 0, f"`{command}` exited {rc} in the fresh Debian:\n{tail(log)}"
            if command == commands[0]:
                assert (debian / CLONE.lstrip("/") / "_build/html/index.html").is_file()
        assert (debian / CLONE.lstrip("/") / "_build/html/index.html").is_file()
    finally:
        print("times: " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in times.items()))
        if not keep:
            shutil.rmtree(debian, ignore_errors=True)
