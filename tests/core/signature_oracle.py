"""PyTorch's accepted call forms, read from PyTorch itself, tried on nnref.

For every public callable that nnref shares with PyTorch (``torch.*``, ``torch.nn.functional.*``,
``torch.linalg.*``, ``torch.special.*``, ``Tensor`` methods and ``torch.nn`` module constructors) this
module reads PyTorch's signatures:

- a Python function's (``inspect.signature``: ``F.softmax``, ``torch.stft``, ``nn.Linear.__init__`` ...);
- a C++-bound function's from the ATen operator schemas the Python argument parser is generated
  from (``torch._C._jit_get_schemas_for_operator``: every overload, with its keyword-only ``*`` marker
  and its defaults; ``self`` is called ``input`` in the ``torch`` namespace and is bound for methods);
- the rest's from the lambdas ``torch.overrides.get_testing_overrides()`` gives for each overridable
  function (``Tensor.float``, ``torch.can_cast`` ...).

It then makes small valid arguments for each parameter from its name and type, and builds the call
forms PyTorch's signature allows: the required parameters by position, then each by keyword from
the right, then each optional parameter alone by keyword and (where it is not keyword-only) by
position after the ones before it. Every form is run on PyTorch and on nnref with the same inputs and
the same seed, and the outcomes are compared: the result's values, dtype and shape, or the exception
type. PyTorch decides which forms are valid; a form PyTorch refuses must be refused by nnref too.

It also makes the forms PyTorch's signatures leave out (``refused_forms``), so that nnref cannot
accept more than PyTorch does: each keyword name nnref's own signature has and none of PyTorch's
signatures has (``Tensor.uniform_(a=0.)``: PyTorch raises ``TypeError``; labels end in ``[name not in
PyTorch's signature]``), and each of PyTorch's keyword-only parameters passed by position after all
the positional ones (``F.gelu(x, 'tanh')``; ``[keyword-only by position]``). PyTorch's outcome is
compared as for any form: it refuses nearly all of them.

``python tests/core/signature_oracle.py`` prints the coverage (callables, forms, skipped and why).
"""
import inspect
import math
import warnings

import numpy as np

import nnref

try:
    import torch
except ImportError:  # the test module skips; the helper stays importable
    torch = None

# --- which callables ---------------------------------------------------------------------------------

# Callables nnref shares with PyTorch that are not functions of tensors, or whose arguments cannot be
# made from a name and a type: each with the reason it is not called here.
SKIPPED = {
    # global state, threads, printing, and the library's own machinery
    "torch.set_default_dtype": "changes global state", "torch.set_default_device": "changes global state",
    "torch.set_grad_enabled": "a context manager/global switch", "torch.set_printoptions": "global printing state",
    "torch.manual_seed": "seeds the global generator (used by every random case here)",
    "torch.seed": "reseeds the global generator from the clock", "torch.initial_seed": "reads the clock seed",
    "torch.set_rng_state": "global generator state", "torch.get_rng_state": "global generator state",
    "torch.set_num_threads": "process-wide threads", "torch.set_num_interop_threads": "process-wide threads",
    "torch.set_anomaly_enabled": "global switch", "torch.set_deterministic_debug_mode": "global switch",
    "torch.use_deterministic_algorithms": "global switch", "torch.set_float32_matmul_precision": "global switch",
    "torch.set_warn_always": "global switch", "torch.compile": "a compiler entry point",
    "torch.load": "reads files (tested by the serialization tests)", "torch.save": "writes files",
    "torch.from_numpy": "takes a numpy array (tested in test_vs_torch)",
    "torch.Tensor.numpy": "returns a numpy array (tested in test_vs_torch)",
    "torch.Tensor.tolist": "returns lists (tested in test_vs_torch)",
    "torch.Tensor.backward": "autograd (tested in the gradient tests)",
    "torch.Tensor.register_hook": "autograd hooks (tested in the hook tests)",
    "torch.Tensor.register_post_accumulate_grad_hook": "autograd hooks (tested in the hook tests)",
    "torch.Tensor.cuda": "needs a GPU (tested on the device machine)",
    "torch.Tensor.pin_memory": "needs an accelerator (tested on the device machine)",
    "torch.Tensor.retain_grad": "autograd (tested in the gradient tests)",
    "torch.Tensor.where": "torch.overrides documents it as where(condition, y), PyTorch's method is "
                          "where(condition, other): no signature to trust (torch.where is called here)",
}

# Forms where nnref deliberately differs from PyTorch, each with its reason (the Differences page):
# the test checks they still differ, so an entry cannot outlive its reason.
_MHA_BIAS_KV = "nnref's MultiheadAttention has no bias_k/bias_v (add_bias_kv): NotImplementedError"
_MHA_ZERO = "nnref's MultiheadAttention has no zero-attention row (add_zero_attn): NotImplementedError"
_SPARSE = "no sparse gradients in nnref (sparse=True): NotImplementedError"
_TO_BOOL = ("PyTorch's parser reads a lone positional bool as the dtype torch.bool (x.to(True) converts "
            "to bool); nnref reads it as non_blocking and returns x")
_UNIQUE = ("PyTorch's boolean dispatch (torch/functional.py) reads a positional return_inverse=True as "
           "return_counts and returns an empty tensor; nnref returns the inverse, as both do for the keyword")
_GELSY = ("an rcond that drops singular values: PyTorch's gelsy picks the rank by a rank-revealing QR, nnref "
          "would truncate singular values instead, so it raises NotImplementedError")
