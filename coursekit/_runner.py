"""Runs checks inside the sandbox: ``python _runner.py OUT_FD < PLAN.json`` (started by ``grader.py``).

Started as a script, by path, standard library only until the plan says what
to preload.  It reads its whole plan from stdin before any code of the plan
runs, then writes *records* to the file descriptor ``OUT_FD``, one JSON line
each: ``start`` and ``end`` of each test, and ``check``, the values of one
check (see ``checks.py``).  It never says whether a check passed: the grader,
outside the sandbox, compares the values with the reference run's.

Everything here runs in the same process as the student's code once that
code is imported, so nothing here is trusted: a submission may replace any of
it and send what it likes.  What it sends is only data, read by the grader
with ``json`` and checked value by value.

Two kinds of plan:

* ``tests``: pytest-style test files (``test_*`` functions, ``parametrize``,
  ``pytest.raises``, ``pytest.skip``), run one test after the other;
* ``chapter``: a chapter's code cells, run in order; each exercise runs in a
  forked child, so the chapter's state is the same for every exercise, and
  whatever the child started is killed when it ends.
"""
import base64
# The builtins the runner uses, bound here before any code of the plan runs: a submission that patches
# the ``builtins`` module (``list``, ``isinstance``, ...) does not change how values are taken.
from builtins import (BaseException, Exception, abs, bool, bytes, dict, enumerate, float, frozenset, getattr,
                      hasattr, id, int, isinstance, issubclass, len, list, open, repr, reversed, set, str,
                      tuple, type, zip)
import json
import marshal
import math
import os
import signal
import sys
import traceback
import types

OUT = None
CURRENT = {"test": None, "counts": {}}
LIMIT = 4 << 20  # bytes of one record


def send(record):
    try:
        line = json.dumps(record, allow_nan=False)
    except (TypeError, ValueError):
        line = json.dumps({"r": "check", "test": record.get("test"), "id": record.get("id"),
                           "n": record.get("n"), "error": "the value could not be sent"})
    if len(line) > LIMIT:
        line = json.dumps({"r": record.get("r"), "test": record.get("test"), "id": record.get("id"),
                           "n": record.get("n"), "error": "the value is too large to send"})
    data = (line + "\n").encode()
    while data:
        data = data[os.write(OUT, data):]


# -- values as data ------------------------------------------------------------------------------------
def _type_names(kind):
    return [f"{c.__module__}.{c.__qualname__}" for c in kind.__mro__][:64]


