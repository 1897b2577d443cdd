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
from collections import OrderedDict

import numpy as np

from . import parsing

PROBE = "__probe__"
RAISES = "__raises__"
OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
       ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


# -- rewriting the instructor's code -----------------------------------------------------------------
# What the grader evaluates itself, on the data the sandbox sends: a check's *skeleton*, made of these
# calls, methods and operators; every other sub-expression is a *leaf*, whose value the sandbox sends.
# A builtin or a numpy function the submission patched in its process is never called for a verdict.
CALLS = {"any", "all", "len", "isinstance", "abs", "max", "min", "sum", "sorted", "set", "list", "tuple",
         "id", "round", "bool"}
ITERATING = {"any", "all", "len", "max", "min", "sum", "sorted", "set", "list", "tuple"}  # first argument
ARRAY_CALLS = {"allclose": "allclose", "isclose": "isclose", "array_equal": "equal", "equal": "equal"}
ARRAY_MODULES = {"np", "numpy", "torch"}
ARRAY_KEYWORDS = {"rtol", "atol", "equal_nan"}
METHODS = {"item", "all", "any", "abs", "max", "min", "sum", "tolist"}  # of a tensor or an array, no arguments
BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
          ast.Pow: "**"}


def _lambda(node):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                      body=node)


def _constant(node):
    return isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, int, str) or (
        type(node.value) is float and math.isfinite(node.value)))


class _Skeleton:
    """Splits an expression into its skeleton (evaluated by the grader) and its leaves (sent by the sandbox).

    ``tag`` names the leaves in the skeleton: ``leaf`` (the subject's side) or
    ``xleaf`` (the expected side, whose values come from the reference run).
    Each leaf has a *spec*: ``"v"`` its value, ``"i"`` its items (an iterator
    is sent as the list of what it yields), or ``["c", SPECS]`` for a
    comprehension: the sandbox runs the comprehension's loops and sends, per
    iteration, the leaves of its element; the grader evaluates the element.
    """

    def __init__(self, tag="leaf"):
        self.tag, self.leaves = tag, []

    def leaf(self, node, spec="v"):
        self.leaves.append((node, spec))
        return [self.tag, len(self.leaves) - 1]

    def build(self, node, spec="v"):
        if _constant(node):
            return ["const", node.value]
        if isinstance(node, ast.BoolOp):
            return ["and" if isinstance(node.op, ast.And) else "or", [self.build(v) for v in node.values]]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
            return [{ast.Not: "not", ast.USub: "neg", ast.UAdd: "pos"}[type(node.op)], self.build(node.operand)]
        if isinstance(node, ast.Compare):
            operands = [self.build(n) for n in [node.left, *node.comparators]]
            parts = [["cmp", OPS[type(op)], operands[k], operands[k + 1]] for k, op in enumerate(node.ops)]
            return parts[0] if len(parts) == 1 else ["and", parts]
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
            return ["bin", BINARY[type(node.op)], self.build(node.left), self.build(node.right)]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return [type(node).__name__.lower(), [self.build(e) for e in node.elts]]
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            inner = _Skeleton()
            element = inner.build(node.elt)
            rows = ast.ListComp(elt=ast.Tuple([n for n, _ in inner.leaves], ast.Load()), generators=node.generators)
            return ["comp", "set" if isinstance(node, ast.SetComp) else "list",
                    self.leaf(rows, ["c", [s for _, s in inner.leaves]]), element]
        if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args) \
                and all(k.arg is not None for k in node.keywords):
            function = node.func
            if isinstance(function, ast.Name) and function.id in CALLS and not node.keywords:
                return ["call", function.id, [self.build(a, "i" if k == 0 and function.id in ITERATING else "v")
                                              for k, a in enumerate(node.args)], {}]
            if (isinstance(function, ast.Attribute) and function.attr in ARRAY_CALLS
                    and isinstance(function.value, ast.Name) and function.value.id in ARRAY_MODULES
                    and {k.arg for k in node.keywords} <= ARRAY_KEYWORDS):
                return ["call", ARRAY_CALLS[function.attr], [self.build(a) for a in node.args],
                        {k.arg: self.build(k.value) for k in node.keywords}]
            if isinstance(function, ast.Attribute) and function.attr in METHODS and not node.args \
                    and not node.keywords:
                return ["method", function.attr, self.build(function.value)]
        return self.leaf(node, spec)


