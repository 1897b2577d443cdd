"""``assert_close`` and its machinery, mirroring ``torch/testing/_comparison.py``.

The inputs are split into pairs (recursing through sequences and mappings); each pair is
compared by the first of ``NonePair``, ``BooleanPair``, ``NumberPair`` and ``TensorLikePair``
that accepts it.  The difference statistics of a failure are computed with tensor operations
in the tensors' own dtype, as PyTorch's are, so the printed numbers agree digit for digit.
nnref tensors are all strided and never quantized or sparse, so those branches are absent.
"""
import cmath
import collections.abc
import contextlib
import warnings

import numpy as np

from ..core import _dtype
from ..core._naming import torch_module_name
from .._creation import as_tensor, tensor
from ..core._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]


def _type_repr(cls):
    """``type(x)`` as PyTorch prints it: nnref's classes under their ``torch`` names."""
    module = getattr(cls, "__module__", "") or ""
    if cls is Tensor or (module == "nnref.core._tensor" and cls.__name__ == "Tensor"):
        return "<class 'torch.Tensor'>"
    if module == "nnref" or module.startswith("nnref."):
        return f"<class '{torch_module_name(module)}.{cls.__qualname__}'>"
    return str(cls)


class ErrorMeta(Exception):
    """A failure's type, message and item id, turned into the user-facing error by
    :meth:`to_error` (``torch.testing._comparison.ErrorMeta``)."""

    def __init__(self, type, msg, *, id=()):
        super().__init__("Internal comparison error: raise ErrorMeta.to_error() instead.")
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated_msg = self.msg
            if self.id:
                generated_msg += ("\n\nThe failure occurred for item "
                                  f"{''.join(str([item]) for item in self.id)}")
            msg = msg(generated_msg) if callable(msg) else generated_msg
        return self.type(msg)


# {dtype: (rtol, atol)}, PyTorch's table less the complex and quantized dtypes nnref lacks.
_DTYPE_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
}


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest ``(rtol, atol)`` of the inputs' dtypes
    (``torch.testing._comparison.default_tolerances``)."""
    dtypes = []
    for input in inputs:
        if isinstance(input, Tensor):
            dtypes.append(input.dtype)
        elif isinstance(input, _dtype.dtype):
            dtypes.append(input)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {_type_repr(type(input))} "
                            "instead.")
    dtype_precisions = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[dtype_precisions.get(dtype, (0.0, 0.0)) for dtype in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()):
    """``(rtol, atol)`` as given, or the dtypes' defaults when both are omitted
    (``torch.testing._comparison.get_tolerances``)."""
    if (rtol is None) ^ (atol is None):
        # Both or neither: atol=0 alone would still let rtol pass the values.
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _make_mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff,
                       abs_diff_idx=None, atol, rel_diff, rel_diff_idx=None, rtol):
    """The mismatch report of numeric values (``_make_mismatch_msg``)."""
    equality = rtol == 0 and atol == 0

    def make_diff_msg(*, type, diff, idx, tol):
        if idx is None:
            msg = f"{type.title()} difference: {diff}"
        else:
            msg = f"Greatest {type} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += make_diff_msg(type="absolute", diff=abs_diff, idx=abs_diff_idx, tol=atol)
    msg += make_diff_msg(type="relative", diff=rel_diff, idx=rel_diff_idx, tol=rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    """The mismatch report of two Python scalars, differences in Python arithmetic
    (``torch.testing._comparison.make_scalar_mismatch_msg``)."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(default_identifier="Scalars", identifier=identifier,
                              extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                              atol=atol, rel_diff=rel_diff, rtol=rtol)


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    """The mismatch report of two tensors: the count of mismatches and the greatest absolute and
    relative differences among them, computed in the tensors' dtype (integers in int64, the
    relative difference then in the default float dtype, as true division gives)
    (``torch.testing._comparison.make_tensor_mismatch_msg``)."""
    shape = tuple(matches.shape)

    def unravel_flat_index(flat_index):
        return tuple(int(i) for i in np.unravel_index(flat_index, shape)) if shape else ()

    number_of_elements = matches.numel()
    total_mismatches = number_of_elements - int(matches.sum())
    extra = (f"Mismatched elements: {total_mismatches} / {number_of_elements} "
             f"({total_mismatches / number_of_elements:.1%})")
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        actual_flat, expected_flat = actual_flat.to(_dtype.int64), expected_flat.to(_dtype.int64)
    abs_diff = (actual_flat - expected_flat).abs()
    abs_diff[matches_flat] = 0  # only the mismatches compete for the greatest difference
    max_abs_diff, max_abs_diff_flat_idx = abs_diff.max(0)
    rel_diff = abs_diff / expected_flat.abs()
    rel_diff[matches_flat] = 0
    max_rel_diff, max_rel_diff_flat_idx = rel_diff.max(0)
    return _make_mismatch_msg(
        default_identifier="Tensor-likes", identifier=identifier, extra=extra,
        abs_diff=max_abs_diff.item(), abs_diff_idx=unravel_flat_index(int(max_abs_diff_flat_idx)),
        atol=atol, rel_diff=max_rel_diff.item(),
        rel_diff_idx=unravel_flat_index(int(max_rel_diff_flat_idx)), rtol=rtol)


