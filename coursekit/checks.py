"""Checks: the instructor's ``assert`` statements, turned into requests for data, judged by the grader.

A test file or an exercise's cells are rewritten before they run (in the
sandbox, see ``_runner.py``): each ``assert`` becomes a call
``__probe__(ID, KIND, lambda: SUBJECT, lambda: EXPECTED, ...)`` that sends the
*values* to the grader, as data (JSON; arrays as raw bytes), and goes on.
Nothing in the sandbox decides whether a check passed:

* the values of a check's **expected** side (the right of ``==``, the second
  argument of ``allclose``, the class given to ``pytest.raises``) are those of
  the *reference run*: the same checks run on the reference solution, in a
  sandbox that never saw a student's code;
* the **subject** (the left side) comes from the student's run;
* :func:`judge` compares them, in the grader's process.

So a submission can only pass a check by producing, in its own process, the
value the reference produces.  Where a check compares objects that are not
data (``a is b``, ``m in memo``), the student's process computes the truth
value and the check needs ``True`` where the reference gives ``True``; such
checks show that the student's code says so, and hidden tests should compare
data instead.  So are checks whose values differ between two runs of the
reference (an ``id()``, a time): the grader runs the reference twice.

Check ids are ``LINE.SUB`` of the assert in the instructor's source (``SUB``
counts the parts of ``assert a and b``), so the same check has the same id in
both runs, whatever the student's code around it looks like.
"""
import ast
import base64
import math
import re

import numpy as np

from . import parsing

PROBE = "__probe__"
RAISES = "__raises__"
ALLCLOSE = {"allclose": "allclose", "array_equal": "equal", "equal": "equal"}
OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
       ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


# -- rewriting the instructor's code -----------------------------------------------------------------
def _lambda(node):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                      body=node)


def _probe_call(check_id, kind, *parts, keywords=()):
    call = ast.Call(func=ast.Name(PROBE, ast.Load()),
                    args=[ast.Constant(check_id), ast.Constant(kind), *[_lambda(p) for p in parts]],
                    keywords=[ast.keyword(arg=k, value=_lambda(v)) for k, v in keywords])
    return ast.Expr(call)