def _plan(test):
    """``(skeleton, leaves, expected leaves)`` of one check: the expected side is the right of a comparison,
    or the second argument of ``allclose`` and its kin."""
    subject, expected = _Skeleton("leaf"), _Skeleton("xleaf")
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        skeleton = ["cmp", OPS[type(test.ops[0])], subject.build(test.left), expected.build(test.comparators[0])]
    elif (isinstance(test, ast.Call) and len(test.args) >= 2 and isinstance(test.func, ast.Attribute)
          and test.func.attr in ARRAY_CALLS and isinstance(test.func.value, ast.Name)
          and test.func.value.id in ARRAY_MODULES and {k.arg for k in test.keywords} <= ARRAY_KEYWORDS
          and not any(isinstance(a, ast.Starred) for a in test.args)):
        skeleton = ["call", ARRAY_CALLS[test.func.attr],
                    [subject.build(test.args[0]), expected.build(test.args[1]),
                     *[subject.build(a) for a in test.args[2:]]],
                    {k.arg: subject.build(k.value) for k in test.keywords}]
    else:
        skeleton = subject.build(test)
    return skeleton, subject.leaves, expected.leaves


def _probe_call(check_id, leaves, expected):
    def listed(pairs):
        return [ast.List([_lambda(n) for n, _ in pairs], ast.Load()),
                parsing.parse(repr([s for _, s in pairs])).body[0].value]
    call = ast.Call(func=ast.Name(PROBE, ast.Load()), args=[ast.Constant(check_id), *listed(leaves),
                                                           *listed(expected)], keywords=[])
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


def _probe_for(check_id, test, keep, skeletons):
    """The probe for one check; ``keep(check_id)``: whether the expected side runs here too."""
    skeleton, leaves, expected = _plan(test)
    if skeletons is not None:
        skeletons[check_id] = skeleton
    return _probe_call(check_id, leaves, expected if keep(check_id) else [])


class _Rewrite(ast.NodeTransformer):
    def __init__(self, prefix="", lines=None, keep=None, skeletons=None):
        self.prefix = prefix
        self.lines = lines  # only asserts starting on these lines (None: all)
        self.keep = keep or (lambda check_id: True)
        self.skeletons = skeletons  # filled: check id -> skeleton

    def visit_Assert(self, node):
        if self.lines is not None and node.lineno not in self.lines:
            return node
        probes = [_probe_for(f"{self.prefix}{node.lineno}.{k}", part, self.keep, self.skeletons)
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


def keep_for_student(both_sides_ids):
    """For the student's run: the expected side only of the checks in ``both_sides_ids``.

    The student's process never holds the expected value of a data check
    (a literal, a hidden input's answer): it cannot send it back as its own.
    """
    both_sides_ids = set(both_sides_ids)
    return lambda check_id: check_id in both_sides_ids


def both_sides_ids(reference_records, skeletons):
    """The checks judged on both sides of the student's run, from what the reference run sent.

    Those whose values hold objects that are not data (modules, classes: known
    by type and identity), identity tests (``is``, ``in``), and those whose
    values differ between two runs of the reference (``unstable``: a time, a
    random draw): the student's objects are compared with the student's
    objects, by the grader, and must be shared as the reference's are.
    """
    ids = set()
    for record in reference_records:
        if record.get("r") != "check" or "leaves" not in record:
            continue
        check_id = str(record.get("id"))
        skeleton = skeletons.get(check_id)
        try:
            values = decode(record.get("leaves")) + decode(record.get("expected") or [])
        except ValueError:
            values = None
        if record.get("unstable") or values is None or has_objects(values) or (
                skeleton and skeleton[0] == "cmp" and skeleton[1] in ("is", "is not", "in", "not in")
                and skeleton[3][0] != "const"):
            ids.add(check_id)
    return ids


def rewrite(source, filename="<checks>", prefix="", lines=None, keep=None, skeletons=None):
    """``source`` with its asserts (those starting on ``lines``, if given) turned into probes.

    ``skeletons``, a dict, receives each check's skeleton (what the grader evaluates).
    """
    tree = _Rewrite(prefix, lines, keep, skeletons).visit(parsing.parse(source, filename))
    return ast.unparse(ast.fix_missing_locations(tree))


def rewrite_lines(source, lines, prefix="", keep=None, skeletons=None):
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
               for p in _Rewrite(prefix, keep=keep, skeletons=skeletons).visit_Assert(node)]
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
_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"}


