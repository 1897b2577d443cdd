"""The backward engine: order the graph, run each node once, route gradients.

Mirrors ``torch/csrc/autograd/engine.cpp``; chapter 03 teaches it.  Iterative, so a chain of
10,000 ops is fine: count the edges into each node, then run a node once all of them have
delivered, the most recently created first, with its hooks in PyTorch's order (chapter 04).
"""
import heapq
import itertools

import numpy as np

from .._device import array_module_of
from .._tensor import Tensor, bind
from .grad_mode import _GradState
from .graph import gradient_edge

__all__ = ["backward", "grad", "run_backward"]
__seams__ = ("gradient_checker", "profiler", "check_hook_result", "reduce_to_input", "run_pass")

gradient_checker = None  # Seam: anomaly mode's NaN check (nnref/autograd/anomaly_mode.py)
profiler = None  # Seam: times each node while profiling (nnref/autograd/profiler.py)


# Seam: PyTorch's checks of what a hook returned, its messages (nnref/autograd/_hook_checks.py).
def check_hook_result(hook, original, result):
    return None


# Seam: the mirror also checks device and shape, in PyTorch's words (nnref/autograd/_engine.py).
def reduce_to_input(grad, metadata, node, index):
    return grad.sum_to_size(metadata[0]).to(metadata[1])


class _GraphRoot:
    """The node the engine starts from; it hands the root gradients to the roots' edges."""

    _sequence_nr = float("inf")

    def __init__(self, edges):
        self.next_functions = tuple(edges)


def _dependencies(root):
    """Number of edges entering each node reachable from ``root``."""
    ### BEGIN SOLUTION task=engine.dependencies points=3 chapter=03_backward
    counts = {}
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            counts[child] = counts.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return counts
    ### END SOLUTION