KNOWN = {
    ("torch.linalg.lstsq", "lstsq(input, b, rcond=)"): _GELSY, ("torch.linalg.lstsq", "lstsq(input, b, rcond)"): _GELSY,
    ("torch.nn.MultiheadAttention", "MultiheadAttention(embed_dim, num_heads, add_bias_kv=)"): _MHA_BIAS_KV,
    ("torch.nn.MultiheadAttention", "MultiheadAttention(embed_dim, num_heads, dropout, bias, add_bias_kv)"):
        _MHA_BIAS_KV,
    ("torch.nn.MultiheadAttention", "MultiheadAttention(embed_dim, num_heads, add_zero_attn=)"): _MHA_ZERO,
    ("torch.nn.MultiheadAttention",
     "MultiheadAttention(embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn)"): _MHA_ZERO,
    ("torch.nn.functional.embedding", "embedding(input, weight, sparse=)"): _SPARSE,
    ("torch.nn.functional.embedding",
     "embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)"): _SPARSE,
    ("torch.nn.functional.scaled_dot_product_attention",
     "scaled_dot_product_attention(query, key, value, enable_gqa=)"):
        "grouped-query attention (enable_gqa=True) is not in nnref: NotImplementedError",
    ("torch.Tensor.to", "to(non_blocking)"): _TO_BOOL, ("torch.Tensor.to", "to(non_blocking, copy)"): _TO_BOOL,
    ("torch.unique_consecutive", "unique_consecutive(input, return_inverse)"): _UNIQUE,
    ("torch.unique_consecutive", "unique_consecutive(input, return_inverse, return_counts)"): _UNIQUE,
}


def known_difference(qualname, form):
    """The reason ``form`` of ``qualname`` differs from PyTorch on purpose, or None."""
    return KNOWN.get((qualname, form.label))


def shared_callables():
    """(qualified name, PyTorch callable, nnref callable) for every public callable both libraries have."""
    import torch.nn.functional  # noqa: F401  (namespaces imported by name below)
    import torch.linalg  # noqa: F401
    import torch.special  # noqa: F401
    out = []
    spaces = [("torch", torch, nnref), ("torch.nn.functional", torch.nn.functional, nnref.nn.functional),
              ("torch.linalg", torch.linalg, getattr(nnref, "linalg", None)),
              ("torch.special", torch.special, getattr(nnref, "special", None))]
    for prefix, tmod, nmod in spaces:
        if nmod is None:
            continue
        for name in sorted(dir(tmod)):
            if name.startswith("_") or not hasattr(nmod, name):
                continue
            tfn, nfn = getattr(tmod, name), getattr(nmod, name)
            if inspect.isclass(tfn) or inspect.ismodule(tfn) or not callable(tfn) or not callable(nfn):
                continue
            out.append((f"{prefix}.{name}", tfn, nfn))
    for name in sorted(dir(torch.Tensor)):
        if name.startswith("_") or not hasattr(nnref.Tensor, name):
            continue
        tfn = inspect.getattr_static(torch.Tensor, name)
        if isinstance(tfn, (property, type(torch.Tensor.grad))) or not callable(getattr(torch.Tensor, name)):
            continue  # attributes (shape, grad, T ...) are not called
        out.append((f"torch.Tensor.{name}", getattr(torch.Tensor, name), getattr(nnref.Tensor, name)))
    for name in sorted(dir(torch.nn)):
        tcls, ncls = getattr(torch.nn, name), getattr(nnref.nn, name, None)
        if (inspect.isclass(tcls) and issubclass(tcls, torch.nn.Module) and inspect.isclass(ncls)
                and not name.startswith("_")):
            out.append((f"torch.nn.{name}", tcls, ncls))
    return out


# --- PyTorch's signatures ----------------------------------------------------------------------------

class Param:
    """One parameter of a signature: its name, type (a schema type string or None), whether it can be
    passed by position and by keyword, and its default (``Param.REQUIRED`` when it has none)."""
    REQUIRED = inspect.Parameter.empty

    def __init__(self, name, type_, positional, keyword, default):
        self.name, self.type, self.positional, self.keyword, self.default = (
            name, type_, positional, keyword, default)

    def __repr__(self):
        return f"Param({self.name!r}, {self.type!r}, pos={self.positional}, kw={self.keyword})"


_TENSOR_RETURNS = ("Tensor", "Tensor[]", "List[Tensor]", "int", "float", "bool", "number", "Scalar")
_UNSUPPORTED_TYPES = ("Dimname", "Storage", "Stream", "QScheme", "t", "Any", "AnyEnumType", "Device",
                      "Layout", "bool?")


def _aten_names(qualname):
    prefix, _, name = qualname.rpartition(".")
    if prefix == "torch.linalg":
        return [f"linalg_{name}"]
    if prefix == "torch.special":
        return [f"special_{name}", name]
    return [name]


def _schema_default(arg):
    if not arg.has_default_value():
        return Param.REQUIRED
    value = arg.default_value
    if str(arg.type) == "Optional[int]" and arg.name == "dtype" and isinstance(value, int):
        return None  # randint's ScalarType default (long) is an enum number in the schema
    return value


def aten_signatures(qualname, method=False):
    """The overloads of the ATen operator behind a C++-bound PyTorch callable, without the ``out=``
    overloads and the TorchScript-only ones (lists of ``t``, plain ``int``/``float`` operators)."""
    signatures = []
    for aten in _aten_names(qualname):
        for schema in torch._C._jit_get_schemas_for_operator(f"aten::{aten}"):
            if (schema.overload_name.endswith("out") or any(a.is_out for a in schema.arguments)
                    or not schema.returns):  # out= forms, and list.sort-like TorchScript operators
                continue
            args = list(schema.arguments)
            if not args:
                if not method:
                    signatures.append([])
                continue
            first = args[0]
            if method:
                if first.name != "self" or str(first.type) != "Tensor":
                    continue
                args = args[1:]
            elif not any("Tensor" in str(a.type) for a in args) and not any(
                    "Tensor" in str(r.type) for r in schema.returns):
                continue  # TorchScript's operators on Python numbers
            params = []
            for arg in args:
                name = "input" if arg.name == "self" else arg.name
                params.append(Param(name, str(arg.type), not arg.kwarg_only, True, _schema_default(arg)))
            signatures.append(params)
        if signatures:
            break
    return signatures