def decode(value, depth=0):
    """A value sent by a sandbox (JSON) as Python data; never code, never pickle."""
    if depth > 50:
        raise ValueError("data nested too deeply")
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if not isinstance(value, dict):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2 ** 63:
            raise ValueError("integer too large")  # the runner sends larger ones as floats
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise ValueError("malformed value")
    if len(value) != 1:
        raise ValueError("malformed value")
    (tag, inner), = value.items()
    if tag == "tuple":
        return tuple(decode(_list(inner), depth + 1))
    if tag in ("dict", "odict"):
        pairs = [(_hashable(decode(k, depth + 1)), decode(v, depth + 1)) for k, v in _pairs(inner)]
        return OrderedDict(pairs) if tag == "odict" else dict(pairs)
    if tag == "set":
        return {_hashable(decode(v, depth + 1)) for v in _list(inner)}
    if tag in ("array", "tensor"):
        if not isinstance(inner, dict) or str(inner.get("dtype")) not in _DTYPES:
            raise ValueError("unsupported array")
        shape = tuple(int(n) for n in _list(inner.get("shape")))
        if math.prod(shape) > 50_000_000 or any(n < 0 for n in shape):
            raise ValueError("array too large")
        array = np.frombuffer(base64.b64decode(str(inner.get("data"))), dtype=np.dtype(inner["dtype"]))
        return Array(tag, array.reshape(shape), _ident(inner), _names(inner.get("mro")))
    if tag == "float":
        return float(str(inner))  # "nan", "inf", "-inf"
    if tag in ("object", "class"):
        if not isinstance(inner, dict):
            raise ValueError("malformed object")
        return (Object if tag == "object" else Class)(_names(inner.get("mro")), _ident(inner))
    if tag == "raised":
        return Raised(str(inner)[:500])
    raise ValueError(f"unknown tag {tag!r}")


def _list(value):
    if not isinstance(value, list):
        raise ValueError("malformed value")
    return value


def _pairs(value):
    if not all(isinstance(p, list) and len(p) == 2 for p in _list(value)):
        raise ValueError("malformed value")
    return value


def _names(value):
    names = [str(n)[:200] for n in _list(value or [])][:64]
    return tuple(names) or ("builtins.object",)


def _ident(inner):
    ident = inner.get("id")
    if ident is not None and (not isinstance(ident, int) or isinstance(ident, bool)):
        raise ValueError("malformed identity")
    return ident


def _hashable(value):
    """Dict keys and set members as the sandbox had them: lists inside them (decoded tuples) made hashable."""
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, (dict, set)):
        raise ValueError("unhashable key")
    return value


class Raised:
    """A leaf whose evaluation raised in the sandbox: using it fails the check (``TypeName: message``)."""

    def __init__(self, text):
        self.text = text


class _Identified:
    """Something the sandbox knows by identity: ``ident`` is its ``id()`` there (None: not sent)."""

    ident = None

    def same(self, other):
        return isinstance(other, _Identified) and self.ident is not None and self.ident == other.ident

    def __hash__(self):
        return hash(("ident", self.ident))


class Array(_Identified):
    """An array or tensor the sandbox sent; ``kind`` tells which.  ``==`` is equality of the whole."""

    def __init__(self, kind, array, ident=None, mro=("builtins.object",)):
        self.kind, self.array, self.ident, self.mro = kind, array, ident, mro

    def __eq__(self, other):
        return (isinstance(other, Array) and self.kind == other.kind and self.array.dtype == other.array.dtype
                and self.array.shape == other.array.shape and bool(np.array_equal(self.array, other.array,
                                                                                   equal_nan=True)))

    __hash__ = _Identified.__hash__

    def _order(self, other, op):
        return bool(np.all(op(self.array, _as_array(other))))

    def __lt__(self, other):
        return self._order(other, np.less)

    def __le__(self, other):
        return self._order(other, np.less_equal)

    def __gt__(self, other):
        return self._order(other, np.greater)

    def __ge__(self, other):
        return self._order(other, np.greater_equal)

    def __bool__(self):
        if self.array.size != 1:
            raise ValueError("the truth value of a tensor with more than one value is ambiguous")
        return bool(self.array.reshape(()))

    def __len__(self):
        if not self.array.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __iter__(self):
        return iter(_wrap(self.kind, row) for row in self.array)

    def __abs__(self):
        return _wrap(self.kind, np.abs(self.array))

    def __neg__(self):
        return _wrap(self.kind, -self.array)

    def __repr__(self):
        text = np.array2string(self.array, threshold=20, precision=6)
        return f"{self.kind}({text}, dtype={self.array.dtype})"


