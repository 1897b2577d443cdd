"""``nnref.autograd.profiler``: where a program spends its time, op by op
(``torch/autograd/profiler.py`` and ``torch/autograd/profiler_util.py``).

``with profile() as prof: ...`` records every op the block runs (``aten::addmm``, ``aten::relu``,
...), each ``record_function`` range, and, in the backward pass, each node the engine evaluates
(``autograd::engine::evaluate_function: AddmmBackward0`` around ``AddmmBackward0`` around the
ops its backward runs), with its start and end time, its nesting, and with ``record_shapes=True``
the shapes of its arguments.  ``prof.key_averages().table(sort_by=..., row_limit=...)`` prints
PyTorch's table (its columns, widths and time formats: ``_build_table`` of
``profiler_util.py``); ``export_chrome_trace(path)`` writes the Chrome trace JSON that
chrome://tracing and https://ui.perfetto.dev open.

How ops are seen.  PyTorch's dispatcher calls the profiler for every ATen op.  nnref has no
dispatcher, so while a profile is active its op functions are *replaced*: the Tensor methods
and operators, and the functions of ``nnref``, ``nnref.linalg``, ``nnref.nn.functional`` (and
the names the ``nn`` modules and optimizers imported from them) become timing wrappers, and the
originals come back when the last profile ends.  Outside a profile nothing is wrapped, so the
profiler costs nothing; the engine checks one class attribute per node.  An op is named after
the Python function called (``aten::linear``, ``aten::cross_entropy``), not after ATen's own
decomposition (PyTorch's ``aten::linear`` shows ``aten::t`` and ``aten::addmm`` inside it; nnref's
shows the ops ``linear`` calls through those namespaces only), and recorded shapes are those of
the arguments given (PyTorch lists every argument of the op's schema).  Times are those of
numpy, so they say where *nnref* spends its time.
"""
import functools
import inspect
import json
import os
import sys
import threading
import time
from collections import OrderedDict

from .._namespace import public_dir
from ..core._seams import install
from ..core._tensor import Tensor
from ..core.autograd import engine
from ..core.optim.optimizer import Optimizer

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class _Profiling:
    """The active recorder, checked by the wrappers (``None``: not profiling); the core's engine
    gets it through its ``profiler`` seam."""

    recorder = None


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------

