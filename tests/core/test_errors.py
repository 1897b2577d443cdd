"""Bad input raises the same error *type* as PyTorch, with a message that helps.

Each case names the exception type (checked always) and a pattern the nnref
message must contain (what went wrong, and where useful how to fix it); when
PyTorch is installed, the same code must raise the same type there.
"""
import re
import warnings

import pytest

import nnref

try:
    import torch
except ImportError:
    torch = None


def leaf(m, *shape):
    return m.ones(*shape, requires_grad=True)


def second_backward(m):
    x = leaf(m, 2)
    y = (x * x).sum()
    y.backward()
    y.backward()


def inplace_on_leaf(m):
    leaf(m, 2).add_(1)


def saved_input_modified(m):
    x = leaf(m, 2)
    y = x * 1
    z = y * y
    y.mul_(2)
    z.sum().backward()


def saved_output_modified(m):
    y = leaf(m, 2).exp()
    y.add_(1)
    y.sum().backward()


def saved_leaf_modified(m):
    x = leaf(m, 2)
    y = x * x
    with m.no_grad():
        x.add_(1)
    y.sum().backward()


def non_scalar_backward(m):
    (leaf(m, 2) * 2).backward()


def unused_input(m):
    x, w = leaf(m, 2), leaf(m, 2)
    m.autograd.grad((x * 2).sum(), [x, w])


def grad_of_constant(m):
    m.autograd.grad((leaf(m, 2) * 2).sum(), [m.ones(2)])


def backward_without_graph(m):
    m.ones(2).sum().backward()


def wrong_gradient_shape(m):
    (leaf(m, 2) * 2).backward(m.ones(3))