def _wrap(kind, result):
    return Array(kind, np.asarray(result))


class Object(_Identified):
    """An object that is not data (a module, a function): its type's MRO, and its identity."""

    def __init__(self, mro, ident=None):
        self.mro, self.ident = mro, ident
        self.type_name = mro[0]

    def __eq__(self, other):
        return self.same(other)

    __hash__ = _Identified.__hash__

    def __repr__(self):
        return f"<{self.type_name} object>"


class Class(_Identified):
    """A class: its MRO (``isinstance`` is judged by name, here)."""

    def __init__(self, mro, ident=None):
        self.mro, self.ident = mro, ident

    def __eq__(self, other):
        return isinstance(other, Class) and other.mro[0] == self.mro[0]

    __hash__ = _Identified.__hash__

    def __repr__(self):
        return f"<class {self.mro[0]}>"


def has_objects(value):
    if isinstance(value, (Object, Class)):
        return True
    if isinstance(value, (list, tuple, set)):
        return any(has_objects(v) for v in value)
    if isinstance(value, dict):
        return any(has_objects(k) or has_objects(v) for k, v in value.items())
    return False


def sharing(values):
    """Which of the values' objects are the same object, as data: each identity numbered by first appearance.

    A set's order is its objects' addresses, which differ from run to run: a
    set counts as the numbers of the members met outside sets, plus how many others it holds.
    """
    seen, sets = {}, []

    def walk(value):
        if isinstance(value, _Identified) and value.ident is not None:
            seen.setdefault(value.ident, len(seen))
        if isinstance(value, set):
            sets.append(value)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
    walk(values)
    pattern = [seen[v.ident] for v in _walk(values) if isinstance(v, _Identified) and v.ident in seen]
    for members in sets:
        known = sorted(seen[v.ident] for v in members if isinstance(v, _Identified) and v.ident in seen)
        pattern.append((known, len(members) - len(known)))
    return pattern


def _walk(value):
    """Every value inside ``value``, sets left out (see ``sharing``)."""
    yield value
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(k)
            yield from _walk(v)


def truthy(value):
    if isinstance(value, Raised):
        raise Failure(value.text)
    return bool(value)


def _as_array(value):
    if isinstance(value, Array):
        return value.array
    if isinstance(value, (Object, Class, Raised)) or has_objects(value):
        raise TypeError("not numbers")
    return np.asarray(value)


# -- the grader evaluates the skeleton ---------------------------------------------------------------
class Failure(Exception):
    """A leaf the check needs raised in the sandbox."""


def _mro_of(value):
    if isinstance(value, (Object, Array)):
        return value.mro
    if isinstance(value, Class):
        return ("builtins.type", "builtins.object")
    return tuple(f"{c.__module__}.{c.__qualname__}" for c in type(value).__mro__)


def _isinstance(value, classes):
    classes = classes if isinstance(classes, tuple) else (classes,)
    if not all(isinstance(c, Class) for c in classes):
        raise TypeError("isinstance() arg 2 must be a class")
    return any(c.mro[0] in _mro_of(value) for c in classes)


def _id(value):
    if not isinstance(value, _Identified) or value.ident is None:
        raise TypeError("no identity was sent for this value")
    return value.ident


def _tolerances(options):
    return {"rtol": float(options.get("rtol", 1e-5)), "atol": float(options.get("atol", 1e-8)),
            "equal_nan": bool(options.get("equal_nan", False))}


def _allclose(a, b, **options):
    return bool(np.allclose(*_arrays(a, b), **_tolerances(options)))


FUNCTIONS = {
    "any": lambda it: any(truthy(v) for v in it), "all": lambda it: all(truthy(v) for v in it),
    "len": len, "isinstance": _isinstance, "abs": abs, "max": max, "min": min, "sum": sum, "sorted": sorted,
    "set": lambda it=(): {_hashable(v) for v in it}, "list": list, "tuple": tuple, "id": _id, "round": round,
    "bool": truthy,
    "allclose": _allclose,
    "isclose": lambda a, b, **o: _wrap("array", np.isclose(_as_array(a), _as_array(b), **_tolerances(o))),
    "equal": lambda a, b: (lambda x, y: x.shape == y.shape and bool(np.array_equal(x, y)))(_as_array(a),
                                                                                           _as_array(b)),
}


