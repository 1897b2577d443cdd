"""Backward nodes: the objects behind ``tensor.grad_fn`` (chapter 02 teaches them).

Mirrors ``torch/csrc/autograd/function.h`` (``Node``), ``saved_variable.cpp``
(``SavedVariable``) and ``functions/accumulate_grad.cpp``.
"""
import itertools
from collections import OrderedDict
import math
import weakref

from .._device import array_module_of
from .._naming import TorchNamed
from ..utils.hooks import RemovableHandle
from .grad_mode import _GradState

__all__ = ["Node", "AccumulateGrad", "gradient_edge"]
__seams__ = ("forward_watcher", "exclusively_owned", "modified_message", "clone_grad")

forward_watcher = None  # Seam: anomaly mode's forward stacks (nnref/autograd/anomaly_mode.py)


# Seam: may AccumulateGrad adopt the buffer? The mirror counts references (nnref/autograd/graph.py).
def exclusively_owned(grad):
    return False


# Seam: the mirror names the tensor and its op, in PyTorch's words (nnref/autograd/graph.py).
def modified_message(saved, node):
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: it is at version {saved.tensor._version_counter[0]}; expected "
            f"version {saved.version} instead")


# Seam: the mirror's copy is row-major, as PyTorch's clone_obey_contract (nnref/autograd/graph.py).
def clone_grad(grad):
    return grad.clone()