def _needed_nodes(root, targets):
    """Nodes lying on a path from ``root`` to one of ``targets`` (the ``inputs=`` of grad/backward)."""
    needed = set()
    # Iterative post-order: a node is needed if it is a target or leads to a needed node.
    stack = [(root, False)]
    visited = set()
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if node in targets or any(c in needed for c, _ in node.next_functions):
                needed.add(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        stack.extend((c, False) for c, _ in node.next_functions if c is not None and c not in visited)
    return needed


def _call_tensor_pre_hooks(node, grads):
    if node._tensor_pre_hooks:
        for output_nr, hooks in node._tensor_pre_hooks.items():
            for hook in tuple(hooks.values()):
                replaced = hook(grads[output_nr])
                if replaced is not None:
                    check_hook_result(hook, (grads[output_nr],), (replaced,))
                    grads[output_nr] = replaced
    variable = getattr(node, "variable", None)
    if variable is not None and variable._backward_hooks:
        for hook in tuple(variable._backward_hooks.values()):
            replaced = hook(grads[0])
            if replaced is not None:
                check_hook_result(hook, (grads[0],), (replaced,))
                grads[0] = replaced
    if node._retains_grad_hooks:
        # PyTorch 2.x runs these after every other tensor hook, so .grad sees the hooked value.
        for output_nr, tensor_ref in node._retains_grad_hooks.items():
            tensor = tensor_ref()
            if tensor is not None and grads[output_nr] is not None:
                tensor._retain_incoming_grad(grads[output_nr])
    return grads


def _call_pre_hooks(node, grads):
    for hook in tuple(node._pre_hooks.values()):
        replaced = hook(tuple(grads))
        if replaced is not None:
            check_hook_result(hook, tuple(grads), replaced)
            grads = list(replaced)
    return grads


def _call_post_hooks(node, grad_inputs, grad_outputs):
    grad_inputs = tuple(grad_inputs)
    for hook in tuple(node._post_hooks.values()):
        replaced = hook(grad_inputs, tuple(grad_outputs))
        if replaced is not None:
            check_hook_result(hook, grad_inputs, replaced)
            grad_inputs = replaced
    return grad_inputs


def run_backward(roots, root_grads, keep_graph, create_graph, inputs=None, accumulate_grad=True):
    """Backpropagate ``root_grads`` from the ``roots`` tensors into the leaves' ``.grad``, or,
    without ``accumulate_grad`` (``autograd.grad``), return the gradients reaching ``inputs``."""
    graph_root = _GraphRoot(gradient_edge(t) for t in roots)
    dependencies = _dependencies(graph_root)
    graph_root.num_outputs = len(graph_root.next_functions)
    targets = None if inputs is None else _Targets(graph_root, inputs, accumulate_grad)

    buffers = {graph_root: list(root_grads)}
    # Ties (every AccumulateGrad has the same infinite sequence number) go first-in first-out,
    # so the order hooks fire in is the same on every run, as in PyTorch.
    pushes = itertools.count(1)
    ready = [(0, 0, graph_root)]
    previous_mode = _GradState.enabled
    _GradState.enabled = create_graph
    try:
        # Gradient formulas meet 0 * inf and 1 / 0 at the edges of their domains; PyTorch gives
        # nan/inf there without warnings, so numpy is told to stay quiet for the whole pass.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            while ready:
                node = heapq.heappop(ready)[2]
                grads = buffers.pop(node)
                if node is graph_root:
                    grad_inputs = grads
                else:
                    grads = _call_tensor_pre_hooks(node, grads)
                    if targets is not None and targets.capture_and_skip(node, grads):
                        continue
                    if profiler is None:
                        grad_inputs = _run_node(node, grads, keep_graph)
                    else:  # inside profiler.profile(): recorded as PyTorch's engine records it
                        grad_inputs = profiler.node(node, _run_node, grads, keep_graph)
                del grads
                for child in _route(node, grad_inputs, buffers, dependencies, targets):
                    heapq.heappush(ready, (-child._sequence_nr, next(pushes), child))
                del grad_inputs  # nothing here may keep a gradient an accumulator could adopt
    finally:
        _GradState.enabled = previous_mode
    return [] if targets is None else targets.captured


class _Targets:
    """What ``inputs=`` asks of a pass (``exec_info_`` of ``torch/csrc/autograd/graph_task.h``):
    only nodes on a path to an input run; ``autograd.grad`` captures the gradient arriving at each
    input's node, ``backward(inputs=...)`` runs that node (AccumulateGrad, or a ``retain_grad``)."""

    def __init__(self, graph_root, inputs, accumulate_grad):
        self.captures = {}  # (node, slot) -> positions in the result
        self.run = set()  # input nodes run for backward(inputs=...)
        for position, tensor in enumerate(inputs):
            node, slot = gradient_edge(tensor)
            if node is None:
                continue
            if accumulate_grad:
                self.run.add(node)
            else:
                self.captures.setdefault((node, slot), []).append(position)
        self.needed = _needed_nodes(graph_root, self.run | {node for node, _ in self.captures})
        self.captured = [None] * len(inputs)

    def capture_and_skip(self, node, grads):
        """Capture ``node``'s incoming gradients if asked; True when that was its only purpose."""
        for slot in range(node.num_outputs) if self.captures else ():
            for position in self.captures.get((node, slot), ()):
                self.captured[position] = grads[slot]
        return node not in self.run and not any(child in self.needed
                                                for child, _ in node.next_functions)


def _route(node, grad_inputs, buffers, dependencies, targets):
    """Add each gradient into the buffer of the node it flows to; return the nodes that became
    ready (every edge into them delivered, so a tensor used twice passes on the sum)."""
    ready = []
    for (child, slot), grad in zip(node.next_functions, grad_inputs):
        if child is None or (targets is not None and child not in targets.needed):
            continue
        buffer = buffers.get(child)
        if buffer is None:
            buffer = buffers[child] = [None] * child.num_outputs
        if grad is not None:
            buffer[slot] = grad if buffer[slot] is None else buffer[slot] + grad
        waiting = dependencies[child] - 1
        dependencies[child] = waiting
        if waiting == 0:
            ready.append(child)
    return ready


def _run_node(node, grads, keep_graph):
    """Pre-hooks, the node's backward, output validation, post-hooks (``call_function``).
    Post-hooks see the gradients summed back to each input's shape, and the incoming ones as they
    came (``None`` where an output received none), as in PyTorch."""
    if node._pre_hooks:
        grads = _call_pre_hooks(node, grads)
    if grads[0] is None and all(g is None for g in grads):
        grad_inputs = (None,) * len(node.next_functions)
    else:
        grad_outputs = tuple(grads) if node._post_hooks else None
        arguments = tuple(grads)
        if node.num_outputs > 1 and any(g is None for g in arguments):  # zeros for the missing
            arguments = tuple(g if g is not None else node._zeros_for_output(i)
                              for i, g in enumerate(arguments))
        grads.clear()  # the buffer list is the caller's too: empty it, so that ...
        if profiler is None:  # ... AccumulateGrad may adopt a gradient no one else holds
            grad_inputs = node.apply(*arguments)
        else:
            grad_inputs = profiler.apply(node, arguments)
        del arguments
        grad_inputs = _validate_outputs(node, grad_inputs)
        if gradient_checker is not None:
            gradient_checker(node, grad_inputs)
        if node._post_hooks:
            grad_inputs = _call_post_hooks(node, grad_inputs, grad_outputs)
    if not keep_graph:
        node.release_variables()
    return grad_inputs


def _validate_outputs(node, grad_inputs):
    """One gradient per input, each summed down to its input's shape and dtype (``validate_outputs``)."""
    if len(grad_inputs) != len(node.next_functions):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node.next_functions)}, got {len(grad_inputs)})")
    for index, (grad, metadata) in enumerate(zip(grad_inputs, node._input_metadata)):
        if grad is not None and metadata is not None and (
                grad._data.shape != metadata[0] or grad._dtype is not metadata[1]
                or (grad._device is not metadata[2] and grad._device != metadata[2])):
            grad_inputs = list(grad_inputs)
            grad_inputs[index] = reduce_to_input(grad, metadata, node, index)
    return grad_inputs