def _only_varargs(fn):
    kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
    return inspect.Parameter.VAR_POSITIONAL in kinds


def python_signature(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = None if p.annotation is p.empty else p.annotation
        params.append(Param(p.name, annotation, p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD),
                            p.kind != p.POSITIONAL_ONLY, p.default))
    return params


def signatures_of(qualname, tfn):
    """PyTorch's signatures for one callable, and where they were read."""
    if qualname.startswith("torch.nn.") and inspect.isclass(tfn):
        params = python_signature(tfn.__init__)
        return [params[1:]] if params else [], "inspect (__init__)"
    method = qualname.startswith("torch.Tensor.")
    if not method or getattr(tfn, "__module__", None) == "torch._tensor":
        params = python_signature(tfn)
        if params is not None:
            lambda_ = _testing_overrides().get(tfn)
            if not params and _only_varargs(tfn) and lambda_ is not None:  # ``unique(*args, **kwargs)``
                params = python_signature(lambda_)
                return [params[1:] if method else params], "torch.overrides.get_testing_overrides"
            return [params[1:] if method else params], "inspect"
    sigs = aten_signatures(qualname, method=method)
    if sigs:
        return sigs, "aten schema"
    # Last, the signature torch.overrides documents for testing __torch_function__ overrides.
    lambda_ = _testing_overrides().get(tfn)
    params = python_signature(lambda_) if lambda_ is not None else None
    if params is not None:
        return [params[1:] if method else params], "torch.overrides.get_testing_overrides"
    params = docstring_signature(tfn)  # a method's docstring leaves ``self`` out
    if params is not None:
        return [params], "docstring"
    return [], None


def docstring_signature(fn):
    """The signature on the first line of a docstring (``get_default_dtype() -> torch.dtype``),
    where it is valid Python."""
    import re
    match = re.match(r"\s*(\w+)\((.*?)\)\s*->", fn.__doc__ or "")
    if not match:
        return None
    namespace = {}
    try:
        exec(f"def f({match.group(2).replace(chr(92), '')}): pass", {"torch": torch}, namespace)
    except Exception:  # a docstring signature that is not Python (``randint(low=0, high, size)``)
        return None
    return python_signature(namespace["f"])


_OVERRIDES = []


def _testing_overrides():
    if not _OVERRIDES:
        _OVERRIDES.append(torch.overrides.get_testing_overrides())
    return _OVERRIDES[0]


# --- small valid arguments -------------------------------------------------------------------------
# A maker is a function of the library (torch or nnref) that returns the argument for that library, so
# both receive equal, fresh inputs.

_X = np.array([[0.2, 0.5, 0.7], [0.3, 0.9, 0.1], [0.6, 0.4, 0.8]], dtype=np.float32)
_Y = np.array([[0.4, 0.1, 0.3], [0.8, 0.6, 0.2], [0.5, 0.7, 0.9]], dtype=np.float32)
_INDEX = np.array([[0, 2, 1], [1, 0, 2], [2, 1, 0]], dtype=np.int64)
_MASK = np.array([[True, False, True], [False, True, False], [True, True, False]])
_VEC = np.array([0.3, 0.6, 0.9], dtype=np.float32)


def _tensor(array):
    return lambda lib: lib.tensor(array.copy())


def _gen(lib):
    return lib.Generator().manual_seed(1)