class UnsupportedInputs(Exception):
    """Raised by a pair's constructor for inputs it does not handle: the next pair type is tried
    (``torch.testing._comparison.UnsupportedInputs``)."""


class Pair:
    """One compared couple of inputs (``torch.testing._comparison.Pair``): the constructor
    raises :class:`UnsupportedInputs` for inputs it does not handle; :meth:`compare` raises
    :class:`ErrorMeta` on a mismatch."""

    def __init__(self, actual, expected, *, id=(), **unknown_parameters):
        self.actual = actual
        self.expected = expected
        self.id = id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported():
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs, cls):
        if not all(isinstance(input, cls) for input in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type, msg, *, id=()):
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    def compare(self):
        raise NotImplementedError


class NonePair(Pair):
    """``None`` against anything (``torch.testing._comparison.NonePair``)."""

    def __init__(self, actual, expected, **other_parameters):
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other_parameters)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    """``bool`` and ``numpy.bool_`` inputs (``torch.testing._comparison.BooleanPair``)."""

    def __init__(self, actual, expected, *, id, **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (bool(value) for value in (actual, expected))
        super().__init__(actual, expected, **other_parameters)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    """Python and numpy numbers, compared with the tolerances of the dtype their type stands for
    (``int``: int64, ``float``: float64, ``complex``: complex128, whose are float64's)
    (``torch.testing._comparison.NumberPair``)."""

    # complex stands for complex128 in PyTorch, whose tolerances are float64's
    _TYPE_TO_DTYPE = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.float64}
    _NUMBER_TYPES = tuple(_TYPE_TO_DTYPE)

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(*self._NUMBER_TYPES, np.number))
        actual, expected = (value.item() if isinstance(value, np.number) else value
                            for value in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(
            *[self._TYPE_TO_DTYPE[type(input)] for input in (actual, expected)],
            rtol=rtol, atol=atol, id=id)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError,
                       f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        tolerance = self.atol + self.rtol * abs(self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= tolerance:
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(self.actual, self.expected,
                                                            rtol=self.rtol, atol=self.atol))


def _stride(tensor):
    """``tensor.stride()``: the strides of its array, counted in elements."""
    return tuple(s // tensor._data.itemsize for s in tensor._data.strides)


class TensorLikePair(Pair):
    """Tensors and what :func:`nnref.as_tensor` turns into one (numpy arrays), of directly
    related types (``torch.testing._comparison.TensorLikePair``)."""

    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **other_parameters):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            self._inputs_not_supported()
        if not allow_subclasses and type(actual) is not type(expected):
            self._inputs_not_supported()
        actual, expected = (self._to_tensor(input) for input in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=self.id)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout  # every nnref tensor is strided: layouts always agree
        self.check_stride = check_stride

    def _to_tensor(self, tensor_like):
        if isinstance(tensor_like, Tensor):
            return tensor_like
        try:
            return as_tensor(tensor_like)
        except Exception:
            self._inputs_not_supported()

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if any(input.device.type == "meta" for input in (actual, expected)):
            return  # a meta tensor has no values
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_regular_values_close(actual, expected, rtol=self.rtol, atol=self.atol,
                                           equal_nan=self.equal_nan)

    def _compare_attributes(self, actual, expected):
        def raise_mismatch_error(attribute_name, actual_value, expected_value):
            self._fail(AssertionError, f"The values for attribute '{attribute_name}' do not match: "
                                       f"{actual_value} != {expected_value}.")

        if actual.shape != expected.shape:
            raise_mismatch_error("shape", actual.shape, expected.shape)
        if self.check_stride and _stride(actual) != _stride(expected):
            raise_mismatch_error("stride()", _stride(actual), _stride(expected))
        if self.check_device and actual.device != expected.device:
            raise_mismatch_error("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            raise_mismatch_error("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize_attributes(actual, expected):
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            # unsigned wider than uint8 compare as int64, as PyTorch's promotion refuses them
            wide_unsigned = {getattr(_dtype, name) for name in ("uint16", "uint32", "uint64")
                             if hasattr(_dtype, name)}
            dtype = _dtype.promote_types(
                *(_dtype.int64 if d in wide_unsigned else d for d in (actual.dtype, expected.dtype)))
            actual, expected = actual.to(dtype), expected.to(dtype)
        return actual, expected

    def _compare_regular_values_close(self, actual, expected, *, rtol, atol, equal_nan,
                                      identifier=None):
        matches = actual.isclose(expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if bool(matches.all()):
            return
        if actual.shape == ():
            msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                           identifier=identifier)
        else:
            msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol,
                                           identifier=identifier)
        self._fail(AssertionError, msg)


def originate_pairs(actual, expected, *, pair_types, sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id=(), **options):
    """The pairs of ``actual`` and ``expected``, recursing through sequences (strings excepted)
    and mappings (``torch.testing._comparison.originate_pairs``)."""
    if (isinstance(actual, sequence_types) and not isinstance(actual, str)
            and isinstance(expected, sequence_types) and not isinstance(expected, str)):
        actual_len, expected_len = len(actual), len(expected)
        if actual_len != expected_len:
            raise ErrorMeta(AssertionError,
                            f"The length of the sequences mismatch: {actual_len} != {expected_len}",
                            id=id)
        pairs = []
        for idx in range(actual_len):
            pairs.extend(originate_pairs(actual[idx], expected[idx], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, idx), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"), id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):  # sorted when the keys allow: the first failure is stable
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
        except ErrorMeta:
            raise
        except Exception as error:  # a pair that chokes on its inputs: PyTorch's report of it
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item {''.join(str([item]) for item in id)} "
                f"with\n\n{type(actual).__name__}(): {actual}\n\nand\n\n"
                f"{type(expected).__name__}(): {expected}\n\nresulted in the unexpected exception "
                "above. If you are a user and see this message during normal operation please file an "
                "issue at https://github.com/pytorch/pytorch/issues. If you are a developer and working "
                "on the comparison functions, please except the previous error and raise an expressive "
                "`ErrorMeta` instead.") from error
    raise ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type "
                               f"{_type_repr(type(actual))} and {_type_repr(type(expected))}.", id=id)