def _format_time(time_us):
    """PyTorch's ``_format_time``: seconds, milliseconds or microseconds, three decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


class _FormattedTimesMixin:
    """The ``*_str`` forms of the times, as ``profiler_util.py``'s mixin gives them."""

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time(self):
        """The average time of one call, in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count


class FunctionEvent(_FormattedTimesMixin):
    """One recorded call: an op, a ``record_function`` range or a backward node, with its start
    and end (microseconds since the profile began), its parent and children, and its input
    shapes (``torch.autograd.profiler_util.FunctionEvent``)."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, *, is_user_annotation=False):
        self.id, self.name, self.thread = id, name, thread
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children, self.cpu_parent = [], None
        self.count = 1
        self.is_async, self.is_legacy, self.node_id, self.stack = is_async, False, node_id, stack or []
        self.overload_name = overload_name or ""

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        """Microseconds from the call's start to its end, children included."""
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        """``cpu_time_total`` less that of the calls made inside it."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} "
                f"cpu_children={[child.id for child in self.cpu_children]} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_FormattedTimesMixin):
    """The calls of one name (and shapes, when grouped by them) summed: their count and their
    total and self times (``torch.autograd.profiler_util.FunctionEventAvg``)."""

    def __init__(self):
        self.key, self.count, self.input_shapes, self.cpu_parent = None, 0, None, None
        self.cpu_time_total, self.self_cpu_time_total = 0.0, 0.0
        self.is_async, self.is_legacy, self.node_id, self.stack, self.overload_name = False, False, -1, [], ""
        self.is_user_annotation = False

    def add(self, other):
        """Fold ``other`` (an event or an average) into this average."""
        if self.key is None:
            self.key, self.input_shapes = other.key, other.input_shapes
            self.cpu_parent, self.is_user_annotation = other.cpu_parent, other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events with PyTorch's summaries: ``key_averages``, ``table``,
    ``export_chrome_trace`` (``torch.autograd.profiler_util.EventList``)."""

    def __init__(self, *args, **kwargs):
        kwargs.pop("use_device", None), kwargs.pop("profile_memory", None), kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self times, in microseconds."""
        return sum(event.self_cpu_time_total for event in self)

    def _build_tree(self):
        """Each event's parent and children from the time intervals, per thread
        (``_populate_cpu_children``): the recorder sets them as it goes; events made by hand
        (``FunctionEvent(...)``) get them here."""
        for event in self:
            event.cpu_children, event.cpu_parent = [], None
        ordered = sorted((event for event in self if not event.is_async),
                         key=lambda event: (event.thread, event.start_us, -event.end_us))
        open_events = []  # nested: each inside the ones below it
        for event in ordered:
            while open_events:
                parent = open_events[-1]
                if (parent.thread != event.thread or event.start_us >= parent.end_us
                        or event.end_us > parent.end_us):
                    open_events.pop()  # cannot hold this one
                else:
                    event.cpu_parent = parent
                    parent.cpu_children.append(event)
                    break
            open_events.append(event)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One :class:`FunctionEventAvg` per name (per name and input shapes when
        ``group_by_input_shapes``), in the order the names first appear."""
        if group_by_stack_n:
            raise NotImplementedError("nnref's profiler records no stacks: group_by_stack_n must be 0")
        averages = OrderedDict()
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            averages.setdefault(key, FunctionEventAvg()).add(event)
        result = EventList(averages.values())
        if not group_by_input_shapes:
            for average in result:
                average.input_shapes = None
        return result

    def total_average(self):
        """All the events folded into one average, named ``Total``."""
        total = FunctionEventAvg()
        for event in self:
            total.add(event)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """PyTorch's table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        # of Calls (and Input Shapes when recorded), sorted by ``sort_by`` (an attribute such as
        ``"cpu_time_total"`` or ``"self_cpu_time_total"``, largest first), ``row_limit`` rows."""
        return _build_table(self, sort_by, header, row_limit, max_name_column_width, max_shapes_column_width,
                            top_level_events_only, time_unit)

    def export_chrome_trace(self, path):
        """Write the events as Chrome trace JSON (complete events, ``"ph": "X"``), which
        chrome://tracing and Perfetto open."""
        pid = os.getpid()
        trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}}]
        for thread in sorted({event.thread for event in self}):
            trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": thread,
                          "args": {"name": f"thread {thread} (python)"}})
        for event in self:
            entry = {"ph": "X", "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                     "name": event.name, "pid": pid, "tid": event.thread, "ts": round(event.start_us, 3),
                     "dur": round(event.cpu_time_total, 3), "args": {}}
            if event.input_shapes:
                entry["args"]["Input Dims"] = event.input_shapes
            trace.append(entry)
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
                       "traceEvents": trace}, f, indent=1)


def _override_time_unit(time_us, default, time_unit):
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return default


def _build_table(events, sort_by, header, row_limit, max_name_column_width, max_shapes_column_width,
                 top_level_events_only, time_unit):
    """``_build_table`` of ``torch/autograd/profiler_util.py``, for CPU events."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(event.input_shapes for event in events)
    if sort_by is not None:
        events = sorted(events, key=lambda event: getattr(event, sort_by), reverse=True)
    name_width = max(len(event.key) for event in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * 6
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(width) + "}  " for width in widths)
    separator = "".join("-" * width + "  " for width in widths)
    line_length = sum(widths) + 2 * len(widths) - 2
    total_self = sum(event.self_cpu_time_total for event in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(event.self_cpu_time_total, total_self),
               _override_time_unit(event.self_cpu_time_total, event.self_cpu_time_total_str, time_unit),
               _format_time_share(event.cpu_time_total, total_self),
               _override_time_unit(event.cpu_time_total, event.cpu_time_total_str, time_unit),
               _override_time_unit(event.cpu_time, event.cpu_time_str, time_unit), event.count]
        if has_input_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines.append(separator)
    lines.append(f"Self CPU time total: {_override_time_unit(total_self, _format_time(total_self), time_unit)}")
    return "".join(line + "\n" for line in lines)


# --------------------------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------------------------

# Tensor classes that have no shape yet, so are recorded with ``[]``: nnref/nn/parameter.py
# registers its uninitialized (lazy) parameters and buffers, as the profiler cannot import nn.
_shapeless = ()


def _register_shapeless(cls):
    """Record tensors of ``cls`` (a Tensor subclass without a shape) with the shape ``[]``."""
    global _shapeless
    _shapeless += (cls,)


def _shapes(args, kwargs):
    """PyTorch's ``Input Shapes``: a tensor's sizes, ``[]`` for anything else."""
    return [list(a.shape) if isinstance(a, Tensor) and not isinstance(a, _shapeless) else []
            for a in list(args) + list(kwargs.values())]


class _Recorder:
    """The events of one profile: a stack of the open calls, and every call in start order."""

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.events, self.stack = [], []
        self.origin_ns = time.perf_counter_ns()

    def now_us(self):
        return (time.perf_counter_ns() - self.origin_ns) / 1000.0

    def begin(self, name, args=(), kwargs=None, is_user_annotation=False):
        shapes = _shapes(args, kwargs or {}) if self.record_shapes else None
        event = FunctionEvent(len(self.events), name, threading.get_ident(), 0.0, 0.0, input_shapes=shapes,
                              is_user_annotation=is_user_annotation)
        if self.stack:
            event.cpu_parent = self.stack[-1]
            self.stack[-1].cpu_children.append(event)
        self.stack.append(event)
        self.events.append(event)
        event.start_us = event.end_us = self.now_us()
        return event

    def end(self, event):
        event.end_us = self.now_us()
        if self.stack and self.stack[-1] is event:
            self.stack.pop()

    @staticmethod
    def _node_name(node):
        name = type(node).__name__
        return "torch::autograd::AccumulateGrad" if name == "AccumulateGrad" else name

    def node(self, node, run_node, *args):
        """The engine's evaluation of one backward node (hooks, the node, the checks of its
        gradients), as PyTorch's engine names it."""
        outer = self.begin(f"autograd::engine::evaluate_function: {self._node_name(node)}")
        try:
            return run_node(node, *args)
        finally:
            self.end(outer)

    def apply(self, node, arguments):
        """The node's own backward, inside its evaluation."""
        inner = self.begin(self._node_name(node), arguments)
        try:
            return node.apply(*arguments)
        finally:
            self.end(inner)