def _parts(test):
    """``assert a and b and c`` is three checks; so is ``assert a == b == c`` (two: ``a == b``, ``b == c``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [p for value in test.values for p in _parts(value)]
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        operands = [test.left, *test.comparators]
        return [ast.Compare(left=operands[k], ops=[op], comparators=[operands[k + 1]])
                for k, op in enumerate(test.ops)]
    return [test]


def _probe_for(check_id, test, keep):
    """The probe for one check; ``keep(check_id)``: whether the expected side goes in too."""
    expected = keep(check_id)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _probe_call(check_id, "cmp:" + OPS[type(test.ops[0])], test.left,
                           *([test.comparators[0]] if expected else []))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _probe_call(check_id, "falsy", test.operand)
    if (isinstance(test, ast.Call) and len(test.args) >= 2
            and getattr(test.func, "attr", getattr(test.func, "id", None)) in ALLCLOSE):
        name = getattr(test.func, "attr", getattr(test.func, "id", None))
        if not expected:
            return _probe_call(check_id, ALLCLOSE[name], test.args[0])
        return _probe_call(check_id, ALLCLOSE[name], test.args[0], test.args[1],
                           keywords=[(k.arg, k.value) for k in test.keywords if k.arg in ("rtol", "atol")])
    return _probe_call(check_id, "truthy", test)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, prefix="", lines=None, keep=None):
        self.prefix = prefix
        self.lines = lines  # only asserts starting on these lines (None: all)
        self.keep = keep or (lambda check_id: True)

    def visit_Assert(self, node):
        if self.lines is not None and node.lineno not in self.lines:
            return node
        probes = [_probe_for(f"{self.prefix}{node.lineno}.{k}", part, self.keep)
                  for k, part in enumerate(_parts(node.test))]
        for probe in probes:
            ast.copy_location(probe, node)
        return probes

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            call = item.context_expr
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "raises"
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "pytest" and call.args):
                check_id = f"{self.prefix}{node.lineno}.r"
                match = next((k.value for k in call.keywords if k.arg == "match"), ast.Constant(None))
                expected = [_lambda(call.args[0]), _lambda(match)] if self.keep(check_id) else \
                    [ast.Constant(None), ast.Constant(None)]
                item.context_expr = ast.Call(func=ast.Name(RAISES, ast.Load()),
                                             args=[ast.Constant(check_id), *expected], keywords=[])
        return node


def keep_for_student(truth_ids):
    """For the student's run: the expected side only of checks that compare objects (``truth_ids``).

    The student's process never holds the expected value of a data check
    (a literal, a hidden input's answer): it cannot send it back as its own.
    """
    truth_ids = set(truth_ids)
    return lambda check_id: check_id in truth_ids


def truth_ids(reference_records):
    """The checks of a reference run that compare objects, not data (judged on the truth value)."""
    ids = set()
    for record in reference_records:
        if record.get("r") == "check" and record.get("unstable"):
            ids.add(str(record.get("id")))
        elif record.get("r") == "check" and "truth" in record:
            try:
                if has_objects(decode(record.get("subject"))) or has_objects(decode(record.get("expected"))) \
                        or (record["kind"] in ("cmp:is", "cmp:is not")
                            and not (record.get("expected") is None or isinstance(record.get("expected"), bool))):
                    ids.add(str(record.get("id")))
            except ValueError:
                ids.add(str(record.get("id")))
    return ids


def rewrite(source, filename="<checks>", prefix="", lines=None, keep=None):
    """``source`` with its asserts (those starting on ``lines``, if given) turned into probes."""
    tree = _Rewrite(prefix, lines, keep).visit(parsing.parse(source, filename))
    return ast.unparse(ast.fix_missing_locations(tree))


def rewrite_lines(source, lines, prefix="", keep=None):
    """Rewrite only the asserts starting on ``lines`` (1-based), leaving every other line as written.

    Used for an exercise's cells, where the student's code sits between the
    instructor's asserts: each assert statement is replaced in place by its probes.
    """
    tree = parsing.parse(source)
    text = source.split("\n")
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assert) and n.lineno in lines),
                       key=lambda n: -n.lineno):
        indent = text[node.lineno - 1][:node.col_offset]
        new = [ast.unparse(ast.fix_missing_locations(p))
               for p in _Rewrite(prefix, keep=keep).visit_Assert(node)]
        text[node.lineno - 1:node.end_lineno] = [indent + line for line in "\n".join(new).split("\n")]
    return "\n".join(text)


def check_ids(source, prefix="", lines=None):
    """The ids of the checks in ``source``, in order (what the reference run must report)."""
    tree = parsing.parse(source)
    ids = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and (lines is None or node.lineno in lines):
            ids += [f"{prefix}{node.lineno}.{k}" for k in range(len(_parts(node.test)))]
    return ids


# -- data from the sandbox ---------------------------------------------------------------------------
def decode(value, depth=0):
    """A value sent by a sandbox (JSON) as Python data; never code, never pickle."""
    if depth > 50:
        raise ValueError("data nested too deeply")
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError("malformed value")
    (tag, inner), = value.items()
    if tag == "tuple":
        return tuple(decode(v, depth + 1) for v in inner)
    if tag in ("dict", "odict"):
        pairs = [(_key(decode(k, depth + 1)), decode(v, depth + 1)) for k, v in inner]
        return {"__dict__": sorted(pairs, key=repr) if tag == "dict" else pairs}
    if tag == "set":
        return {"__set__": sorted((_key(decode(v, depth + 1)) for v in inner), key=repr)}
    if tag in ("array", "tensor"):
        dtype = np.dtype(str(inner["dtype"])) if str(inner["dtype"]) in _DTYPES else None
        if dtype is None:
            raise ValueError(f"unsupported dtype {inner['dtype']!r}")
        shape = tuple(int(n) for n in inner["shape"])
        if math.prod(shape) > 50_000_000:
            raise ValueError("array too large")
        array = np.frombuffer(base64.b64decode(inner["data"]), dtype=dtype).reshape(shape)
        return Array(tag, array)
    if tag == "float":
        return float(inner)  # "nan", "inf", "-inf"
    if tag == "object":
        return Object(str(inner)[:200])
    raise ValueError(f"unknown tag {tag!r}")


_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"}


def _key(value):
    """Lists inside sets and dict keys (decoded tuples) stay hashable-looking for sorting."""
    return value


class Array:
    """An array or tensor the sandbox sent; ``kind`` tells which."""

    def __init__(self, kind, array):
        self.kind, self.array = kind, array

    def __eq__(self, other):
        return (isinstance(other, Array) and self.kind == other.kind and self.array.dtype == other.array.dtype
                and self.array.shape == other.array.shape and bool(np.array_equal(self.array, other.array,
                                                                                   equal_nan=True)))

    def __repr__(self):
        text = np.array2string(self.array, threshold=20, precision=6)
        return f"{self.kind}({text}, dtype={self.array.dtype})"


class Object:
    """An object that is not data (a module, a function): only its type is known."""

    def __init__(self, type_name):
        self.type_name = type_name

    def __eq__(self, other):
        return isinstance(other, Object) and other.type_name == self.type_name

    def __repr__(self):
        return f"<{self.type_name} object>"


def has_objects(value):
    if isinstance(value, Object):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_objects(v) for v in value)
    if isinstance(value, dict):
        return any(has_objects(v) for v in value.get("__dict__", value.get("__set__", [])))
    return False


def truthy(value):
    if isinstance(value, Array):
        if value.array.size != 1:
            return False  # "the truth value of an array with more than one element is ambiguous"
        return bool(value.array.reshape(()))
    if isinstance(value, dict):
        return bool(value.get("__dict__", value.get("__set__")))
    if isinstance(value, Object):
        return True
    return bool(value)


def _as_array(value):
    if isinstance(value, Array):
        return value.array
    return np.asarray(value, dtype=float)


def _compare(op, left, right):
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if op in ("is", "is not"):
        same = left is right if right in (None, True, False) else left == right
        return same if op == "is" else not same
    if op in ("in", "not in"):
        container = right.get("__dict__", right.get("__set__")) if isinstance(right, dict) else right
        if isinstance(right, dict) and "__dict__" in right:
            container = [k for k, _v in container]
        found = left in container if isinstance(container, (list, tuple, str)) else False
        return found if op == "in" else not found
    if isinstance(left, Array) or isinstance(right, Array):
        return bool(np.all({"<": np.less, "<=": np.less_equal, ">": np.greater,
                            ">=": np.greater_equal}[op](_as_array(left), _as_array(right))))
    return {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b}[op](left, right)


def exception_name(text):
    """The exception's class in ``TypeName: message`` if Python defines it; the student's own class names
    and messages are text the submission chose (see ``judge``)."""
    import builtins
    name = str(text).split(":", 1)[0].strip()
    return name if isinstance(getattr(builtins, name, None), type) and \
        issubclass(getattr(builtins, name), BaseException) else "an exception"


def judge(reference, student):
    """``(passed, why, hint)`` for one check: ``reference`` and ``student`` are the records of the two runs.

    Only the reference record says what the check is (its kind, its expected
    side); from the student's record the subject's value is taken, and the
    truth value the sandbox computed only where the reference says the check
    compares objects rather than data.  ``why`` is for the instructor and may
    quote what the student's process sent; ``hint``, for the student, never
    does: a value or a message the submission made may hold any text its
    sandbox could read.
    """
    ok, why, hint = _judge(reference, student)
    return ok, why, ("" if ok else hint or why)


def _judge(reference, student):
    kind = reference["kind"]
    if student is None:
        return False, "this check was not reached", None
    if student.get("error"):
        return False, str(student["error"]), f"raised {exception_name(student['error'])}"
    try:
        if kind == "raises":
            raised = student.get("raised")
            expected = [str(e) for e in reference.get("expected") or []]
            if not raised:
                return False, f"no exception was raised (expected {' or '.join(expected)})", None
            name = str(raised["mro"][0])
            if not set(raised["mro"]) & set(expected):
                return False, f"raised {name}, expected {' or '.join(expected)}", \
                    f"raised {exception_name(name)}, expected {' or '.join(expected)}"
            match = reference.get("match")
            if match and not re.search(match, str(raised.get("message", ""))):
                return False, f"the message of {name} does not match {match!r}", \
                    f"the message does not match {match!r}"
            return True, "", None
        subject = decode(student.get("subject"))
        if kind in ("truthy", "falsy"):
            ok = truthy(subject) == (kind == "truthy")
            return ok, "" if ok else f"{'false' if kind == 'truthy' else 'true'} where it should be " \
                                     f"{'true' if kind == 'truthy' else 'false'}", None
        expected = decode(reference.get("expected"))
        if kind in ("allclose", "equal"):
            a, b = _as_array(subject), _as_array(expected)
            if a.shape != b.shape:
                return False, f"shape {a.shape}, expected {b.shape}", f"the shape is not {b.shape}"
            if kind == "equal":
                ok = bool(np.array_equal(a, b))
            else:
                tolerances = {k: float(decode(v)) for k, v in (reference.get("options") or {}).items()}
                ok = bool(np.allclose(a, b, rtol=tolerances.get("rtol", 1e-5), atol=tolerances.get("atol", 1e-8)))
            return ok, "" if ok else "values differ from the expected ones", None
        op = kind.split(":", 1)[1]
        identity = op in ("is", "is not") and not (expected is None or isinstance(expected, bool))
        if identity or reference.get("unstable") or has_objects(decode(reference.get("subject"))) \
                or has_objects(expected):
            # objects, not data: the sandbox's own truth value, which must match the reference's
            ok = student.get("truth") is True and reference.get("truth") is True
            return ok, "" if ok else f"the comparison `{op}` is false", None
        ok = bool(_compare(op, subject, expected))
        return ok, "" if ok else f"got {brief(subject)}, expected {op} {brief(expected)}", \
            f"got a {type(subject).__name__} that is not {op} {brief(expected)}"
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
        return False, f"the value sent could not be compared ({type(err).__name__})", None


def brief(value, limit=120):
    """A short rendering of a value for the feedback (values are the student's: keep them short)."""
    text = repr(value)
    if isinstance(value, dict) and "__dict__" in value:
        text = "{" + ", ".join(f"{k!r}: {v!r}" for k, v in value["__dict__"]) + "}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