# Tensors by parameter name; any other tensor parameter gets the (3, 3) float tensor ``_X``.
_TENSORS = {
    "other": _Y, "tensor2": _Y, "mat2": _Y, "end": _Y, "std": _Y, "y": _Y, "x2": _Y, "input2": _Y,
    "index": _INDEX, "indices": _INDEX, "mask": _MASK, "condition": _MASK,
    "vec": _VEC, "vec1": _VEC, "vec2": _VEC, "bias": _VEC, "boundaries": np.sort(_VEC),
    "sorted_sequence": np.sort(_VEC), "weights": _VEC, "offsets": np.array([0, 2], dtype=np.int64),
    "exponent": _Y, "divisor": _Y, "src": _Y, "source": _Y, "values": _Y, "target": _Y,
}
_INTS = {
    "dim": 1, "dim0": 0, "dim1": 1, "dim2": 0, "high": 10, "low": 2, "n": 3, "m": 2, "k": 2, "row": 3,
    "col": 3, "diagonal": 1, "offset": 1, "start": 0, "end": 2, "length": 2, "step": 1, "chunks": 2,
    "split_size": 2, "sections": 2, "repeats": 2, "num_classes": 4, "groups": 1, "num_samples": 2,
    "minlength": 4, "bins": 4, "upscale_factor": 1, "downscale_factor": 1, "source": 0,
    "destination": 1, "index": 1, "shifts": 1, "dims": 1, "p": 2, "output_size": 2, "kernel_size": 2,
    "stride": 1, "padding": 0, "dilation": 1, "num_groups": 1, "padding_idx": 0, "max_norm": 1,
    "correction": 0, "ddof": 0, "dimension": 1, "size": 2, "unbiased": True, "decimals": 1,
    "fill_value": 3, "value": 2, "other": 2, "exponent": 2, "ignore_index": 1, "blank": 0,
    # nn module constructors
    "in_features": 3, "out_features": 2, "in1_features": 3, "in2_features": 3, "num_features": 3,
    "in_channels": 3, "out_channels": 2, "input_size": 3, "hidden_size": 2, "num_embeddings": 4,
    "embedding_dim": 3, "d_model": 4, "nhead": 2, "embed_dim": 4, "num_heads": 2, "num_channels": 3,
}
_FLOATS = {
    "alpha": 1.5, "beta": 0.5, "value": 0.5, "other": 2.0, "exponent": 2.0, "fill_value": 1.5,
    "min": 0.25, "max": 0.75, "min_val": 0.25, "max_val": 0.75, "p": 2.0, "eps": 1e-3, "threshold": 0.5,
    "lambd": 0.4, "negative_slope": 0.2, "margin": 0.5, "rtol": 1e-3, "atol": 1e-4, "q": 0.5,
    "mean": 0.5, "std": 2.0, "start": 0.0, "end": 2.0, "step": 0.5, "scale": 2.0, "weight": 0.25,
    "momentum": 0.2, "tau": 2.0, "delta": 0.5, "beta1": 0.5, "lower": 0.125, "upper": 0.25,
    "nan": 0.0, "posinf": 9.0, "neginf": -9.0, "base": 2.0, "div_value": 2.0, "label_smoothing": 0.1,
    "scale_factor": 2.0, "dropout_p": 0.0, "max_norm": 1.0, "norm_type": 2.0, "lr": 0.1,
}
_INT_LISTS = {
    "size": (3, 3), "shape": (3, 3), "sizes": (3, 1), "dim": (1,), "dims": (1, 0), "normalized_shape": (3,),
    "kernel_size": (2,), "stride": (1,), "padding": (0,), "dilation": (1,), "output_size": (2,),
    "pad": (1, 1), "repeats": (2, 1), "shifts": (1,), "split_sizes": (1, 2), "split_size": (1, 2),
    "indices": (1,), "output_padding": (0,), "perm": (1, 0), "source": (0,), "destination": (1,),
    "s": (3,), "split_size_or_sections": (1, 2), "unflattened_size": (3, 1),
}
_STRINGS = {
    "reduction": "sum", "rounding_mode": "floor", "approximate": "tanh", "ord": "fro", "side": "left",
    "equation": "ij,jk->ik", "indexing": "ij", "interpolation": "linear", "UPLO": "L", "reduce": "sum",
    "nonlinearity": "tanh", "padding_mode": "zeros", "mode": None, "compute_mode": None,
    "activation": "gelu",
}


def _from_table(table, name, typ):
    value = table.get(name)
    return None if value is None else (lambda lib: value)


def make_argument(name, typ, default=Param.REQUIRED):
    """A maker for parameter ``name`` of type ``typ`` (schema string, annotation or None), or None
    where no valid argument can be made from the name and type alone."""
    t = typ.__name__ if isinstance(typ, type) else str(typ or "")
    if name == "dtype":
        return lambda lib: lib.float64
    if name == "generator":
        return _gen
    if name in ("activation", "nonlinearity", "padding_mode", "reduction"):
        return _from_table(_STRINGS, name, t)
    if name in ("layout", "pin_memory", "device", "memory_format", "out", "names", "requires_grad"):
        return {"device": lambda lib: "cpu", "requires_grad": lambda lib: True,
                "memory_format": lambda lib: lib.contiguous_format}.get(name)
    if "List[Tensor]" in t or "Tensor[]" in t or name in ("tensors",):
        return lambda lib: [lib.tensor(_X.copy()), lib.tensor(_Y.copy())]
    if "Tensor" in t or (not t and default in (Param.REQUIRED, None) and name in (
            _TENSORS.keys() | {"input", "x", "x1", "tensor", "tensor1", "a", "b", "A", "B", "mat1", "mat",
                               "weight", "self", "elements", "test_elements", "tensor_a"})):
        return _tensor(_TENSORS.get(name, _X))
    if "List[int]" in t or "int[]" in t or "Sequence[int]" in t:
        value = _INT_LISTS.get(name, (1,))
        return lambda lib: value
    if t in ("int", "Optional[int]", "SymInt", "Optional[SymInt]") or "int" == t or (
            not t and isinstance(default, int) and not isinstance(default, bool)):
        if name in _INTS:
            return _from_table(_INTS, name, t)
        if isinstance(default, int) and not isinstance(default, bool):
            return lambda lib: default + 1
        return lambda lib: 1
    if t in ("float", "Optional[float]", "number", "Optional[number]", "Scalar") or (
            not t and isinstance(default, float)):
        if name in _FLOATS:
            return _from_table(_FLOATS, name, t)
        if isinstance(default, float):
            return lambda lib: default / 2
        return lambda lib: 0.5
    if t in ("bool", "Optional[bool]") or isinstance(default, bool):
        return lambda lib: not default if isinstance(default, bool) else True
    if t in ("str", "Optional[str]") or isinstance(default, str):
        value = _STRINGS.get(name, default if isinstance(default, str) else None)
        return None if value is None else (lambda lib: value)
    if default in (None, Param.REQUIRED):  # an annotation such as _size_2_t: the name decides
        for table in (_INT_LISTS, _INTS, _FLOATS, _STRINGS) if name == "unflattened_size" else (
                _INTS, _FLOATS, _INT_LISTS, _STRINGS):
            if name in table and table[name] is not None:
                return _from_table(table, name, t)
    return None


# --- call forms ----------------------------------------------------------------------------------------

class Form:
    """One call: positional makers and keyword makers, with a label such as ``randint(10, size=)``."""

    def __init__(self, label, args, kwargs):
        self.label, self.args, self.kwargs = label, args, kwargs

    def __repr__(self):
        return self.label