def _method(name, value):
    if not isinstance(value, Array):
        raise TypeError(f".{name}() of a value that is not a tensor")
    array = value.array
    if name == "item":
        if array.size != 1:
            raise ValueError("only a one-element tensor can be converted to a Python scalar")
        return array.reshape(()).item()
    if name == "tolist":
        return array.tolist()
    return _wrap(value.kind, {"all": np.all, "any": np.any, "abs": np.abs, "max": np.max, "min": np.min,
                              "sum": np.sum}[name](array))


def _arrays(left, right):
    """Both sides as arrays, if what they broadcast to is of a bounded size (the grader's memory is bounded too)."""
    a, b = _as_array(left), _as_array(right)
    if math.prod(np.broadcast_shapes(a.shape, b.shape)) > 50_000_000:
        raise ValueError("arrays too large")
    return a, b


def _binary(op, left, right):
    if isinstance(left, Array) or isinstance(right, Array):
        kind = left.kind if isinstance(left, Array) else right.kind
        a, b = _arrays(left, right)
        return _wrap(kind, {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
                            "//": np.floor_divide, "%": np.mod, "**": np.power}[op](a, b))
    if isinstance(left, (Object, Class)) or isinstance(right, (Object, Class)):
        raise TypeError("arithmetic on objects")
    if op == "**" and (not isinstance(right, (int, float)) or abs(right) > 10_000
                       or (isinstance(left, int) and abs(left) > 2 ** 64)):
        raise ValueError("power too large")  # the grader's time is bounded too
    return {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
            "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
            "**": lambda a, b: a ** b}[op](left, right)


def _compare(op, left, right, elementwise):
    """``left op right`` on data.  Nested in an expression, tensors compare element by element (as in
    PyTorch); at the top of a check, ``==`` of two tensors is the equality of the whole."""
    if op in ("is", "is not"):
        if isinstance(left, _Identified) or isinstance(right, _Identified):
            same = isinstance(left, _Identified) and left.same(right)
        elif right is None or isinstance(right, bool) or left is None or isinstance(left, bool):
            same = left is right
        else:
            same = type(left) is type(right) and left == right
        return same if op == "is" else not same
    if op in ("in", "not in"):
        if isinstance(right, Array):
            found = bool(np.any(_as_array(left) == right.array))
        elif isinstance(left, _Identified):
            found = any(isinstance(v, _Identified) and left.same(v) for v in right)
        else:
            found = left in right
        return found if op == "in" else not found
    if elementwise and (isinstance(left, Array) or isinstance(right, Array)):
        kind = left.kind if isinstance(left, Array) else right.kind
        return _wrap(kind, {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
                            ">": np.greater, ">=": np.greater_equal}[op](*_arrays(left, right)))
    return {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}[op](left, right)


def evaluate(node, leaves, xleaves, top=True):
    """The value of a skeleton on the leaves' values: the grader's builtins and numpy, never the sandbox's."""
    tag = node[0]
    if tag in ("leaf", "xleaf"):
        value = (leaves if tag == "leaf" else xleaves)[node[1]]
        if isinstance(value, Raised):
            raise Failure(value.text)
        return value
    if tag == "const":
        return node[1]
    if tag in ("and", "or"):
        result = None
        for part in node[1]:
            result = evaluate(part, leaves, xleaves, False)
            if truthy(result) != (tag == "and"):
                return result
        return result
    if tag == "not":
        return not truthy(evaluate(node[1], leaves, xleaves, False))
    if tag in ("neg", "pos"):
        value = evaluate(node[1], leaves, xleaves, False)
        if isinstance(value, (Object, Class, str)):
            raise TypeError("bad operand for unary -")
        return -value if tag == "neg" else value
    if tag == "cmp":
        return _compare(node[1], evaluate(node[2], leaves, xleaves, False),
                        evaluate(node[3], leaves, xleaves, False), elementwise=not top)
    if tag == "bin":
        return _binary(node[1], evaluate(node[2], leaves, xleaves, False),
                       evaluate(node[3], leaves, xleaves, False))
    if tag in ("tuple", "list", "set"):
        items = [evaluate(n, leaves, xleaves, False) for n in node[1]]
        return tuple(items) if tag == "tuple" else {_hashable(v) for v in items} if tag == "set" else items
    if tag == "call":
        args = [evaluate(n, leaves, xleaves, False) for n in node[2]]
        keywords = {k: evaluate(n, leaves, xleaves, False) for k, n in node[3].items()}
        return FUNCTIONS[node[1]](*args, **keywords)
    if tag == "method":
        return _method(node[1], evaluate(node[2], leaves, xleaves, False))
    if tag == "comp":
        rows = evaluate(node[2], leaves, xleaves, False)
        if not isinstance(rows, list) or not all(isinstance(r, (list, tuple)) for r in rows):
            raise ValueError("malformed rows")
        values = [evaluate(node[3], list(row), [], False) for row in rows]
        return {_hashable(v) for v in values} if node[1] == "set" else values
    raise ValueError(f"unknown skeleton node {tag!r}")