# Seam: the mirror adds backward()'s checks and queue_callback (nnref/autograd/_engine.py).
run_pass = run_backward


# -- where a backward pass starts (torch/autograd/__init__.py) ------------------------------
def _as_list(x):
    if x is None:
        return None
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _root_gradients(outputs, grad_outputs):
    """The gradient each root starts with: ``1`` for scalars, else it must be given."""
    grads = [None] * len(outputs) if grad_outputs is None else _as_list(grad_outputs)
    if len(grads) < len(outputs):  # extra ones are ignored: PyTorch's _make_grads zips the two
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               "grad_fn. Did you forget requires_grad=True on an input, or compute "
                               "it under no_grad()?")
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs; this output has shape "
                    f"{list(out.shape)}. Pass gradient= (a tensor of that shape, e.g. "
                    "torch.ones_like(out)) or reduce it first (out.sum()).")
            grads[i] = Tensor._make(array_module_of(out._data).ones_like(out._data), out._device)
        elif g._data.shape != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
    return grads[:len(outputs)]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    outputs = _as_list(tensors)
    roots = _root_gradients(outputs, grad_tensors)
    retain_graph = create_graph if retain_graph is None else retain_graph
    inputs = _as_list(inputs)
    for tensor in inputs or ():
        if tensor.grad_fn is not None:
            tensor.retain_grad()  # a non-leaf input gets its .grad the way retain_grad gives it
    run_pass(outputs, roots, retain_graph, create_graph, inputs=inputs, accumulate_grad=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; ``.grad`` fields are left alone."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    roots = _root_gradients(outputs, grad_outputs)
    retain_graph = create_graph if retain_graph is None else retain_graph
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    captured = run_pass(outputs, roots, retain_graph, create_graph, inputs=inputs,
                        accumulate_grad=False)
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                captured[i] = Tensor._make(array_module_of(t._data).zeros_like(t._data), t._device)
    return tuple(captured)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see :func:`backward`)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


bind(backward=_tensor_backward)