def _default_maker(default):
    """A parameter's default passed explicitly: PyTorch's objects (``F.relu``, ``torch.float32``,
    ``torch.contiguous_format``) as the other library's object of the same name."""
    if isinstance(default, (torch.dtype, torch.memory_format, torch.layout)):
        return lambda lib: getattr(lib, str(default).rsplit(".", 1)[1])
    if callable(default) and getattr(default, "__module__", "").startswith("torch.nn.functional"):
        return lambda lib: getattr(lib.nn.functional, default.__name__)
    return lambda lib: default


def forms_of(name, params, overrides=None):
    """The call forms PyTorch's signature ``params`` allows, or a reason string when a required
    parameter has no maker."""
    overrides = overrides or {}
    makers = {p.name: overrides.get(p.name) or make_argument(p.name, p.type, p.default) for p in params}
    star = overrides.get("*", [])  # makers for a ``*tensors`` parameter
    fixed = overrides.get("**", {})  # keywords every form passes (a small nn.Transformer)
    params = [p for p in params if p.name not in fixed]
    required = [p for p in params if p.default is Param.REQUIRED]
    missing = [p.name for p in required if makers[p.name] is None]
    if missing:
        return f"no argument maker for {', '.join(missing)}"
    positional = [p for p in required if p.positional]
    kw_only = {**fixed, **{p.name: makers[p.name] for p in required if not p.positional}}

    def label(pos, kws):
        return f"{name}({', '.join([p.name for p in pos] + ['*'] * bool(star) + [f'{k}=' for k in kws])})"

    forms = []
    for split in range(len(positional), -1, -1):
        if not all(p.keyword for p in positional[split:]):
            break
        kws = {**{p.name: makers[p.name] for p in positional[split:]}, **kw_only}
        forms.append(Form(label(positional[:split], kws), [makers[p.name] for p in positional[:split]] + star,
                          kws))
        if star:  # the parameters before ``*args`` can only be given by position
            break
    base_args = [makers[p.name] for p in positional] + star
    for index, p in enumerate(params):
        if p.default is Param.REQUIRED or makers[p.name] is None:
            continue
        if p.keyword:
            forms.append(Form(label(positional, {**kw_only, p.name: None}), base_args,
                              {**kw_only, p.name: makers[p.name]}))
        if p.positional and not fixed:  # (fixed keywords would take the places of some positions)
            before = [q for q in params[:index] if q.default is not Param.REQUIRED]
            if all(q.positional for q in before):
                args = base_args + [_default_maker(q.default) for q in before] + [makers[p.name]]
                forms.append(Form(label(positional + before + [p], kw_only), args, kw_only))
    return forms


# --- running a form on both libraries ----------------------------------------------------------------

def _resolve(lib, qualname):
    parts = qualname.split(".")[1:]
    obj = lib
    for part in parts:
        obj = getattr(obj, part)
    return obj


def normalise(value, lib):
    """A library-neutral picture of a result: tensors as (dtype, shape, values, requires_grad)."""
    if isinstance(value, lib.Tensor):
        detached = value.detach()
        if detached.dtype == lib.bfloat16 or detached.dtype == lib.float16:
            detached = detached.float()
        return ("Tensor", str(value.dtype).replace("torch.", ""), tuple(value.shape),
                np.asarray(detached.cpu().numpy()), bool(value.requires_grad))
    if isinstance(value, lib.dtype):
        return ("dtype", str(value))
    if isinstance(value, lib.nn.Module):
        return ("Module", repr(value), tuple((k, "uninitialised" if "Uninitialized" in type(v).__name__ else
                                              normalise(v, lib)) for k, v in value.state_dict().items()))
    if isinstance(value, (tuple, list)):
        return tuple(normalise(v, lib) for v in value)
    if isinstance(value, (bool, int, float, complex, str, type(None))):
        return value
    if isinstance(value, lib.Generator):
        return "Generator"
    return type(value).__name__


def same_exception(expected, got):
    """PyTorch's ``torch.linalg.LinAlgError`` is the C++ class ``_LinAlgError``."""
    return got == expected or got == expected.lstrip("_")


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype.kind != b.dtype.kind and not {a.dtype.kind, b.dtype.kind} <= set("fc"):
            return False
        if a.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)
    return type(a) is type(b) and a == b