def not_close_error_metas(actual, expected, *, pair_types=(), sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options):
    """The :class:`ErrorMeta` of every pair that does not compare equal
    (``torch.testing._comparison.not_close_error_metas``)."""
    __tracebackhide__ = True
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types,
                                sequence_types=sequence_types, mapping_types=mapping_types, **options)
    except ErrorMeta as error_meta:
        raise error_meta.to_error() from None
    error_metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error_meta:
            error_metas.append(error_meta)
    return error_metas


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False,
                 msg=None):
    r"""Assert that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol + rtol *
    |expected|`` elementwise, infinities only equal to themselves, NaNs equal only with
    ``equal_nan``; tensors must also agree in shape and (when checked) device, dtype and stride.
    Inputs may be tensors, numpy arrays, Python or numpy scalars, ``None``, and sequences or
    mappings of them, nested.  Omitted tolerances come from the dtypes (float32: ``rtol=1.3e-6,
    atol=1e-5``; float64: ``1e-7, 1e-7``; float16: ``1e-3, 1e-5``; bfloat16: ``1.6e-2, 1e-5``;
    others ``0, 0``).  ``msg`` replaces the message (a string) or rewrites it (a callable).
    Failures raise ``AssertionError`` with PyTorch's text (``torch.testing.assert_close``,
    ``torch/testing/_comparison.py``)."""
    __tracebackhide__ = True
    error_metas = not_close_error_metas(
        actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
        check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
        check_stride=check_stride, msg=msg)
    if error_metas:
        raise error_metas[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated form of :func:`assert_close` (with a ``FutureWarning``): non-tensors become
    tensors, dtypes may differ, NaNs compare equal by default, and the default tolerances are
    looser (float32: ``1e-4, 1e-5``; float64: ``1e-5, 1e-8``; float16: ``1e-3, 1e-3``)
    (``torch.testing.assert_allclose``, ``torch/testing/_comparison.py``)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
        "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
        "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            _dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5), _dtype.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)

