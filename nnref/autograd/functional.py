"""Higher-level derivatives of a function: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``
and ``hvp`` (``torch/autograd/functional.py``), built on :func:`nnref.autograd.grad`.

As in PyTorch, ``jvp`` and ``hvp`` use the double-backward trick (a backward pass through a
backward pass) in place of forward-mode AD.  ``vectorize=True`` takes the vector-Jacobian products one
basis row at a time where PyTorch batches them with vmap (same values and structure);
``strategy="forward-mode"`` needs forward-mode AD, which nnref lacks: after PyTorch's own
argument errors it raises ``NotImplementedError`` saying so.
"""
from ..core.autograd.engine import grad
from ..core.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

# This module loads with nnref.autograd, which _tensor imports before Tensor exists: the
# tensor-level names are imported inside the functions that use them, once all have loaded.


def _as_tuple(inp, arg_name, fn_name):
    """``(was it a tuple?, the inputs as a tuple)``, refusing what is not a tensor."""
    from ..core._tensor import Tensor  # noqa: PLC0415 - see the note above
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}" if is_inp_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but {where}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Unwrap the one-element tuples that stand for a lone tensor given by the user; a pair
    ``to_unpack`` unwraps two levels (outputs, then inputs) of a nested result."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensors to differentiate with respect to: a view keeps the user's graph when
    ``create_graph`` asks for it, otherwise a detached copy that ``need_graph`` decides."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    from ..core._tensor import Tensor  # noqa: PLC0415 - see the note above
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got "
                               f"{el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    """In strict mode, refuse an output (or derivative) that does not depend on the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i} is "
                    "independent of the input. This is not allowed in strict mode. You should ensure "
                    "that your function is thrice differentiable and that the hessian depends on the "
                    "inputs.")
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided function "
                    f"with respect to input {i} is independent of the input. This is not allowed in "
                    "strict mode. You should ensure that your function is twice differentiable and "
                    "that the jacobian depends on the inputs (this would be violated by a linear "
                    "function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs "
                                   "of the user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The outputs "
                "must be computed in a differentiable manner from the input when running in strict "
                "mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``grad`` over the outputs that require grad only, unused inputs giving ``None``."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    new_outputs, new_grad_outputs = zip(*kept)
    return grad(new_outputs, inputs, new_grad_outputs, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is "
                   "not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in "
                         "the grad_jacobian. This is not allowed in strict mode as it prevents from "
                         "using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for the ``None`` gradients of unused inputs (refused in strict mode)."""
    from .._creation import zeros_like  # noqa: PLC0415
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            grads_i = zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode when create_graph=True.")
        res += (grads_i,)
    return res


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product of ``func`` at ``inputs``; ``v``
    may be omitted for a one-element output (``torch.autograd.functional.vjp``,
    ``torch/autograd/functional.py``)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a "
                               "single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick (the
    vjp's graph differentiated with respect to its zero ``grad_outputs``)
    (``torch.autograd.functional.jvp``, ``torch/autograd/functional.py``)."""
    from .._creation import zeros_like  # noqa: PLC0415
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def _construct_standard_basis_for(tensors, tensor_numels):
    """One block of the identity per tensor: stacked, the rows are the unit vectors of all the
    tensors' elements together."""
    total_numel = sum(tensor_numels)
    chunks = tuple(tensor.new_zeros(total_numel, numel) for tensor, numel in zip(tensors, tensor_numels))
    diag_start_idx = 0
    for chunk, numel in zip(chunks, tensor_numels):
        chunk.diagonal(diag_start_idx).fill_(1)
        diag_start_idx -= numel
    return chunks


def _vectorized_jacobian(inputs, outputs, create_graph):
    """Every output element's gradient, one basis row at a time where PyTorch batches them with
    vmap (``is_grads_batched=True``): the same products, so the same values."""
    from .._creation import zeros_like  # noqa: PLC0415
    from .._ops.shape import stack  # noqa: PLC0415
    output_numels = tuple(output.numel() for output in outputs)
    grad_outputs = _construct_standard_basis_for(outputs, output_numels)
    flat_outputs = tuple(output.reshape(-1) for output in outputs)
    rows = [_autograd_grad(flat_outputs, inputs, tuple(chunk[r] for chunk in grad_outputs),
                           create_graph=create_graph, retain_graph=True)
            for r in range(sum(output_numels))]
    jacobian_input_output = []
    for el_idx, input_i in enumerate(inputs):
        column = [row[el_idx] for row in rows]
        if any(vj is None for vj in column):  # an input no output uses: all its rows are None
            jac_input_i = zeros_like(input_i).expand((sum(output_numels),) + tuple(input_i.shape))
        else:
            jac_input_i = stack(column, dim=0)
        jacobian_input_output.append([jac.view(tuple(output_j.shape) + tuple(input_i.shape))
                                      for jac, output_j in zip(jac_input_i.split(output_numels, dim=0),
                                                               outputs)])
    return tuple(zip(*jacobian_input_output))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j`` a tensor of shape
    ``output_i.shape + input_j.shape``, nested as PyTorch nests it (a lone tensor where the user
    gave one).  ``vectorize=True`` computes the rows one after the other (PyTorch uses vmap);
    ``strategy="forward-mode"`` raises ``NotImplementedError`` (nnref has no forward-mode AD)
    after PyTorch's argument checks (``torch.autograd.functional.jacobian``,
    ``torch/autograd/functional.py``)."""
    from .._creation import zeros_like  # noqa: PLC0415
    from .._ops.shape import stack  # noqa: PLC0415
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                             "your function has more outputs than inputs, \"forward-mode\" tends to be "
                             'more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                'not supported together (yet). Please either set `strict=False` or '
                '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian isonly implemented for `vectorize=True`.")
        raise NotImplementedError(
            'nnref has no forward-mode AD, so jacobian(strategy="forward-mode") and '
            'hessian(outer_jacobian_strategy="forward-mode") are not available; strategy="reverse-mode" '
            "gives the same values (PyTorch's forward-mode result is nested in lists and keeps a graph "
            "to inputs that require grad).")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                              "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                    "supported together. Please either set `strict=False` or `vectorize=False`.")
            result = _grad_postprocess(_vectorized_jacobian(inputs, outputs, create_graph), create_graph)
            return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))
        result = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            for j in range(out.nelement()):
                vj = _autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                f"The jacobian of the user-provided function is independent of input "
                                f"{i}. This is not allowed in strict mode when create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                               f"of input {el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(zeros_like(inp_el))
            result += (tuple(stack(jac_i_el, dim=0).view(tuple(out.size()) + tuple(inputs[el_idx].size()))
                             for el_idx, jac_i_el in enumerate(jac_i)),)
        result = _grad_postprocess(result, create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with a one-element output: the Jacobian of its Jacobian, of
    shape ``input_i.shape + input_j.shape`` for each pair of inputs
    (``torch.autograd.functional.hessian``, ``torch/autograd/functional.py``)."""
    from ..core._tensor import Tensor  # noqa: PLC0415 - see the note above
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a "
                               "single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_output(outputs, is_outputs_tuple, fn_name):
    from ..core._tensor import Tensor  # noqa: PLC0415 - see the note above
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a "
                           "single element")


def _hessian_product_inputs(func, inputs, v, create_graph, strict, fn_name):
    """The steps ``vhp`` and ``hvp`` share: checked inputs and ``v``, the output, its gradient."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function "
                           "is a single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _single_output(outputs, is_outputs_tuple, fn_name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: the vector-Hessian product of a one-element function
    (``torch.autograd.functional.vhp``, ``torch/autograd/functional.py``)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_inputs(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: the Hessian-vector product of a one-element function, by the
    double-backward trick (``torch.autograd.functional.hvp``, ``torch/autograd/functional.py``)."""
    from .._creation import zeros_like  # noqa: PLC0415
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_inputs(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)