CASES = {
    # shapes
    "matmul_mismatch": (lambda m: m.ones(2, 3) @ m.ones(2, 3), RuntimeError,
                        r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"),
    "matmul_batched_mismatch": (lambda m: m.ones(2, 2, 3) @ m.ones(2, 4, 2), RuntimeError,
                                r"\[2, 3\] but got: \[2, 4\]"),
    "matmul_batch_broadcast": (lambda m: m.ones(2, 2, 3) @ m.ones(3, 3, 2), RuntimeError,
                               r"size of tensor a \(2\) must match the size of tensor b \(3\)"),
    "matmul_0d": (lambda m: m.tensor(1.0) @ m.ones(2), RuntimeError, r"at least 1D"),
    "matmul_dtypes": (lambda m: m.ones(2, 2) @ m.ones(2, 2, dtype=m.float64), RuntimeError,
                      r"same dtype"),
    "mm_not_matrix": (lambda m: m.mm(m.ones(3), m.ones(3, 2)), RuntimeError, r"2-D|matrix"),
    "dot_mismatch": (lambda m: m.dot(m.ones(3), m.ones(4)), RuntimeError, r"inconsistent tensor size"),
    "mv_mismatch": (lambda m: m.mv(m.ones(2, 3), m.ones(2)), RuntimeError, r"size mismatch"),
    "bmm_mismatch": (lambda m: m.bmm(m.ones(2, 2, 3), m.ones(3, 3, 2)), RuntimeError,
                     r"Expected size for first two dimensions"),
    "broadcast": (lambda m: m.ones(2, 3) + m.ones(4), RuntimeError,
                  r"size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
                  r"dimension 1"),
    "broadcast_where": (lambda m: m.where(m.ones(3) > 0, m.ones(2), m.ones(3)), RuntimeError,
                        r"must match"),
    "reshape_invalid": (lambda m: m.ones(6).reshape(4, -1), RuntimeError,
                        r"shape '\[4, -1\]' is invalid for input of size 6"),
    "view_non_contiguous": (lambda m: m.ones(2, 3).t().view(6), RuntimeError, r"\.reshape\("),
    "two_inferred": (lambda m: m.ones(6).view(-1, -1), RuntimeError, r"only one dimension"),
    "expand_invalid": (lambda m: m.ones(3).expand(2, 4), RuntimeError, r"expanded size"),
    "cat_mismatch": (lambda m: m.cat([m.ones(2, 3), m.ones(2, 2)]), RuntimeError,
                     r"Sizes of tensors must match except in dimension 0"),
    "cat_empty": (lambda m: m.cat([]), ValueError, r"non-empty"),
    "stack_mismatch": (lambda m: m.stack([m.ones(2), m.ones(3)]), RuntimeError, r"equal size"),
    "t_of_3d": (lambda m: m.ones(2, 2, 2).t(), RuntimeError, r"<= 2 dimensions"),
    "mT_of_1d": (lambda m: m.ones(2).mT, RuntimeError, r"matrices"),
    "dim_out_of_range": (lambda m: m.ones(3).sum(2), IndexError, r"Dimension out of range"),
    "index_out_of_range": (lambda m: m.ones(3)[5], IndexError, r"index 5 is out of bounds"),
    "too_many_indices": (lambda m: m.ones(3)[0, 0], IndexError, r"too many indices"),
    "float_tensor_index": (lambda m: m.ones(3)[m.tensor([0.0])], IndexError, r"long, int"),
    "float_index": (lambda m: m.ones(3)[1.5], IndexError, r"valid indices"),
    "bool_mask_shape": (lambda m: m.ones(3)[m.tensor([True, False])], IndexError, r"3"),
    # autograd
    "second_backward": (second_backward, RuntimeError, r"retain_graph=True"),
    "inplace_on_leaf": (inplace_on_leaf, RuntimeError, r"leaf Variable that requires grad"),
    "saved_input_modified": (saved_input_modified, RuntimeError,
                             r"modified by an inplace operation.*output 0 of Mul, is at version 1; "
                             r"expected version 0"),
    "saved_output_modified": (saved_output_modified, RuntimeError,
                              r"output 0 of Exp, is at version 1"),
    "saved_leaf_modified": (saved_leaf_modified, RuntimeError,
                            r"\[torch.FloatTensor \[2\]\] is at version 1; expected version 0"),
    "non_scalar_backward": (non_scalar_backward, RuntimeError,
                            r"grad can be implicitly created only for scalar outputs"),
    "unused_input": (unused_input, RuntimeError, r"allow_unused=True"),
    "grad_of_constant": (grad_of_constant, RuntimeError, r"does not require grad"),
    "backward_without_graph": (backward_without_graph, RuntimeError,
                               r"does not require grad and does not have a grad_fn"),
    "wrong_gradient_shape": (wrong_gradient_shape, RuntimeError, r"Mismatch in shape"),
    "empty_inputs": (lambda m: (leaf(m, 1) * 2).sum().backward(inputs=[]), RuntimeError,
                     r"cannot be empty"),
    "int_requires_grad": (lambda m: m.ones(2, dtype=m.int64).requires_grad_(), RuntimeError,
                          r"floating point"),
    "int_requires_grad_factory": (lambda m: m.tensor([1], requires_grad=True), RuntimeError,
                                  r"floating point"),
    "requires_grad_off_non_leaf": (lambda m: setattr(leaf(m, 2) * 2, "requires_grad", False),
                                   RuntimeError, r"leaf variables.*detach\(\)"),
    "retain_grad_constant": (lambda m: m.ones(2).retain_grad(), RuntimeError, r"requires_grad=False"),
    "hook_on_constant": (lambda m: m.ones(2).register_hook(lambda g: g), RuntimeError,
                         r"doesn't require gradient"),
    "numpy_of_requires_grad": (lambda m: leaf(m, 2).numpy(), RuntimeError, r"detach\(\)\.numpy\(\)"),
    "detach_view_in_place": (lambda m: m.ones(3)[1:].detach_(), RuntimeError, r"detach\(\)"),
    "grad_wrong_size": (lambda m: setattr(leaf(m, 2), "grad", m.ones(3)), RuntimeError, r"size"),
    "grad_wrong_type": (lambda m: setattr(leaf(m, 2), "grad", 3), TypeError, r"Tensor or None"),
    # values and dtypes
    "item_of_many": (lambda m: m.ones(2).item(), RuntimeError,
                     r"a Tensor with 2 elements cannot be converted to Scalar"),
    "bool_of_many": (lambda m: bool(m.ones(2)), RuntimeError, r"ambiguous"),
    "len_of_0d": (lambda m: len(m.tensor(1.0)), TypeError, r"0-d tensor"),
    "index_of_float": (lambda m: m.ones(3).__index__(), TypeError, r"integer tensors"),
    "mean_of_int": (lambda m: m.ones(2, dtype=m.int64).mean(), RuntimeError, r"floating point"),
    "var_of_int": (lambda m: m.ones(2, dtype=m.int64).var(), RuntimeError, r"floating point"),
    "softmax_of_int": (lambda m: m.ones(2, dtype=m.int64).softmax(0), NotImplementedError,
                       r"not implemented for 'Long'"),
    "neg_of_bool": (lambda m: -m.ones(2, dtype=m.bool), RuntimeError, r"`~`"),
    "sub_of_bools": (lambda m: m.ones(2, dtype=m.bool) - m.ones(2, dtype=m.bool), RuntimeError,
                     r"logical_xor"),
    "sub_with_bool": (lambda m: m.ones(2) - True, RuntimeError, r"bool tensor is not supported"),
    "pow_of_bools": (lambda m: m.ones(2, dtype=m.bool) ** m.ones(2, dtype=m.bool),
                     NotImplementedError, r"Bool"),
    "int_negative_power": (lambda m: m.ones(2, dtype=m.int64) ** -1, RuntimeError,
                           r"negative integer powers"),
    "inplace_narrowing": (lambda m: m.ones(2, dtype=m.int64).add_(1.5), RuntimeError,
                          r"result type Float can't be cast to the desired output type Long"),
    "inplace_broadcast": (lambda m: m.ones(2).add_(m.ones(2, 2)), RuntimeError,
                          r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"),
    "copy_bad_shape": (lambda m: m.ones(2).copy_(m.ones(3)), RuntimeError, r"must match"),
    "masked_fill_float_mask": (lambda m: m.ones(2).masked_fill(m.ones(2), 0.0), RuntimeError,
                               r"boolean"),
    "where_float_condition": (lambda m: m.where(m.ones(2), m.ones(2), m.ones(2)), RuntimeError,
                              r"boolean"),
    "clamp_without_bounds": (lambda m: m.ones(2).clamp(), RuntimeError, r"min' or 'max'"),
    "max_of_empty": (lambda m: m.zeros(0).max(), RuntimeError, r"numel\(\) == 0"),
    "add_string": (lambda m: m.ones(2) + "a", TypeError, r"str"),
    "tensor_of_string": (lambda m: m.tensor("abc"), TypeError, r"str"),
    "ragged_list": (lambda m: m.tensor([[1, 2], [3]]), ValueError, r""),
    "negative_size": (lambda m: m.zeros(-1), RuntimeError, r"non-negative"),
    "zero_step": (lambda m: m.arange(0, 3, 0), RuntimeError, r"step must be nonzero"),
    "int_default_dtype": (lambda m: m.set_default_dtype(m.int64), TypeError, r"floating-point"),
    "bad_device": (lambda m: m.device("tpu"), RuntimeError, r"cpu, cuda"),
    "maximum_of_a_number": (lambda m: m.maximum(m.ones(2), 1.5), TypeError,
                            r"maximum\(\): argument 'other' \(position 2\) must be Tensor, not float"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_type_and_message(name):
    fn, error, pattern = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as info:
            fn(nnref)
        assert re.search(pattern, str(info.value), re.S), str(info.value)
        if torch is not None:
            with pytest.raises(Exception) as torch_info:
                fn(torch)
            assert type(info.value) is type(torch_info.value), str(torch_info.value)


def test_errors_leave_grad_mode_alone():
    """A failing backward must restore grad mode (the engine turns it off while running)."""
    x = leaf(nnref, 2)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()
    assert nnref.is_grad_enabled()
