"""The API reference (book/api/*.md), generated: every public name of nnref, none by hand.

A page of the reference holds headings and ``nnref-api`` directives, one a section::

    ```{eval-rst}
    .. nnref-api:: nnref.nn
       :group: linear
    ```

The directive writes the autodoc entries of every public name of that namespace in that
group (``public_names`` says which names are public: PyTorch's rule, ``__all__`` where a
module defines it, else the names without a leading underscore; ``group_of`` sorts them);
a class's entry lists every public method and property nnref defines for it
(``public_members``).  A name bound to an object that another name already documents (the
aliases ``nnref.clip``, ``nnref.random.manual_seed``, ...) gets a short entry that points
to the first one.  Each entry ends with the PyTorch file it mirrors, from its docstring or
from its module's (as ``show_source`` finds it).  tests/book/test_api_reference.py uses
the same functions: a public name without a docstring, or that no page documents, fails it.
"""
import importlib
import inspect
import re
from functools import lru_cache
from pathlib import Path

from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

# The namespaces the reference documents, in the order that picks, for an object reachable
# under several names, the one that gets the full entry.
NAMESPACES = (
    "nnref", "nnref.nn", "nnref.nn.functional", "nnref.nn.init", "nnref.autograd",
    "nnref.autograd.graph", "nnref.optim", "nnref.optim.lr_scheduler", "nnref.serialization",
    "nnref.autograd.function", "nnref.autograd.gradcheck",
    "nnref.random", "nnref.utils", "nnref.utils.data", "nnref.utils.hooks", "nnref.utils.checkpoint",
    "nnref.utils.safetensors", "nnref.accelerator", "nnref.cuda", "nnref.cuda.amp", "nnref.viz", "nnref.linalg",
    "nnref.compiler", "nnref.amp", "nnref.backends.cpu", "nnref.backends.cudnn", "nnref.backends.mps",
    "nnref.backends.mkldnn",
    "nnref.backends.cuda",
    "nnref.distributions", "nnref.testing", "nnref.autograd.functional",
    "nnref.nn.utils", "nnref.nn.utils.rnn", "nnref.nn.utils.parametrize", "nnref.nn.utils.parametrizations",
    "nnref.nn.parallel", "nnref.distributed", "nnref.utils.data.distributed",
)

PAGES = Path(__file__).resolve().parent.parent / "api"

# Namespaces that mirror no PyTorch file: their entries name none.
NOT_PYTORCH = {
    "nnref.viz": "the course's graph drawing (torchviz's role)",
    "nnref.utils.safetensors": "the safetensors package's ``safetensors.torch``",
}

# nnref's top-level names, sorted by the module that defines them (the first prefix wins).
_TOP_LEVEL = (
    ("nnref._random", "random"), ("nnref._ops.random", "random"),
    ("nnref._creation", "creation"), ("nnref._tensor_str", "tensor"), ("nnref.core._tensor_str", "tensor"), ("nnref.core._tensor", "tensor"),
    ("nnref.core._dtype", "dtype"), ("nnref._type_info", "dtype"), ("nnref._layout", "dtype"),
    ("nnref.core._device", "device"), ("nnref._device_extras", "device"),
    ("nnref._settings", "settings"), ("nnref.compiler", "compiler"), ("nnref.amp", "amp"), ("nnref.autograd", "grad_mode"),
    ("nnref.core.autograd", "grad_mode"), ("nnref.core._ops", "ops"),
    ("nnref.serialization", "serialization"), ("nnref._ops", "ops"), ("nnref.functional", "ops"),
    ("nnref._aten_aliases", "ops"),
    ("builtins", "dtype"),
)
_TOP_LEVEL_NAMES = {  # nnref's own small functions (nnref/__init__.py), and the random factories
    "is_tensor": "tensor", "numel": "tensor", "is_floating_point": "tensor",
    "is_inference": "tensor", "poisson": "random", "relu_": "ops", "result_type": "dtype", "scalar_tensor": "creation",
    "cosine_similarity": "ops", "pairwise_distance": "ops",  # nn.functional's, also at the top level
    **dict.fromkeys(["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool1d",
                     "max_pool1d", "max_pool2d", "adaptive_avg_pool1d", "prelu", "selu", "celu",
                     "threshold", "hardshrink", "pdist", "bilinear", "pixel_shuffle", "pixel_unshuffle",
                     "channel_shuffle", "layer_norm", "group_norm", "dropout"], "ops"),
    **dict.fromkeys(["rand", "rand_like", "randn", "randn_like", "randint", "randint_like",
                     "randperm", "normal"], "random"),
}