def run(lib, qualname, form, method=False, constructor=False):
    """("ok", normalised result) or ("raises", exception type name) for one form on one library."""
    lib.manual_seed(0)
    try:
        args = [m(lib) for m in form.args]
        kwargs = {k: m(lib) for k, m in form.kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method:
                self = ARGUMENTS.get(qualname, {}).get("self", _tensor(_X))(lib)
                result = getattr(self, qualname.rsplit(".", 1)[1])(*args, **kwargs)
            else:
                result = _resolve(lib, qualname)(*args, **kwargs)
        return ("ok", normalise(result, lib))
    except Exception as exc:  # the exception's type is the outcome compared with PyTorch's
        return ("raises", type(exc).__name__)


def compare(qualname, form):
    """(PyTorch's outcome, nnref's outcome, whether they agree)."""
    method = qualname.startswith("torch.Tensor.")
    expected = run(torch, qualname, form, method=method)
    got = run(nnref, qualname, form, method=method)
    if expected[0] == got[0] == "raises":
        return expected, got, same_exception(expected[1], got[1])
    if expected[0] == got[0] == "ok" and qualname.rsplit(".", 1)[1] in ADDRESSES:
        return expected, got, type(expected[1]) is type(got[1])
    if expected[0] == got[0] == "ok" and qualname.rsplit(".", 1)[1] in UNINITIALISED:
        return expected, got, same(_without_values(expected[1]), _without_values(got[1]))
    return expected, got, expected[0] == got[0] and same(expected[1], got[1])


# Results whose memory is left uninitialised: only their dtype and shape are compared.
UNINITIALISED = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided"}
# Results that are addresses: only their type is compared.
ADDRESSES = {"data_ptr"}


def _without_values(picture):
    return picture[:3] if isinstance(picture, tuple) and picture[:1] == ("Tensor",) else picture


# --- the whole survey ------------------------------------------------------------------------------------

class Case:
    """One shared callable: its signatures, forms, or the reason it is skipped."""

    def __init__(self, qualname, tfn, nfn):
        self.qualname, self.skip, self.forms, self.source = qualname, SKIPPED.get(qualname), [], None
        if self.skip:
            return
        signatures, self.source = signatures_of(qualname, tfn)
        if not signatures:
            self.skip = "no signature PyTorch exposes (neither inspect nor an ATen schema)"
            return
        reasons = []
        short = qualname.rsplit(".", 1)[1]
        seen = set()
        for params in signatures:
            forms = forms_of(short, params, ARGUMENTS.get(qualname))
            if isinstance(forms, str):
                reasons.append(forms)
                continue
            for form in forms:
                key = (form.label, tuple(id(m) for m in form.args))
                if form.label not in seen:
                    seen.add(form.label)
                    self.forms.append(form)
        if not self.forms:
            self.skip = "; ".join(sorted(set(reasons)))
            return
        self.forms += refused_forms(short, signatures, tfn, nfn, qualname)


def _nnref_parameters(nfn, qualname):
    """The parameters of nnref's callable as a program sees them (no ``self``; a module's
    ``__init__``'s), or None where Python cannot read a signature."""
    try:
        sig = inspect.signature(nfn.__init__ if inspect.isclass(nfn) else nfn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if inspect.isclass(nfn) or qualname.startswith("torch.Tensor."):
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None  # names pass through to another callable: its own names are checked where it is shared
    return params


def _takes_any_keyword(tfn):
    """True where PyTorch's callable has ``**kwargs`` (``nn.LSTM(*args, **kwargs)``): no name is
    outside its signature."""
    try:
        sig = inspect.signature(tfn.__init__ if inspect.isclass(tfn) else tfn)
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


# Keywords PyTorch's Python argument parser adds to every factory function, which no ATen schema lists.
_FACTORY_KEYWORDS = {"requires_grad", "pin_memory"}


def refused_forms(name, signatures, tfn, nfn, qualname):
    """Forms PyTorch's signatures leave out (see the module's docstring): a name only nnref has, or a
    keyword-only parameter given by position. The other arguments are those of the first form."""
    overrides = ARGUMENTS.get(qualname) or {}
    if "**" in overrides:
        return []
    forms = []
    for params in signatures[:1]:
        makers = {p.name: overrides.get(p.name) or make_argument(p.name, p.type, p.default) for p in params}
        required = [p for p in params if p.default is Param.REQUIRED]
        if any(makers[p.name] is None for p in required):
            continue
        positional = [p for p in required if p.positional]
        base_args = [makers[p.name] for p in positional] + overrides.get("*", [])
        base_kwargs = {p.name: makers[p.name] for p in required if not p.positional}
        known = {p.name for sig in signatures for p in sig} | _FACTORY_KEYWORDS
        for extra in () if _takes_any_keyword(tfn) else _nnref_parameters(nfn, qualname) or ():
            if extra.kind in (extra.VAR_POSITIONAL, extra.VAR_KEYWORD) or extra.name in known:
                continue
            maker = make_argument(extra.name, None, extra.default)
            if maker is not None:
                forms.append(Form(f"{name}({extra.name}=) [name not in PyTorch's signature]", base_args,
                                  {**base_kwargs, extra.name: maker}))
        if overrides.get("*"):  # after ``*tensors`` every position is taken by the tensors
            continue
        optional_positional = [p for p in params if p.positional and p.default is not Param.REQUIRED]
        for p in params:
            if p.positional or p.default is Param.REQUIRED or makers[p.name] is None or p.name in (
                    "out", "dtype", "layout", "device", "pin_memory", "requires_grad", "memory_format"):
                continue  # (the factory keywords go to PyTorch's parser, whose positions differ)
            args = base_args + [_default_maker(q.default) for q in optional_positional] + [makers[p.name]]
            forms.append(Form(f"{name}({', '.join(q.name for q in positional + optional_positional + [p])}) "
                              "[keyword-only by position]", args, base_kwargs))
    return forms


# Explicit argument makers where a name and a type do not say enough (a convolution's 4-D input ...).
def _dtypes(first, second):
    return lambda lib: getattr(lib, first), lambda lib: getattr(lib, second)


def _shaped(*shape, dtype=np.float32, low=0.1):
    """A tensor maker of ``shape`` with distinct values in [low, 0.9] (or 0, 1, ... for integers)."""
    count = int(np.prod(shape))
    if np.dtype(dtype).kind in "iu":
        return _tensor(np.arange(count, dtype=dtype).reshape(shape))
    return _tensor(np.linspace(low, 0.9, count, dtype=dtype).reshape(shape)[..., ::-1].copy())


def _value(value):
    return lambda lib: value


_LONG = np.int64
_BATCH, _VEC2, _INTS3 = _shaped(2, 3, 3), _shaped(3), _tensor(np.array([[1, 6, 3], [4, 5, 12], [7, 8, 9]]))
_IMAGE, _SEQUENCE = _shaped(1, 2, 4, 4), _shaped(1, 2, 5)
_POOL = {"input": _IMAGE, "self": _IMAGE}
_SPD = _tensor((_X @ _X.T + np.eye(3, dtype=np.float32)))


def _for(names, overrides, table):
    """``overrides`` for each qualified name in ``names`` (a torch function, its Tensor method and
    its in-place method share them)."""
    for name in names.split():
        table[name] = overrides


ARGUMENTS = {
    "torch.can_cast": dict(zip(("from_", "to"), _dtypes("float32", "int64"))),
    "torch.promote_types": dict(zip(("type1", "type2"), _dtypes("float32", "int64"))),
    "torch.Tensor.new_tensor": {"data": lambda lib: [[1.0, 2.0], [3.0, 4.0]]},
    "torch.bmm": {"input": _BATCH, "mat2": _BATCH}, "torch.Tensor.bmm": {"self": _BATCH, "mat2": _BATCH},
    "torch.bilinear": {"input1": _shaped(2, 3), "input2": _shaped(2, 3), "weight": _shaped(4, 3, 3),
                       "bias": _shaped(4)},
    "torch.cartesian_prod": {"*": [_VEC2, _VEC2]}, "torch.meshgrid": {"*": [_VEC2, _VEC2]},
    "torch.conv1d": {"input": _SEQUENCE, "weight": _shaped(2, 2, 2), "bias": _shaped(2)},
    "torch.conv2d": {"input": _IMAGE, "weight": _shaped(2, 2, 2, 2), "bias": _shaped(2)},
    "torch.conv_transpose1d": {"input": _SEQUENCE, "weight": _shaped(2, 2, 2), "bias": _shaped(2)},
    "torch.conv_transpose2d": {"input": _IMAGE, "weight": _shaped(2, 2, 2, 2), "bias": _shaped(2)},
    "torch.linspace": {"start": _value(0.0), "end": _value(2.0), "steps": _value(5)},
    "torch.logspace": {"start": _value(0.0), "end": _value(2.0), "steps": _value(5)},
    "torch.linalg.cholesky": {"input": _SPD},
    "torch.nn.functional.bilinear": {"input1": _shaped(2, 3), "input2": _shaped(2, 3), "weight": _shaped(4, 3, 3),
                                     "bias": _shaped(4)},
    "torch.nn.functional.cosine_embedding_loss": {"input1": _shaped(2, 3), "input2": _shaped(2, 3),
                                                  "target": _tensor(np.array([1.0, -1.0], dtype=np.float32))},
    "torch.nn.functional.embedding": {"input": _tensor(np.array([[0, 2], [1, 3]])), "weight": _shaped(4, 3)},
    "torch.nn.functional.embedding_bag": {"input": _tensor(np.array([0, 2, 1, 3])), "weight": _shaped(4, 3),
                                          "offsets": _tensor(np.array([0, 2]))},
    "torch.nn.functional.one_hot": {"input": _tensor(np.array([0, 2, 1]))},
    "torch.nn.functional.nll_loss": {"target": _tensor(np.array([0, 2, 1]))},
    "torch.nn.functional.multi_margin_loss": {"target": _tensor(np.array([0, 2, 1]))},
    "torch.nn.functional.multilabel_margin_loss": {"target": _tensor(np.array([[0, 1, -1], [2, -1, 0], [1, 2, 0]]))},
    "torch.nn.functional.glu": {"input": _shaped(2, 4)},
    "torch.nn.functional.affine_grid": {"theta": _shaped(1, 2, 3), "size": _value((1, 2, 4, 4))},
    "torch.nn.functional.grid_sample": {"input": _IMAGE, "grid": _shaped(1, 2, 2, 2, low=-0.9)},
    "torch.nn.functional.fold": {"input": _shaped(1, 8, 4), "output_size": _value((3, 3)),
                                 "kernel_size": _value(2)},
    "torch.nn.functional.batch_norm": {"input": _IMAGE, "running_mean": _shaped(2), "running_var": _shaped(2),
                                       "weight": _shaped(2), "bias": _shaped(2)},
    "torch.nn.functional.instance_norm": {"input": _IMAGE, "running_mean": _shaped(2),
                                          "running_var": _shaped(2), "weight": _shaped(2), "bias": _shaped(2)},
    "torch.nn.Transformer": {"**": {"d_model": _value(4), "nhead": _value(2), "num_encoder_layers": _value(1),
                                    "num_decoder_layers": _value(1), "dim_feedforward": _value(8)}},
    "torch.nn.RNN": {"*": [_value(3), _value(2)]}, "torch.nn.GRU": {"*": [_value(3), _value(2)]},
    "torch.nn.LSTM": {"*": [_value(3), _value(2)]},
    "torch.Tensor.float_power_": {"self": _tensor(_X.astype(np.float64))},
    "torch.dropout": {"p": _value(0.25), "train": _value(False)},
    "torch.einsum": {"*": [_tensor(_X), _tensor(_Y)]},
    "torch.nn.functional.scaled_dot_product_attention": {"query": _shaped(1, 2, 3, 3), "key": _shaped(1, 2, 3, 3),
                                                        "value": _shaped(1, 2, 3, 3)},
    "torch.nn.functional.max_unpool2d": {"input": _shaped(1, 1, 2, 2),
                                         "indices": _tensor(np.array([[[[0, 3], [9, 14]]]]))},
    "torch.Tensor.item": {"self": _shaped(1)}, "torch.Tensor.is_nonzero": {"self": _shaped(1)},
    "torch.is_nonzero": {"input": _shaped(1)},
}
_for("torch.addbmm torch.baddbmm torch.Tensor.addbmm torch.Tensor.addbmm_ torch.Tensor.baddbmm "
     "torch.Tensor.baddbmm_", {"batch1": _BATCH, "batch2": _BATCH}, ARGUMENTS)
ARGUMENTS["torch.Tensor.baddbmm_"] = {"self": _BATCH, "batch1": _BATCH, "batch2": _BATCH}
_for("torch.addmv torch.Tensor.addmv torch.Tensor.addmv_", {"input": _VEC2, "self": _VEC2, "mat": _tensor(_X),
                                                            "vec": _VEC2}, ARGUMENTS)
_for("torch.dot torch.vdot torch.ger torch.outer torch.Tensor.dot torch.Tensor.vdot torch.Tensor.ger "
     "torch.Tensor.outer", {"input": _VEC2, "self": _VEC2, "tensor": _VEC2, "other": _VEC2, "vec2": _VEC2}, ARGUMENTS)
_for("torch.bitwise_and torch.bitwise_or torch.bitwise_xor torch.bitwise_not torch.gcd torch.lcm "
     "torch.Tensor.bitwise_and torch.Tensor.bitwise_or torch.Tensor.bitwise_xor torch.Tensor.bitwise_not "
     "torch.Tensor.gcd torch.Tensor.lcm torch.Tensor.bitwise_and_ torch.Tensor.bitwise_or_ "
     "torch.Tensor.bitwise_xor_ torch.Tensor.bitwise_not_ torch.Tensor.gcd_ torch.Tensor.lcm_",
     {"input": _INTS3, "self": _INTS3, "other": _tensor(_INDEX + 2)}, ARGUMENTS)
_for("torch.bincount torch.Tensor.bincount", {"input": _tensor(np.array([0, 1, 1, 3])),
                                               "self": _tensor(np.array([0, 1, 1, 3])), "weights": _shaped(4)},
     ARGUMENTS)
_for("torch.index_add torch.index_copy torch.index_fill torch.index_select torch.Tensor.index_add "
     "torch.Tensor.index_add_ torch.Tensor.index_copy torch.Tensor.index_copy_ torch.Tensor.index_fill "
     "torch.Tensor.index_fill_ torch.Tensor.index_select",
     {"index": _tensor(np.array([0, 2])), "source": _shaped(3, 2), "value": _tensor(np.array(0.5, np.float32))},
     ARGUMENTS)
_for("torch.quantile torch.nanquantile torch.Tensor.quantile torch.Tensor.nanquantile",
     {"q": _tensor(np.array([0.25, 0.5], np.float32))}, ARGUMENTS)
_for("torch.diagonal_scatter torch.select_scatter torch.Tensor.diagonal_scatter torch.Tensor.select_scatter",
     {"src": _VEC2}, ARGUMENTS)
_for("torch.dsplit torch.Tensor.dsplit", {"input": _shaped(2, 2, 4), "self": _shaped(2, 2, 4)}, ARGUMENTS)
_for("torch.repeat_interleave torch.Tensor.repeat_interleave", {"repeats": _tensor(np.array([2]))}, ARGUMENTS)
_for("torch.channel_shuffle torch.nn.functional.channel_shuffle torch.nn.functional.native_channel_shuffle "
     "torch.pixel_shuffle torch.pixel_unshuffle torch.nn.functional.pixel_shuffle "
     "torch.nn.functional.pixel_unshuffle",
     {"input": _shaped(1, 4, 2, 2), "groups": _value(2), "upscale_factor": _value(2),
      "downscale_factor": _value(2)}, ARGUMENTS)
_for("torch.max_pool2d torch.nn.functional.max_pool2d torch.nn.functional.max_pool2d_with_indices "
     "torch.nn.functional.avg_pool2d torch.nn.functional.lp_pool2d torch.nn.functional.adaptive_avg_pool2d "
     "torch.nn.functional.adaptive_max_pool2d torch.nn.functional.adaptive_max_pool2d_with_indices "
     "torch.nn.functional.unfold torch.nn.functional.interpolate torch.nn.functional.upsample "
     "torch.nn.functional.upsample_bilinear torch.nn.functional.upsample_nearest "
     "torch.nn.functional.local_response_norm", _POOL, ARGUMENTS)
_for("torch.nn.functional.max_pool1d torch.nn.functional.adaptive_max_pool1d torch.nn.functional.conv1d "
     "torch.nn.functional.conv_transpose1d",
     {"input": _SEQUENCE, "weight": _shaped(2, 2, 2), "bias": _shaped(2)}, ARGUMENTS)
_for("torch.nn.functional.conv2d torch.nn.functional.conv_transpose2d",
     {"input": _IMAGE, "weight": _shaped(2, 2, 2, 2), "bias": _shaped(2)}, ARGUMENTS)
_for("torch.prelu torch.nn.functional.prelu", {"weight": _tensor(np.array([0.25], dtype=np.float32))}, ARGUMENTS)


def survey():
    return [Case(*entry) for entry in shared_callables()]


def main():
    import collections
    import time
    start = time.perf_counter()
    cases = survey()
    forms = accepted = 0
    bad = []
    skipped = collections.Counter()
    for case in cases:
        if case.skip:
            skipped[case.skip] += 1
            continue
        for form in case.forms:
            expected, got, ok = compare(case.qualname, form)
            forms += 1
            accepted += expected[0] == "ok"
            if not ok:
                bad.append((case.qualname, form.label, expected[0] == "ok" and expected[1] or expected,
                            got if got[0] == "raises" else "ok"))
    print(f"{len(cases)} shared callables, {sum(not c.skip for c in cases)} called, {forms} call forms "
          f"({accepted} accepted by PyTorch), {len(bad)} disagree, {time.perf_counter() - start:.1f} s")
    for reason, count in skipped.most_common():
        print(f"  skipped {count}: {reason}")
    for entry in bad:
        print("  ", *[str(e)[:160] for e in entry])


if __name__ == "__main__":
    main()
