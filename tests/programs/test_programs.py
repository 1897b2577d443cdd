"""Every program in this folder prints the same on nnref as on PyTorch (see README.md)."""
import os
import pathlib
import re
import select
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("torch")
# Not marked `exact`: the programs print a few digits and are compared to one unit in the last, so
# running them again as on other CPU capabilities (tests/capabilities.py) would find nothing the
# bit-for-bit unit tests there do not, at twice this file's cost.

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent
PROGRAMS = sorted(p for p in HERE.glob("[0-9]*.py"))


@pytest.fixture(scope="module")
def runners(tmp_path_factory):
    """One ``_as_library.py --serve`` process per library: each program runs in a child forked
    from it, so PyTorch and nnref are imported once, not once per program."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    servers = {library: subprocess.Popen([sys.executable, str(HERE / "_as_library.py"), "--serve", library],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                         cwd=str(HERE))
               for library in ("torch", "nnref")}
    outputs = tmp_path_factory.mktemp("program-output")

    def run(library, program):
        server = servers[library]
        out, err = outputs / f"{program.stem}.{library}.out", outputs / f"{program.stem}.{library}.err"
        server.stdin.write(f"{program}\t{out}\t{err}\n")
        server.stdin.flush()
        if not select.select([server.stdout], [], [], 300)[0]:
            server.kill()
            pytest.fail(f"{program.name} ran over 300 s on {library}")
        code = int(server.stdout.readline())
        assert code == 0, f"{program.name} failed on {library}:\n{err.read_text()[-3000:]}"
        return out.read_text()
    yield run
    for server in servers.values():
        server.stdin.close()
        server.wait(timeout=30)


# A printed number: sign, digits, an optional fraction and exponent (not part of a word like "fc1").
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def _last_digit_unit(text):
    """The value of one unit in the last printed digit of ``text`` (``0.823497`` -> 1e-6)."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def differences_beyond_last_digit(got, expected):
    """The lines of ``got`` that differ from ``expected`` other than by one unit in the last
    printed digit of a number, as (line number, got, expected).  That much a printed value may
    move when nnref's matrix products (numpy's BLAS) and PyTorch's (MKL, oneDNN) add in different
    orders, which also differ from one CPU to another (book: Differences from PyTorch)."""
    got, expected = got.splitlines(), expected.splitlines()
    beyond = [(len(got), "<end>", "<end>")] if len(got) != len(expected) else []
    for number, (ours, theirs) in enumerate(zip(got, expected), 1):
        if ours == theirs:
            continue
        our_numbers, their_numbers = _NUMBER.findall(ours), _NUMBER.findall(theirs)
        same_text = _NUMBER.sub("#", ours) == _NUMBER.sub("#", theirs)
        if not same_text or len(our_numbers) != len(their_numbers) or any(
                abs(float(a) - float(b)) > 1.0001 * min(_last_digit_unit(a), _last_digit_unit(b))
                for a, b in zip(our_numbers, their_numbers)):
            beyond.append((number, ours, theirs))
    return beyond


def test_last_digit_tolerance_catches_real_differences():
    assert differences_beyond_last_digit("loss: 0.823497  [  352/  480]", "loss: 0.823498  [  352/  480]") == []
    assert differences_beyond_last_digit("x 1.5e-03 fc1", "x 1.6e-03 fc1") == []
    for got, expected in [("loss: 0.823496", "loss: 0.823498"), ("loss: 0.82", "loss: 0.823"),
                          ("fc1 7", "fc2 7"), ("[1, 2]", "[1, 2, 3]"), ("torch.float32", "torch.float64"),
                          ("a\nb", "a"), ("12", "13.0"), ("1.5e-03", "1.5e-04")]:
        assert differences_beyond_last_digit(got, expected), (got, expected)


def test_there_are_programs():
    assert len(PROGRAMS) >= 5


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_pytorch_prints(runners, program):
    expected = runners("torch", program)
    got = runners("nnref", program)
    assert expected.strip(), f"{program.name} printed nothing"
    beyond = differences_beyond_last_digit(got, expected)
    assert not beyond, "\n".join(f"line {n}:\n  nnref: {ours}\n  torch: {theirs}" for n, ours, theirs in beyond)
    moved = sum(ours != theirs for ours, theirs in zip(got.splitlines(), expected.splitlines()))
    if moved:
        warnings.warn(f"{program.name}: {moved} line(s) differ from PyTorch's by one unit in a last digit")