# What a name that is not a function or a class is (their entries' text).
DATA_DOCS = {
    "e": "Euler's number, a Python float (``torch.e`` is ``math.e`` too).",
    "pi": "π, a Python float (``torch.pi`` is ``math.pi`` too).",
    "inf": "Positive infinity, a Python float (``torch.inf`` is ``math.inf`` too).",
    "nan": "Not a number, a Python float (``torch.nan`` is ``math.nan`` too).",
    "strided": ("The layout of dense tensors, every tensor nnref makes (``torch.strided``, "
                "``torch/csrc/utils/tensor_layouts.cpp``): what ``Tensor.layout`` gives and "
                "``layout=`` accepts."),
    "contiguous_format": ("The row-major memory format (``torch.contiguous_format``, "
                          "``torch/csrc/utils/tensor_memoryformats.cpp``): every nnref tensor's, and "
                          "what ``memory_format=`` accepts."),
    "preserve_format": ("``memory_format=torch.preserve_format``: keep the input's format, which in nnref "
                        "is always the row-major one."),
    "channels_last": ("The NHWC memory format (``torch.channels_last``): nnref stores row-major only, so "
                      "asking for it raises ``NotImplementedError``."),
    "channels_last_3d": ("The NDHWC memory format (``torch.channels_last_3d``): refused with "
                         "``NotImplementedError``, as ``channels_last``."),
    "default_generator": ("The :class:`nnref.Generator` that the random functions use when "
                          "they are given none (``torch.default_generator``, "
                          "``torch/random.py``)."),
    "enabled": "A flag programs set; kept, and nnref's results do not depend on it.",
    "benchmark": ("``torch.backends.cudnn.benchmark``: kept as set; nnref uses no cuDNN, so nothing "
                  "is tuned."),
    "deterministic": ("``torch.backends.cudnn.deterministic``: kept as set; nnref's kernels are "
                      "deterministic anyway."),
    "allow_tf32": "``torch.backends.cudnn.allow_tf32``: kept as set; nnref never computes in TF32.",
    "matmul": ("``torch.backends.cuda.matmul``: its ``allow_tf32`` and reduced-precision flags, kept as "
               "set; nnref's GPU products stay in the tensors' precision."),
    "FORMAT_VERSION": "The version of nnref's checkpoint format that :func:`nnref.save` writes.",
    "MAX_NESTING": ("How deep the containers of a checkpoint may nest; :func:`nnref.load` refuses "
                    "a deeper file."),
    "MAX_MANIFEST_BYTES": ("The largest manifest (the JSON part of a checkpoint) that "
                           ":func:`nnref.load` reads."),
    "MAX_HASH_COLLISIONS": ("How many keys of a checkpoint's dicts may share a hash before "
                            ":func:`nnref.load` refuses the file (a guard against slow loads)."),
}