_sequence_numbers = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved (``SavedVariable``)."""

    __slots__ = ("tensor", "version", "is_output", "output_nr")

    def __init__(self, tensor, is_output):
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`.")
        # An output is saved without its grad_fn, so node -> tensor -> node is no reference cycle.
        self.tensor = tensor._alias_without_history() if is_output else tensor
        self.version = tensor._version_counter[0]
        self.is_output = is_output
        self.output_nr = tensor._output_nr

    def unpack(self, node):
        tensor = self.tensor
        if tensor._version_counter[0] != self.version:
            raise RuntimeError(modified_message(self, node))
        if self.is_output and node._graph_output_requires_grad:
            tensor = tensor._alias_with_grad_fn(node)
            tensor._output_nr = self.output_nr  # which output of a multi-output node (eigh's vectors: 1)
        return tensor


class Node(metaclass=TorchNamed):
    """One backward function of the graph: subclasses implement ``backward(*grad_outputs)``,
    one gradient per forward input (``None`` where none is needed); the engine calls ``apply``."""

    __slots__ = ("next_functions", "_input_metadata", "_sequence_nr", "_saved", "_pre_hooks",
                 "_post_hooks", "_tensor_pre_hooks", "_retains_grad_hooks", "metadata",
                 "_graph_output_requires_grad", "_no_edge", "__dict__", "__weakref__")
    num_outputs = 1
    # PyTorch's nodes for TensorList inputs (cat, stack) return a gradient for every tensor.
    _all_gradients = False

    def __init__(self, inputs, saved=(), **fields):
        """Edges to ``inputs``, the tensors ``saved`` for backward (each with its version now),
        and ``fields``: the plain values the derivative needs (``alpha``, ``dim``, sizes...)."""
        self._sequence_nr = next(_sequence_numbers)
        # Lists, not generators, inside tuple(): nodes are made on every op, and a list is faster.
        self.next_functions = tuple([gradient_edge(t) for t in inputs])
        # Shape/dtype/device of each input, so the engine can reduce broadcast gradients back to it.
        self._input_metadata = tuple([
            (t._data.shape, t._dtype, t._device) if edge[0] is not None else None
            for t, edge in zip(inputs, self.next_functions)])
        # Inputs without an edge get None from apply, as PyTorch's nodes skip inputs that need no
        # gradient.  Checked once here, with a test in C: nodes are made on every op.
        self._no_edge = (None, 0) in self.next_functions and not self._all_gradients
        self._saved = tuple([None if t is None else SavedTensor(t, False) for t in saved])
        self._pre_hooks = None
        self._post_hooks = None
        self._tensor_pre_hooks = None
        self._retains_grad_hooks = None
        self._graph_output_requires_grad = False
        if fields:
            self.__dict__ = fields  # a fresh dict each call: adopting it saves a copy per op
        if forward_watcher is not None:
            forward_watcher(self)

    @property
    def needs_input_grad(self):
        """Which inputs want a gradient (as ``ctx.needs_input_grad`` of a custom Function)."""
        return tuple([node is not None for node, _ in self.next_functions])

    # -- what PyTorch's Python API offers on a grad_fn ------------------------------------------
    def name(self):
        """The class name, as in ``grad_fn.name()``."""
        return type(self).__name__

    def __repr__(self):
        # The class name, not name(): PyTorch prints <AccumulateGrad object at ...>.
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __call__(self, *grad_outputs):
        """``grad_fn(grad)``: the input gradients, a lone one unwrapped (PyTorch's ``THPCppFunction_call``)."""
        if len(grad_outputs) != self.num_outputs:
            raise TypeError(f"expected {self.num_outputs} arguments, got {len(grad_outputs)} instead")
        grads = self.apply(*grad_outputs)
        return grads[0] if len(grads) == 1 else grads

    def apply(self, *grad_outputs):
        """The input gradients as a tuple, from ``backward`` (the engine calls ``Node::apply``)."""
        grads = self.backward(*grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        if self._no_edge and len(grads) == len(self.next_functions):
            grads = tuple([None if node is None else grad
                           for grad, (node, _) in zip(grads, self.next_functions)])
        return grads

    def backward(self, *grad_outputs):
        """Each node class defines it: the gradients of its inputs from those of its outputs
        (the formulas of ``tools/autograd/derivatives.yaml``)."""
        raise NotImplementedError(f"{self.name()} does not implement backward")

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node; a returned tuple replaces grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = OrderedDict()
        return RemovableHandle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node; a returned tuple replaces grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = OrderedDict()
        return RemovableHandle(self._pre_hooks, hook)

    # -- saved tensors --------------------------------------------------------------------------
    def save_result(self, out):
        """Keep the op's own output for backward (``exp``, ``tanh``, ``sigmoid`` ... reuse it)."""
        self._saved = self._saved + (SavedTensor(out, True),)
        self._graph_output_requires_grad = True

    @property
    def saved_tensors(self):
        """The tensors the op saved for backward, checked against in-place changes; raises once
        backward has freed them (``SavedVariable::unpack``, ``torch/csrc/autograd/saved_variable.cpp``)."""
        if self._saved is None:
            raise RuntimeError(FREED_MESSAGE)
        return tuple([None if s is None else s.unpack(self) for s in self._saved])

    def release_variables(self):
        """Drop saved tensors after backward (unless ``retain_graph=True``)."""
        if self._saved:
            self._saved = None

    # -- tensor hooks live on the node of the tensor's output slot --------------------------------
    def _register_tensor_pre_hook(self, output_nr, hook):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return RemovableHandle(self._tensor_pre_hooks.setdefault(output_nr, OrderedDict()), hook)

    def _set_retains_grad_hook(self, output_nr, tensor):
        if self._retains_grad_hooks is None:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = weakref.ref(tensor)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self._sequence_nr = math.inf  # PyTorch runs accumulators as soon as they are ready
        self.next_functions = ()
        self._input_metadata = ()
        self._saved = ()
        self._pre_hooks = self._post_hooks = self._tensor_pre_hooks = None
        self._retains_grad_hooks = None
        self._graph_output_requires_grad = False
        self._no_edge = False
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def apply(self, grad):
        """Mirrors ``AccumulateGrad::accumulateGrad``: under ``create_graph=True`` (grad mode on)
        ``.grad`` is *replaced* by a new tensor that keeps the graph; otherwise the first gradient
        is adopted or copied and later ones are added in place."""
        variable = self.variable
        if variable._grad is None:
            if not _GradState.enabled and exclusively_owned(grad):
                # Nobody else can see this buffer: adopt it (as PyTorch, not as a view: a view's
                # base is held by nothing else either, so the view simply forgets it).
                grad._base = None
                variable._grad = grad
            elif _GradState.enabled and grad.requires_grad:
                empty = grad._make(array_module_of(grad._data).empty_like(grad._data), grad._device)
                variable.grad = empty.copy_(grad)  # recorded: grad_fn=<CopyBackwards>
            else:
                variable.grad = clone_grad(grad)
        elif _GradState.enabled:
            variable.grad = variable.grad + grad  # a new tensor: whoever held the old one keeps it
        else:
            variable.grad._accumulate_(grad)
        hooks = variable.__dict__.get("_post_accumulate_grad_hooks")
        if hooks:
            for hook in tuple(hooks.values()):
                returned = hook(variable)
                if returned is not None:  # PyTorch's words (it expects None)
                    raise TypeError(f"expected Variable, but hook returned '{type(returned).__name__}'")
        return ()


def gradient_edge(tensor):
    """``(node, input_nr)`` that receives this tensor's gradient, ``(None, 0)`` if none is needed."""
    if tensor is None:
        return (None, 0)
    if tensor._base is not None and tensor._view_version != tensor._version_counter[0]:
        tensor._refresh_view_grad_fn()  # what reading tensor.grad_fn does, without the property
    node = tensor._grad_fn
    if node is not None:
        return (node, tensor._output_nr)
    if tensor._requires_grad:
        return (tensor._grad_accumulator(), 0)
    return (None, 0)