# Python's operators and the ATen ops PyTorch records for them.
_OPERATOR_NAMES = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub",
    "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
    "__rtruediv__": "div", "__itruediv__": "div_", "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__mod__": "remainder", "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not",
    "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne", "__getitem__": "index",
    "__setitem__": "index_put_",
}
# Tensor methods that are not ops: PyTorch's profiler does not see them either.
_NOT_OPS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "is_contiguous", "data_ptr", "storage_offset",
    "element_size", "tolist", "numpy", "type", "is_floating_point", "is_complex", "is_signed", "get_device",
    "register_hook", "register_post_accumulate_grad_hook", "backward", "retain_grad", "requires_grad_",
    "is_shared", "is_pinned", "is_inference", "is_set_to", "untyped_storage", "storage", "dim_order",
    "materialize", "type_as", "has_names", "share_memory_", "pin_memory", "is_conj", "is_neg",
})
# The namespaces whose functions are ops, and the modules whose imported copies of them are
# replaced too (so that nn.Linear's F.linear and an optimizer's ops are seen).
_OP_NAMESPACES = ("nnref", "nnref.linalg", "nnref.nn.functional", "nnref.special", "nnref.functional")
_CALLER_PREFIXES = ("nnref.nn.modules.", "nnref.optim.", "nnref.nn.functional", "nnref.linalg", "nnref.functional",
                    "nnref.core.nn.functional")
_OP_SOURCES = ("nnref._ops", "nnref._creation", "nnref.nn.functional", "nnref.linalg", "nnref.functional",
               "nnref.core._tensor", "nnref.core.nn.functional")


def _timed(fn, name):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        recorder = _Profiling.recorder
        if recorder is None:
            return fn(*args, **kwargs)
        event = recorder.begin(name, args, kwargs)
        try:
            return fn(*args, **kwargs)
        finally:
            recorder.end(event)
    op._profiled = fn
    return op


def _ranged(method, name):
    @functools.wraps(method)
    def ranged(self, *args, **kwargs):
        with record_function(f"Optimizer.{name}#{type(self).__name__}.{name}"):
            return method(self, *args, **kwargs)
    return ranged


def _is_op(fn):
    if not inspect.isfunction(fn) or hasattr(fn, "_profiled"):
        return False
    module = getattr(inspect.unwrap(fn), "__module__", "") or ""
    return module.startswith(_OP_SOURCES)


