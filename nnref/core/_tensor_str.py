"""``repr(tensor)`` in PyTorch's layout, so printed outputs read exactly like PyTorch's.

A port of the rules in ``torch/_tensor_str.py`` (chapter 01 tells them): more than 1000 elements
are summarised with ``...``, lines wrap at 80 characters.
"""
import math

import numpy as np

from . import _dtype
from ._tensor import bind
from ._device import to_host

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
SCI_MODE = None  # None: decided per tensor; True or False: forced
# nnref.set_printoptions (nnref/_tensor_str.py, the mirror) changes these five.


class _Formatter:
    """Decides one notation and width for all elements of a tensor."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        if not floating:
            self.max_width = max((len(str(v)) for v in values.ravel().tolist()), default=1)
            return
        finite = values[np.isfinite(values) & (values != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        # Whole numbers are at least 1, so only others can fall below 1e-4.
        sci = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        self.sci_mode = sci if SCI_MODE is None else SCI_MODE
        self.max_width = max(len(self.format(v)) for v in finite.tolist())

    def format(self, value):
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.max_width)


def _summarized(values):
    """The elements that will be shown (edges only) when a tensor is summarised."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        values = np.concatenate([values[:EDGEITEMS], values[-EDGEITEMS:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


def _vector(values, indent, summarize, formatter):
    per_line = max(1, (LINEWIDTH - indent) // (formatter.max_width + 2))
    items = values.tolist()
    if summarize and len(items) > 2 * EDGEITEMS:
        data = ([formatter.format(v) for v in items[:EDGEITEMS]] + [" ..."]
                + [formatter.format(v) for v in items[-EDGEITEMS:]])
    else:
        data = [formatter.format(v) for v in items]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, indent, summarize, formatter):
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    rows = range(values.shape[0])
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        parts = ([_nested(values[i], indent + 1, summarize, formatter) for i in rows[:EDGEITEMS]]
                 + ["..."]
                 + [_nested(values[i], indent + 1, summarize, formatter) for i in rows[-EDGEITEMS:]])
    else:
        parts = [_nested(values[i], indent + 1, summarize, formatter) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(tensor, indent):
    values = to_host(tensor._data)
    floating = tensor._dtype.is_floating_point
    if tensor._dtype in (_dtype.float16, _dtype.bfloat16):
        values = values.astype(np.float32)
    summarize = values.size > THRESHOLD
    formatter = _Formatter(_summarized(values) if summarize else values, floating)
    return _nested(values, indent, summarize, formatter)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(tensor, prefix="tensor("):
    indent = len(prefix)
    suffixes = []
    if tensor._device.type != "cpu":
        suffixes.append(f"device='{tensor._device}'")
    meta = tensor._device.type == "meta"
    if meta or tensor._data.size == 0:  # no values to show (_str_intern's is_meta and empty cases)
        if meta or tensor._data.ndim != 1:
            suffixes.append(f"size={tuple(tensor._data.shape)}")
        if tensor._dtype is not _dtype.get_default_dtype():
            suffixes.append(f"dtype={tensor._dtype!r}")
        body = "..." if meta else "[]"
    else:
        if tensor._dtype not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={tensor._dtype!r}")
        body = _body(tensor, indent)
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(tensor.grad_fn).__name__}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


bind(__repr__=tensor_repr)