def public_names(module):
    """The public names of ``module`` (its submodules left out): ``__all__``, else ``dir()``
    without the names that start with an underscore, as PyTorch decides."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in dir(module) if not name.startswith("_")]
    return [name for name in names if not inspect.ismodule(getattr(module, name))]


def _defined_in_nnref(cls):
    return (getattr(cls, "__module__", "") or "").split(".")[0] == "nnref"


@lru_cache(maxsize=None)
def documented_classes():
    """Every public class, once (its reference entry documents the methods it defines)."""
    return {id(obj) for _, _, obj in walk() if inspect.isclass(obj)}


def _is_member(value):
    return inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))


def public_members(cls):
    """The public methods and properties nnref defines for ``cls``: its own, and those of its
    bases that are not documented on their own (``_ConvNd``'s for ``Conv2d``)."""
    names = []
    for base in cls.__mro__:
        if base is not cls and (not _defined_in_nnref(base) or id(base) in documented_classes()):
            continue
        for name, value in vars(base).items():
            if not name.startswith("_") and _is_member(value) and name not in names:
                names.append(name)
    return sorted(names)


@lru_cache(maxsize=None)
def walk():
    """Every (namespace, name, object) the reference documents, namespaces in order."""
    found = []
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        found.extend((namespace, name, getattr(module, name)) for name in public_names(module))
    return tuple(found)


def _kind(obj):
    if inspect.isclass(obj):
        return "class"
    return "function" if callable(obj) else "data"


def _is_own_name(name, obj):
    own = getattr(obj, "__name__", None) if _kind(obj) != "data" else str(obj).split(".")[-1]
    return name == own


@lru_cache(maxsize=None)
def _identity(obj):
    """What makes two names aliases: the same object, or wrappers of the same function (nnref
    wraps ``clip`` and ``clamp`` apart, so each refuses bad arguments under its own name)."""
    return id(inspect.unwrap(obj) if inspect.isfunction(obj) else obj)


def _canonical():
    """The full name whose entry documents each object (identity to name)."""
    first = {}
    for namespace, name, obj in walk():
        if _kind(obj) == "data" and not hasattr(obj, "is_floating_point"):
            continue  # numbers: equal values are not aliases
        key = _identity(obj)
        if key not in first or (_is_own_name(name, obj) and not _is_own_name(*first[key][1:])):
            first[key] = (f"{namespace}.{name}", name, obj)
    return {key: full for key, (full, _, _) in first.items()}


def canonical_name(namespace, name, obj):
    """The full name of the entry that documents ``obj`` (``namespace.name`` unless an alias)."""
    return _canonical().get(_identity(obj), f"{namespace}.{name}")


def group_of(namespace, name, obj):
    """The section of the reference that documents ``namespace.name``."""
    if namespace == "nnref":
        if name in _TOP_LEVEL_NAMES:
            return _TOP_LEVEL_NAMES[name]
        module = type(obj).__module__ if _kind(obj) == "data" else inspect.unwrap(obj).__module__
        for prefix, group in _TOP_LEVEL:
            if module == prefix or module.startswith(prefix + "."):
                return group
        return "unsorted"
    if namespace == "nnref.nn":
        return inspect.unwrap(obj).__module__.rsplit(".", 1)[-1]  # nnref.nn.modules.<file>
    return ""


def entries(namespace, group):
    """The names of ``namespace`` in ``group``: classes, then functions, then data."""
    order = {"class": 0, "function": 1, "data": 2}
    found = [(name, obj) for ns, name, obj in walk()
             if ns == namespace and group_of(ns, name, obj) == group]
    return sorted(found, key=lambda item: (order[_kind(item[1])], item[0].lower()))


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(*args, **kwargs)"


def rst_lines(namespace, group):
    """The reStructuredText the directive writes for ``namespace`` and ``group``."""
    lines = []
    for name, obj in entries(namespace, group):
        full = f"{namespace}.{name}"
        kind = _kind(obj)
        target = canonical_name(namespace, name, obj)
        if target != full:
            role = {"class": "class", "function": "func", "data": "data"}[kind]
            signature = _signature(obj) if kind == "function" else ""
            lines += [f".. py:{kind}:: {full}{signature}", "",
                      f"   Alias of :{role}:`{target}`.", ""]
        elif kind == "class":
            lines.append(f".. autoclass:: {full}")
            members = public_members(obj)
            if members:
                lines += [f"   :members: {', '.join(members)}", "   :undoc-members:"]
            lines.append("")
        elif kind == "function":
            lines += [f".. autofunction:: {full}", ""]
        else:
            text = DATA_DOCS.get(name)
            if text is None and hasattr(obj, "is_floating_point"):  # a dtype
                text = (f"The :class:`nnref.dtype` ``{obj}`` (``torch/_C/__init__.pyi``'s "
                        f"``{name}``).")
            lines += [f".. py:data:: {full}", "", f"   {text or ''}", ""]
    return lines


def documented_names(lines):
    """The full names that ``rst_lines`` output documents (entries and class members)."""
    names = []
    for line in lines:
        match = re.match(r"\.\. (?:auto|py:)(?:class|function|data):: ([\w.]+)", line)
        if match:
            current = match.group(1)
            names.append(current)
        match = re.match(r"   :members: (.*)", line)
        if match:
            names += [f"{current}.{member.strip()}" for member in match.group(1).split(",")]
    return names


def page_directives():
    """The (namespace, group) of every ``nnref-api`` directive on the reference's pages."""
    found = []
    for page in sorted(PAGES.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"^\.\. nnref-api:: (\S+)\n((?:   :\w+:.*\n)*)", text, re.M):
            group = re.search(r":group: *(\S*)", match.group(2))
            found.append((match.group(1), group.group(1) if group else ""))
    return found


# ----------------------------------------------------------------- sources ---

def pytorch_sources(obj):
    """The PyTorch files an object mirrors: those its docstring names, else the first one its
    module's docstring names (how ``show_source`` links a listing), and whether they come from
    the docstring itself."""
    from nnref._source import _unwrap, pytorch_files
    target = _unwrap(obj)
    own = pytorch_files(inspect.getdoc(obj) or inspect.getdoc(target))[0]
    if own:
        return own, True
    module = inspect.getmodule(target)
    return pytorch_files(getattr(module, "__doc__", "") or "")[0][:1], False


def _add_source(app, what, name, obj, options, lines):
    """An entry whose docstring names no PyTorch file ends with the one its module names."""
    if what not in {"function", "method", "class", "property", "exception"}:
        return
    target = obj.fget if isinstance(obj, property) else obj
    if not (getattr(target, "__module__", "") or "").startswith("nnref"):
        return
    from nnref._source import pytorch_url
    paths, own = pytorch_sources(obj)
    if paths and not own:
        links = ", ".join(f"`{path} <{pytorch_url(path)}>`__" for path in paths)
        lines += ["", f"PyTorch source: {links}."]


class NnrefApi(SphinxDirective):
    """``.. nnref-api:: NAMESPACE`` with ``:group: GROUP``: that group's entries."""

    required_arguments = 1
    option_spec = {"group": directives.unchanged}

    def run(self):
        lines = rst_lines(self.arguments[0], self.options.get("group", "") or "")
        if not lines:
            raise self.error(f"nnref-api: no public name of {self.arguments[0]} in group "
                             f"{self.options.get('group', '')!r}")
        source = f"<nnref-api {self.arguments[0]} {self.options.get('group', '')}>"
        content = StringList(lines, source=source)
        from docutils import nodes
        container = nodes.section()
        container.document = self.state.document
        self.state.nested_parse(content, self.content_offset, container)
        return container.children


def _forget_parse_documents(app, doctree):
    """Attach every node to the page's own document.

    A node that autodoc makes inside MyST's ``{eval-rst}`` keeps a reference to the
    short-lived document that block was parsed into, and through its settings to the whole
    build environment: pickled with the page, that made every reference page's doctree
    about 4 MB and its reading and writing the slowest steps of the build.  Without the
    reference a node finds its document through its parent, as docutils intends.
    """
    for node in doctree.findall(include_self=False):
        if vars(node).get("_document") not in (None, doctree):
            node._document = None


def setup(app):
    app.add_directive("nnref-api", NnrefApi)
    app.connect("autodoc-process-docstring", _add_source)
    app.connect("doctree-read", _forget_parse_documents)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