class _Patches:
    """The replaced attributes, so that the originals come back when profiling ends."""

    saved = []  # (owner, name, original)
    active = 0

    @classmethod
    def install(cls):
        cls.active += 1
        if cls.active > 1:
            return
        wrappers = {}

        def wrapper(fn, name):
            if id(fn) not in wrappers:
                wrappers[id(fn)] = (fn, _timed(fn, "aten::" + name))
            return wrappers[id(fn)][1]

        for name, value in list(vars(Tensor).items()):
            if name in _OPERATOR_NAMES:
                op_name = _OPERATOR_NAMES[name]
            elif name.startswith("_") or name in _NOT_OPS:
                continue
            else:
                op_name = name
            if _is_op(value):
                cls.saved.append((Tensor, name, value))
                setattr(Tensor, name, wrapper(value, op_name))
        for namespace in _OP_NAMESPACES:
            module = sys.modules.get(namespace)
            if module is None:
                continue
            public = getattr(module, "__all__", None) or [name for name in vars(module) if not name.startswith("_")]
            for name in public:
                value = getattr(module, name, None)
                if _is_op(value):
                    op_name = value.__name__ if value.__name__ != "<lambda>" else name
                    wrapper(value, op_name)
                    while hasattr(value, "__wrapped__"):  # the op under out= or numpy-name wrappers,
                        value = value.__wrapped__  # which the modules that imported it call
                        wrapper(value, op_name)
        for module_name, module in list(sys.modules.items()):
            if module is None or not (module_name in _OP_NAMESPACES or module_name.startswith(_CALLER_PREFIXES)):
                continue
            for name, value in list(vars(module).items()):
                if inspect.isfunction(value) and id(value) in wrappers:
                    cls.saved.append((module, name, value))
                    setattr(module, name, wrappers[id(value)][1])

        # PyTorch's optimizers record their step and zero_grad as ranges (Optimizer._patch_step_function);
        # nnref's optimizers, the mirror's included, all subclass the core's Optimizer.
        optimizers, pending = [], [Optimizer]
        while pending:
            optimizer = pending.pop()
            optimizers.append(optimizer)
            pending.extend(optimizer.__subclasses__())
        for optimizer in optimizers:
            for name in ("step", "zero_grad"):
                if inspect.isfunction(vars(optimizer).get(name)):
                    cls.saved.append((optimizer, name, vars(optimizer)[name]))
                    setattr(optimizer, name, _ranged(vars(optimizer)[name], name))

    @classmethod
    def remove(cls):
        cls.active -= 1
        if cls.active:
            return
        for owner, name, original in reversed(cls.saved):
            setattr(owner, name, original)
        cls.saved = []


# --------------------------------------------------------------------------------------------
# The context managers
# --------------------------------------------------------------------------------------------

class profile:
    """Record the ops run inside ``with profile() as prof:`` (``torch.autograd.profiler.profile``);
    ``prof.key_averages().table(...)`` summarises them, ``prof.export_chrome_trace(path)``
    writes a trace.  Only the CPU is profiled: ``use_cuda``/``use_device`` and
    ``profile_memory``, ``with_stack``, ``with_flops``, ``with_modules`` raise
    ``NotImplementedError`` when asked for."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        for flag, what in ((use_cuda or use_device not in (None, "cpu"), "device (CUDA) times"),
                           (profile_memory, "memory (profile_memory=True)"),
                           (with_stack, "stacks (with_stack=True)"), (with_flops, "FLOPs (with_flops=True)"),
                           (with_modules, "module hierarchies (with_modules=True)")):
            if flag:
                raise NotImplementedError(f"nnref's profiler records CPU times and shapes only, not {what}")
        if not use_cpu:
            raise NotImplementedError("nnref's profiler profiles the CPU: use_cpu must be True")
        self.enabled, self.record_shapes = enabled, record_shapes
        self.function_events = None
        self._recorder = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _Profiling.recorder is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._start()
        return self

    def _start(self):
        self._recorder = _Recorder(self.record_shapes)
        _Patches.install()
        _Profiling.recorder = self._recorder
        install(engine, "profiler", self._recorder)

    def _stop(self):
        _Profiling.recorder = None
        install(engine, "profiler", None)
        _Patches.remove()
        self.function_events = EventList(self._recorder.events)

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.enabled:
            return False
        self._stop()
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self):
        """Every recorded call, in start order."""
        self._check_finished()
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The calls averaged by name (and input shapes with ``group_by_input_shape``)."""
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The table of the recorded calls (not averaged): see :meth:`EventList.table`."""
        self._check_finished()
        return self.function_events.table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                          max_shapes_column_width, header, top_level_events_only, time_unit)

    def export_chrome_trace(self, path):
        """Write the Chrome trace JSON of the calls to ``path``."""
        self._check_finished()
        return self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        """The sum of the calls' self times, in microseconds."""
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    def __str__(self):
        self._check_finished()
        return str(self.function_events.key_averages().table())


class record_function:
    """A named range in the profile (``with record_function("forward"):``, or as a decorator):
    its row counts the time of everything run inside it (``torch.autograd.profiler.record_function``).
    Outside a profile it does nothing."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._event = None
        self._recorder = None

    def __enter__(self):
        self._recorder = _Profiling.recorder
        if self._recorder is not None:
            self._event = self._recorder.begin(self.name, is_user_annotation=True)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._event is not None:
            self._recorder.end(self._event)
            self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped


__dir__ = public_dir(globals(), __all__)
