"""How full backward hooks see a module's own gradients (chapter 09): ``BackwardHook`` in
``torch/utils/hooks.py`` and ``BackwardHookFunction`` in ``torch/nn/modules/_functions.py``.

``Module._call_impl`` passes the inputs, and later the outputs, through an identity Function:
the output node stores ``grad_output``, the input node calls the user's hooks with both.
"""
import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

__all__ = ["BackwardHook", "BackwardHookFunction"]
__seams__ = ("_stacklevel_of_backward_call",)


# Seam: the .backward() call's stacklevel; nnref/nn/modules/module.py counts the engine's frames.
def _stacklevel_of_backward_call():
    return 2


class BackwardHookFunction(Function):
    """Identity on tensors; its node (``BackwardHookFunctionBackward``) is where the hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        # Mark fresh aliases: Function.apply swaps a returned input for a new alias before it
        # reads mark_non_differentiable, so marking the input itself would be lost.
        args = tuple(arg if arg.requires_grad else arg.detach() for arg in args)
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """Calls a module's full backward (pre-)hooks with the gradients of its inputs and outputs.

    One instance per call; non-tensor arguments are not wrapped and reach the hooks as ``None``.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module

        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the outputs
                # (double backward, for instance): there is no grad_output to pair it with.
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)

            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out

            self.grad_outputs = None
            return tuple(res[idx] for idx in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        """Pass the tensors among ``args`` through the identity Function and hand its node to ``fn``."""
        tensors_idx = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None

        new_tensors = BackwardHookFunction.apply(*tensors)
        # The tensors that require grad now come out of the identity node; the others are detached.
        fn(next(t.grad_fn for t in new_tensors if t.grad_fn is not None))

        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)  # or a namedtuple
        return out, tensors_idx

    def setup_input_hook(self, args):
        """Wrap the module's inputs; their node will call the user hooks."""
        res, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, args):
        """Wrap the module's outputs; their node records ``grad_output`` and runs the pre-hooks."""
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)

                expected_len = len(self.grad_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                    if hook_grad_outputs is None:
                        continue
                    actual_len = len(hook_grad_outputs)
                    if actual_len != expected_len:
                        raise RuntimeError("Backward pre hook returned an invalid number of "
                                           f"grad_output, got {actual_len}, but expected "
                                           f"{expected_len}")
                    self.grad_outputs = hook_grad_outputs

                # Kept apart because the no-input case below clears self.grad_outputs.
                local_grad_outputs = self.grad_outputs

                # No input requires grad: there will be no input node, so call the hooks now.
                if self.input_tensors_index is None:
                    warnings.warn("Full backward hook is firing when gradients are computed with "
                                  "respect to module outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.",
                                  stacklevel=_stacklevel_of_backward_call())
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires "
                                               "gradient should always return None or None for all "
                                               "gradients.")
                    self.grad_outputs = None

                return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)

        res, self.output_tensors_index = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]