def encode(value, depth=0):
    """``value`` as JSON data.  Objects that are not data are sent as their type's MRO and their ``id()``
    (identity is data too: the grader compares which objects are the same with the reference's)."""
    if depth > 40:
        return {"object": {"mro": ["nested too deeply"]}}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 63 else {"float": repr(float(value))}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(value, numpy.ndarray):
            return {"array": dict(_array(numpy, value), id=id(value), mro=_type_names(type(value)))}
        if isinstance(value, numpy.generic):
            return encode(value.item(), depth + 1)
    if isinstance(value, type):
        return {"class": {"mro": _type_names(value), "id": id(value)}}
    if hasattr(value, "detach") and hasattr(value, "numpy") and hasattr(value, "shape"):
        try:
            return {"tensor": dict(_array(numpy, value.detach().cpu().numpy()), id=id(value),
                                   mro=_type_names(type(value)))}
        except Exception:
            pass
    if type(value).__name__ in ("dtype", "device") or (numpy is not None and isinstance(value, numpy.dtype)):
        return str(value)  # torch.float32, nnref.float32, float32: compared by name
    if isinstance(value, tuple):
        return {"tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        tag = "odict" if type(value).__name__ == "OrderedDict" else "dict"
        return {tag: [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"set": [encode(v, depth + 1) for v in value]}
    if type(value).__name__ in ("dict_keys", "dict_values", "dict_items", "odict_keys", "odict_values",
                                "odict_items"):
        return [encode(v, depth + 1) for v in value]
    return {"object": {"mro": _type_names(type(value)), "id": id(value)}}


DATA = (list, tuple, dict, set, frozenset, str, bytes)


def _value(leaf, spec, alive):
    """The value of one leaf as the grader asks for it (``checks._Skeleton``); ``alive`` keeps every value
    until the record is sent, so that no two of them share an ``id()``."""
    try:
        value = leaf()
        if spec == "i" and not isinstance(value, DATA) and not hasattr(value, "shape"):
            value = list(value)  # an iterator: what it yields
        elif isinstance(spec, list):  # a comprehension: per iteration, its element's leaves
            value = [[_materialized(v, s, alive) for v, s in zip(row, spec[1])] for row in value]
        alive.append(value)
        return value
    except Exception as err:
        return _Raised(describe(err))


def _materialized(value, spec, alive):
    alive.append(value)
    if spec == "i" and not isinstance(value, DATA) and not hasattr(value, "shape"):
        value = list(value)
        alive.append(value)
    return value


class _Raised:
    def __init__(self, text):
        self.text = text


def _array(numpy, array):
    if array.dtype.kind not in "biufc":
        raise TypeError("not a numeric array")
    if array.dtype.name not in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64", "float16", "float32", "float64", "complex64", "complex128"):
        array = array.astype(numpy.float32)  # bfloat16 and friends
    array = numpy.ascontiguousarray(array)
    return {"dtype": array.dtype.name, "shape": list(array.shape),
            "data": base64.b64encode(array.tobytes()).decode()}


def describe(err):
    text = f"{type(err).__name__}: {err}".strip().rstrip(":")
    return text[:500]


def where(err):
    """The last frame of the traceback in the code the plan ran (a test file or a cell)."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if frame.filename.startswith("<") or frame.filename.startswith("/task"):
            return f"{os.path.basename(frame.filename)}, line {frame.lineno}"
    return ""


# -- the probes the rewritten asserts call ---------------------------------------------------------------
def _occurrence(check_id):
    key = (CURRENT["test"], check_id)
    CURRENT["counts"][key] = n = CURRENT["counts"].get(key, 0) + 1
    return n


def probe(check_id, leaves, specs, expected=(), expected_specs=()):
    """Send the values of a check's leaves (and of its expected side's, if the plan holds them)."""
    record = {"r": "check", "test": CURRENT["test"], "id": check_id, "n": _occurrence(check_id), "kind": "expr"}
    alive = []
    try:
        record["leaves"] = [_encode_leaf(_value(leaf, spec, alive), spec) for leaf, spec in zip(leaves, specs)]
        if expected:
            record["expected"] = [_encode_leaf(_value(leaf, spec, alive), spec)
                                  for leaf, spec in zip(expected, expected_specs)]
    except Exception as err:
        record = {k: record[k] for k in ("r", "test", "id", "n", "kind")}
        record["error"] = describe(err)
    send(record)


def _encode_leaf(value, spec):
    if isinstance(value, _Raised):
        return {"raised": value.text}
    if isinstance(spec, list):  # rows of a comprehension's leaves
        return [[_encode_leaf(v, s) for v, s in zip(row, spec[1])] for row in value]
    return encode(value)


class Raises:
    """``with pytest.raises(E, match=...)``, rewritten: records what was raised, and carries on."""

    def __init__(self, check_id, expected, match):
        self.check_id, self.expected, self.match = check_id, expected, match
        self.value = self.type = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        record = {"r": "check", "test": CURRENT["test"], "id": self.check_id,
                  "n": _occurrence(self.check_id), "kind": "raises"}
        try:
            classes = self.expected() if self.expected is not None else ()
            classes = classes if isinstance(classes, tuple) else (classes,)
            record["expected"] = [c.__name__ for c in classes]
            record["match"] = self.match() if self.match is not None else None
        except Exception:
            pass
        if kind is not None and issubclass(kind, Exception):
            self.value, self.type = value, kind
            record["raised"] = {"mro": [c.__name__ for c in kind.__mro__], "message": str(value)[:2000]}
        send(record)
        return kind is not None and issubclass(kind, Exception)


def namespace_globals(namespace):
    namespace["__probe__"] = probe
    namespace["__raises__"] = Raises
    return namespace


# -- plans ----------------------------------------------------------------------------------------------
def run_tests(plan):
    """Import the test files, then run their tests in order (from ``start_at``)."""
    import pytest

    cases = []
    for spec in plan["files"]:
        module = types.ModuleType(spec["module"])
        module.__file__ = spec["path"]
        namespace_globals(module.__dict__)
        sys.modules[spec["module"]] = module
        try:
            exec(code_of(spec["code"]), module.__dict__)
        except BaseException as err:
            send({"r": "import-error", "file": spec["module"], "error": describe(err), "where": where(err)})
            continue
        for name, function in list(module.__dict__.items()):
            if name.startswith("test_") and callable(function):
                for key, kwargs in _parametrized(spec["module"], name, function):
                    cases.append((key, function, kwargs))
    for index, (key, function, kwargs) in enumerate(cases):
        if index < plan.get("start_at", 0):
            continue
        CURRENT["test"] = key
        send({"r": "start", "test": key, "index": index})
        try:
            function(**kwargs)
            send({"r": "end", "test": key, "how": "ok"})
        except pytest.skip.Exception as err:
            send({"r": "end", "test": key, "how": "skip", "error": str(err)[:300]})
        except BaseException as err:  # SystemExit too: student code does not end the run
            send({"r": "end", "test": key, "how": "error", "error": describe(err), "where": where(err)})
    send({"r": "done", "tests": len(cases)})


def _parametrized(module, name, function):
    marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
    if not marks:
        return [(f"{module}::{name}", {})]
    names, values = marks[0].args[0], marks[0].args[1]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    cases = []
    for k, value in enumerate(values):
        if type(value).__name__ == "ParameterSet":  # pytest.param(...)
            value = value.values
        args = dict(zip(names, value if len(names) > 1 else (value,)))
        cases.append((f"{module}::{name}[{k}]", args))
    return cases


def run_chapter(plan):
    """Execute the chapter's cells; each exercise in a forked child (see the module docstring)."""
    namespace = namespace_globals({"__name__": "__main__"})
    log = open(os.devnull, "w")
    for cell in plan["cells"]:
        if "run" in cell:
            stdout, stderr = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = log
            try:
                exec(code_of(cell["run"]), namespace)
            except BaseException:
                pass  # a cell the chapter expects to raise; a failure shows in the reference run
            finally:
                sys.stdout, sys.stderr = stdout, stderr
            continue
        if "exercise" in cell and cell.get("index", 0) >= plan.get("start_at", 0):
            run_exercise(cell, namespace, plan)
        define(cell, namespace)
    send({"r": "done"})


def run_exercise(cell, namespace, plan):
    key = cell["exercise"]
    send({"r": "start", "test": key, "index": cell.get("index", 0)})
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 0
        # the child needs its own code only: the reference definitions of the plan go first
        for other in plan["cells"]:
            other.pop("define", None)
            if other is not cell:
                other.clear()
        try:
            CURRENT["test"] = key
            exec(code_of(cell["code"]), namespace)
            send({"r": "end", "test": key, "how": "ok"})
        except BaseException as err:
            status = 1
            send({"r": "end", "test": key, "how": "error", "error": describe(err), "where": where(err)})
        finally:
            os._exit(status)
    _pid, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        send({"r": "end", "test": key, "how": "crashed",
              "error": f"the process was killed by signal {signal.Signals(os.WTERMSIG(status)).name}"})
    elif os.WEXITSTATUS(status):
        send({"r": "end", "test": key, "how": "crashed",
              "error": f"the process exited with code {os.WEXITSTATUS(status)}"})
    # Whatever the exercise started (daemons included) ends with it: every process of the
    # sandbox this one may signal, that is all but itself and the sandbox's init.
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def define(cell, namespace):
    """Run the reference's code of an exercise here, checks off: later exercises may use what it defines.

    As in the notebook, where the cells run in order; the reference's, not the
    student's, so that each exercise is graded on the same state whatever the
    student did in the others (the grader sends it, ``grader.chapter_units``).
    """
    probes = namespace["__probe__"], namespace["__raises__"]
    namespace["__probe__"] = lambda *args, **kwargs: None
    namespace["__raises__"] = lambda *args: _Quiet()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        exec(code_of(cell["define"]), namespace)
    except BaseException:
        pass
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        namespace["__probe__"], namespace["__raises__"] = probes


class _Quiet:
    value = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.value = value
        return kind is not None and issubclass(kind, Exception)


def code_of(compiled):
    """A code object the grader compiled (``grader.compiled_plan``): the plan carries no source text."""
    return marshal.loads(base64.b64decode(compiled))


def main():
    global OUT
    OUT = int(sys.argv[1])
    plan = json.loads(sys.stdin.read())
    sys.stdin.close()
    if plan.get("seed"):  # the task's files, read-only at /seed, into the size-limited /box
        import shutil
        for name in os.listdir(plan["seed"]):
            source = os.path.join(plan["seed"], name)
            copy = shutil.copytree if os.path.isdir(source) else shutil.copy
            copy(source, os.path.join("/box", name))
    os.chdir(plan["cwd"])
    sys.path[:0] = plan.get("sys_path", [])
    for module in plan.get("preload", []):
        try:
            __import__(module)
        except ImportError:
            pass
    if plan["kind"] == "tests":
        run_tests(plan)
    else:
        run_chapter(plan)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]
    main()