def exception_name(text):
    """The exception's class in ``TypeName: message`` if Python defines it; the student's own class names
    and messages are text the submission chose (see ``judge``)."""
    import builtins
    name = str(text).split(":", 1)[0].strip()
    return name if isinstance(getattr(builtins, name, None), type) and \
        issubclass(getattr(builtins, name), BaseException) else "an exception"


def judge(skeleton, reference, student, both=False):
    """``(passed, why, hint)`` for one check: ``reference`` and ``student`` are the records of the two runs.

    ``skeleton`` (from the instructor's source, never from a sandbox) says what
    the check computes; the grader evaluates it on the values of its leaves:
    the subject's from the student's run, the expected side's from the
    reference run; with ``both`` (the grader's choice, :func:`both_sides_ids`),
    from the student's run too, and then the objects must be shared as the
    reference's are.  ``why`` is for the instructor and may quote what the
    student's process sent; ``hint``, for the student, never does: a value or
    a message the submission made may hold any text its sandbox could read.
    """
    ok, why, hint = _judge(skeleton, reference, student, both)
    return ok, why, ("" if ok else hint or why)


def _judge(skeleton, reference, student, both):
    if student is None:
        return False, "this check was not reached", None
    if student.get("error"):
        return False, str(student["error"]), f"raised {exception_name(student['error'])}"
    try:
        if reference.get("kind") == "raises":
            return _judge_raises(reference, student)
        if skeleton is None:
            raise ValueError("no such check")
        leaves = decode(student.get("leaves"))
        expected = decode((student if both else reference).get("expected") or [])
        reference_values = decode(reference.get("leaves")) + decode(reference.get("expected") or [])
        try:
            result = evaluate(skeleton, leaves, expected)
            ok = truthy(result)
        except Failure as err:
            return False, str(err), f"raised {exception_name(str(err))}"
        if ok and both and \
                sharing(leaves + list(expected)) != sharing(reference_values):
            return False, "the objects are not the same objects as in the reference run", \
                "the objects are not the same objects as expected (`is`)"
        if ok:
            return True, "", None
        if skeleton[0] == "cmp" and not both:
            left = evaluate(skeleton[2], leaves, expected)
            right = evaluate(skeleton[3], leaves, expected)
            return False, f"got {brief(left)}, expected {skeleton[1]} {brief(right)}", \
                f"got a {type(left).__name__} that is not {skeleton[1]} {brief(right)}"
        return False, "the check is false", None
    except (Failure, ValueError, TypeError, KeyError, AttributeError, IndexError, ZeroDivisionError,
            OverflowError, RecursionError, MemoryError) as err:
        return False, f"the value sent could not be compared ({type(err).__name__}: {str(err)[:200]})", \
            "the value could not be compared"


def _judge_raises(reference, student):
    raised = student.get("raised")
    expected = [str(e) for e in reference.get("expected") or []]
    if not raised:
        return False, f"no exception was raised (expected {' or '.join(expected)})", None
    name = str(raised["mro"][0])
    if not set(map(str, raised["mro"])) & set(expected):
        return False, f"raised {name}, expected {' or '.join(expected)}", \
            f"raised {exception_name(name)}, expected {' or '.join(expected)}"
    match = reference.get("match")
    if match and not re.search(match, str(raised.get("message", ""))):
        return False, f"the message of {name} does not match {match!r}", f"the message does not match {match!r}"
    return True, "", None


def brief(value, limit=120):
    """A short rendering of a value for the feedback (values are the student's: keep them short)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
