"""More layers against PyTorch: PReLU, SELU, CELU, Threshold, the shrinks, Softmin, the 1-d pools,
padding, pixel shuffles, instance and RMS normalisation, the recurrent cells, more losses and Bilinear.

Each case runs the same code on nnref and on torch (same seed, same input values) and compares:
outputs (values, dtype, ``grad_fn`` name), the gradients of the inputs and of the parameters,
``repr`` and ``state_dict`` keys; or the exception type and message.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def shown(result):
    if isinstance(result, (tuple, list)):
        return [shown(r) for r in result]
    if isinstance(result, (nnref.Tensor, torch.Tensor)):
        return (str((np.round(result.detach().numpy().astype(np.float64), 4) + 0.0).tolist()), str(result.dtype),
                type(result.grad_fn).__name__ if result.grad_fn is not None else None)
    return result


def _tensors(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [out] if hasattr(out, "grad_fn") else []


def run(case, m):
    """``case(m)`` gives ``(module_or_function, inputs)`` (and the module when the function calls one);
    the result, the gradients, the repr."""
    try:
        m.manual_seed(0)
        fn, inputs, *holder = case(m)  # a third item: the module that fn calls
        out = fn(*inputs)
        outs = [o for o in _tensors(out) if o.requires_grad]
        if outs:
            total = sum((o * m.tensor(np.linspace(-1.0, 1.0, o.numel()).reshape(tuple(o.shape)), dtype=o.dtype)).sum()
                        for o in outs)
            total.backward()
        grads = [x.grad for x in inputs if hasattr(x, "grad")]
        extra = []
        module = holder[0] if holder else fn
        if isinstance(module, (nnref.nn.Module, torch.nn.Module)):
            extra = [repr(module), list(module.state_dict()), [p.grad for p in module.parameters()],
                     list(module.buffers())]
        return shown([out, grads, extra])
    except Exception as exc:  # noqa: BLE001 - the type and message are what the tests compare
        return ("raises", type(exc).__name__, str(exc).split("\n")[0].replace("nnref.core._tensor.Tensor", "torch.Tensor"))


def x(m, *shape, seed=0, grad=True, scale=1.0, dtype="float32"):
    values = np.random.default_rng(seed).standard_normal(shape) * scale
    return m.tensor(values, dtype=getattr(m, dtype), requires_grad=grad)


REDUCTIONS = ("none", "sum", "mean")

CASES = {
    # activations
    "prelu": lambda m: (m.nn.PReLU(), [x(m, 2, 3, 4)]),
    "prelu_channels": lambda m: (m.nn.PReLU(3, init=0.1), [x(m, 2, 3, 4)]),
    "prelu_channels_1d": lambda m: (m.nn.PReLU(3), [x(m, 3)]),
    "prelu_wrong_channels": lambda m: (m.nn.PReLU(2), [x(m, 2, 3, 4)]),
    "prelu_scalar_input": lambda m: (m.nn.PReLU(2), [x(m)]),
    "prelu_2d_weight": lambda m: (m.nn.functional.prelu, [x(m, 2, 3), x(m, 1, 3, seed=1)]),
    "prelu_mixed_dtypes": lambda m: (m.nn.functional.prelu, [x(m, 2, 3), x(m, 1, seed=1).double()]),
    "prelu_functional": lambda m: (m.nn.functional.prelu, [x(m, 2, 3, 2), x(m, 3, seed=1)]),
    "selu": lambda m: (m.nn.SELU(), [x(m, 3, 4, scale=2)]),
    "selu_inplace": lambda m: (lambda t: m.nn.SELU(inplace=True)(t * 1), [x(m, 3, 4)]),
    "selu_functional_": lambda m: (lambda t: m.nn.functional.selu_(t * 1), [x(m, 3, 4)]),
    "selu_long": lambda m: (m.nn.functional.selu, [m.arange(3)]),
    "celu": lambda m: (m.nn.CELU(), [x(m, 3, 4, scale=2)]),
    "celu_alpha": lambda m: (m.nn.CELU(0.5), [x(m, 3, 4, scale=2)]),
    "celu_inplace": lambda m: (lambda t: m.nn.CELU(2.0, inplace=True)(t * 1), [x(m, 3, 4)]),
    "celu_functional_": lambda m: (lambda t: m.nn.functional.celu_(t * 1, 0.7), [x(m, 3, 4)]),
    "celu_zero_alpha": lambda m: (m.nn.CELU(0.0), [x(m, 3)]),
    "threshold": lambda m: (m.nn.Threshold(0.1, 20), [x(m, 3, 4)]),
    "threshold_inplace": lambda m: (lambda t: m.nn.Threshold(0.1, -2.0, inplace=True)(t * 1), [x(m, 3, 4)]),
    "threshold_functional_": lambda m: (lambda t: m.nn.functional.threshold_(t * 1, 0.0, 5.0), [x(m, 3, 4)]),
    "threshold_long": lambda m: (lambda t: m.nn.functional.threshold(t, 2, 9), [m.arange(5)]),
    "threshold_nan": lambda m: (lambda t: m.nn.functional.threshold(t, 0.5, 3.0), [m.tensor([float("nan"), 1.0, 0.2])]),
    "hardshrink": lambda m: (m.nn.Hardshrink(), [x(m, 3, 4)]),
    "hardshrink_lambd": lambda m: (m.nn.Hardshrink(1.0), [x(m, 3, 4)]),
    "hardshrink_long": lambda m: (m.nn.functional.hardshrink, [m.arange(5)]),
    "softshrink": lambda m: (m.nn.Softshrink(), [x(m, 3, 4)]),
    "softshrink_edges": lambda m: (m.nn.functional.softshrink, [m.tensor([float("nan"), 1.0, -1.0, 0.5, -0.5])]),
    "softshrink_negative": lambda m: (lambda t: m.nn.functional.softshrink(t, -1), [x(m, 3)]),
    "softshrink_long": lambda m: (m.nn.functional.softshrink, [m.arange(5)]),
    "tanhshrink": lambda m: (m.nn.Tanhshrink(), [x(m, 3, 4)]),
    "softmin": lambda m: (m.nn.Softmin(dim=1), [x(m, 3, 4)]),
    "softmin_dtype": lambda m: (lambda t: m.nn.functional.softmin(t, 0, dtype=m.float64), [x(m, 3, 4)]),
    "rrelu_train": lambda m: (m.nn.RReLU(), [x(m, 4, 5)]),
    "rrelu_train_double_bounds": lambda m: (m.nn.RReLU(0.1, 0.6), [x(m, 3, 4, dtype="float64")]),
    "rrelu_train_transposed": lambda m: (lambda t: m.nn.functional.rrelu(t.t(), training=True), [x(m, 4, 5)]),
    "rrelu_eval": lambda m: (m.nn.RReLU().eval(), [x(m, 4, 5)]),
    "rrelu_functional_default": lambda m: (m.nn.functional.rrelu, [x(m, 4, 5)]),
    "rrelu_inplace": lambda m: (lambda t: m.nn.functional.rrelu(t * 1, 0.2, 0.3, True, inplace=True), [x(m, 4, 5)]),
    "rrelu_": lambda m: (lambda t: m.nn.functional.rrelu_(t * 1), [x(m, 4, 5)]),
    "rrelu_equal_bounds": lambda m: (lambda t: m.nn.functional.rrelu(t, 0.25, 0.25, training=True), [x(m, 4, 5)]),
    "rrelu_bounds": lambda m: (lambda t: m.nn.functional.rrelu(t, 0.5, 0.25), [x(m, 4, 5)]),
    "rrelu_long": lambda m: (lambda t: m.nn.functional.rrelu(t), [m.arange(4)]),
    "rrelu_reprs": lambda m: (lambda: [repr(m.nn.RReLU()), repr(m.nn.RReLU(0.1, 0.3, True))], []),
    "gumbel_softmax": lambda m: (m.nn.functional.gumbel_softmax, [x(m, 3, 4)]),
    "gumbel_softmax_tau_dim": lambda m: (lambda t: m.nn.functional.gumbel_softmax(t, tau=0.5, dim=0), [x(m, 3, 4)]),
    "gumbel_softmax_hard": lambda m: (lambda t: m.nn.functional.gumbel_softmax(t, hard=True), [x(m, 3, 4)]),
    "gumbel_softmax_double": lambda m: (lambda t: m.nn.functional.gumbel_softmax(t, 2.0), [x(m, 3, 4, dtype="float64")]),
    # 1-d pooling
    "max_pool1d": lambda m: (m.nn.MaxPool1d(3, 2, 1, ceil_mode=True), [x(m, 2, 3, 8)]),
    "max_pool1d_indices": lambda m: (m.nn.MaxPool1d(2, return_indices=True), [x(m, 2, 3, 9)]),
    "max_pool1d_unbatched_dilated": lambda m: (m.nn.MaxPool1d((3,), 1, dilation=2), [x(m, 3, 9)]),
    "max_pool1d_functional": lambda m: (lambda t: m.nn.functional.max_pool1d_with_indices(t, 2, (1,)), [x(m, 2, 3, 5)]),
    "max_pool1d_4d": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 3, 4, 5), 2]),
    "max_pool1d_1d": lambda m: (m.nn.functional.max_pool1d, [x(m, 5), 2]),
    "max_pool1d_long": lambda m: (m.nn.functional.max_pool1d, [m.arange(8).reshape(1, 8), 2]),
    "max_pool1d_zero_kernel": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 0]),
    "max_pool1d_zero_stride": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 2, 0]),
    "max_pool1d_negative_padding": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 2, 1, -1]),
    "max_pool1d_big_padding": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 3, 1, 2]),
    "max_pool1d_zero_dilation": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 2, 1, 0, 0]),
    "max_pool1d_pair_kernel": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), (2, 2)]),
    "max_pool1d_too_small": lambda m: (m.nn.functional.max_pool1d, [x(m, 2, 8), 20]),
    "avg_pool1d": lambda m: (m.nn.AvgPool1d(3, 2, 1), [x(m, 2, 3, 8)]),
    "avg_pool1d_options": lambda m: (m.nn.AvgPool1d((3,), 2, 1, ceil_mode=True, count_include_pad=False), [x(m, 3, 8)]),
    "avg_pool1d_4d": lambda m: (m.nn.functional.avg_pool1d, [x(m, 2, 3, 4, 5), 2]),
    "avg_pool1d_pair_kernel": lambda m: (m.nn.functional.avg_pool1d, [x(m, 2, 8), (2, 2)]),
    "avg_pool1d_zero_kernel": lambda m: (m.nn.functional.avg_pool1d, [x(m, 2, 8), 0]),
    "avg_pool1d_big_padding": lambda m: (m.nn.functional.avg_pool1d, [x(m, 2, 8), 3, 1, 2]),
    "adaptive_avg_pool1d": lambda m: (m.nn.AdaptiveAvgPool1d(3), [x(m, 2, 3, 8)]),
    "adaptive_avg_pool1d_global": lambda m: (m.nn.AdaptiveAvgPool1d((1,)), [x(m, 3, 8)]),
    "adaptive_avg_pool1d_pair": lambda m: (m.nn.functional.adaptive_avg_pool1d, [x(m, 2, 8), (2, 3)]),
    "adaptive_avg_pool1d_1d": lambda m: (m.nn.functional.adaptive_avg_pool1d, [x(m, 8), 2]),
    "adaptive_max_pool1d": lambda m: (m.nn.AdaptiveMaxPool1d(3), [x(m, 2, 3, 8)]),
    "adaptive_max_pool1d_indices": lambda m: (m.nn.AdaptiveMaxPool1d(5, return_indices=True), [x(m, 3, 7)]),
    "adaptive_max_pool1d_functional": lambda m: (m.nn.functional.adaptive_max_pool1d_with_indices, [x(m, 3, 7), 2]),
    "adaptive_max_pool1d_4d": lambda m: (m.nn.functional.adaptive_max_pool1d, [x(m, 2, 3, 4, 5), 2]),
    "pool1d_reprs": lambda m: (lambda: [repr(p) for p in (
        m.nn.MaxPool1d(3, 2, 1, return_indices=True, ceil_mode=True), m.nn.MaxPool1d((3,)),
        m.nn.AvgPool1d(3, 2, 1, True, False), m.nn.AvgPool1d((3,)), m.nn.AdaptiveMaxPool1d(3, True),
        m.nn.AdaptiveAvgPool1d(2))], []),
    # padding
    "zero_pad1d": lambda m: (m.nn.ZeroPad1d(2), [x(m, 2, 3, 4)]),
    "zero_pad1d_1d_input": lambda m: (m.nn.ZeroPad1d((1, 0)), [x(m, 4)]),
    "zero_pad2d": lambda m: (m.nn.ZeroPad2d((1, 2, 0, -1)), [x(m, 2, 3, 4)]),
    "zero_pad2d_1d_input": lambda m: (m.nn.functional.pad, [x(m, 5), (1, 1, 1, 1)]),
    "zero_pad3d": lambda m: (m.nn.ZeroPad3d(1), [x(m, 1, 2, 2, 3)]),
    "constant_pad1d": lambda m: (m.nn.ConstantPad1d((1, 2), 3), [x(m, 2, 3, 4)]),
    "constant_pad1d_long": lambda m: (m.nn.ConstantPad1d(1, 3), [m.arange(5)]),
    "constant_pad1d_odd": lambda m: (m.nn.ConstantPad1d((1, 2, 3), 3.0), [x(m, 2, 3, 4)]),
    "constant_pad2d": lambda m: (m.nn.ConstantPad2d(1, 3.5), [x(m, 2, 3, 4)]),
    "constant_pad3d": lambda m: (m.nn.ConstantPad3d((1, 0, 0, 1, 2, 0), -1.0), [x(m, 1, 2, 2, 3)]),
    "padding_reprs": lambda m: (lambda: [repr(p) for p in (
        m.nn.ZeroPad1d(2), m.nn.ZeroPad2d((1, 2, 3, 4)), m.nn.ConstantPad1d((1, 2), 3), m.nn.ConstantPad2d(1, 3.5),
        m.nn.ZeroPad3d(1), m.nn.ConstantPad3d(1, 2))] + [m.nn.ZeroPad1d(2).padding, m.nn.ZeroPad2d(2).value], []),
    **{f"{mode}_pad_{k}d{tag}": lambda m, mode=mode, k=k, batch=batch: (
        lambda t: m.nn.functional.pad(t, (2, 1, -1, 1, 1, 0)[:2 * k], mode=mode),
        [x(m, *(2, 3)[:1 + batch], *(4, 3, 5)[3 - k:])])
       for mode in ("reflect", "replicate", "circular") for k in (1, 2, 3) for batch, tag in ((1, ""), (0, "_unbatched"))},
    "reflect_pad_too_big": lambda m: (m.nn.ReflectionPad1d(3), [x(m, 1, 2, 3)]),
    "reflect_pad_too_big_2d": lambda m: (m.nn.ReflectionPad2d((1, 1, 3, 0)), [x(m, 1, 2, 3, 4)]),
    "reflect_pad_1d_input": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="reflect"), [x(m, 5)]),
    "reflect_pad_wrong_length": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="reflect"), [x(m, 1, 2, 4, 5)]),
    "reflect_pad_value": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="reflect", value=2.0), [x(m, 1, 2, 3)]),
    "reflect_pad_zero_value": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="reflect", value=0), [x(m, 1, 2, 3)]),
    "reflect_pad_long": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="reflect"), [m.arange(6).reshape(1, 2, 3)]),
    "replicate_pad_empty": lambda m: (lambda t: m.nn.functional.pad(t, (1, 1), mode="replicate"), [x(m, 1, 2, 0)]),
    "circular_pad_too_big": lambda m: (m.nn.CircularPad1d((4, 3)), [x(m, 1, 2, 3)]),
    "circular_pad_module_dims": lambda m: (m.nn.CircularPad2d(1), [x(m, 5, 1, 2, 3)]),
    "mode_padding_reprs": lambda m: (lambda: [repr(p) for p in (
        m.nn.ReflectionPad1d(2), m.nn.ReflectionPad2d((1, 2, 3, 4)), m.nn.ReplicationPad1d(1), m.nn.ReplicationPad2d(2),
        m.nn.CircularPad1d(1), m.nn.CircularPad2d(1), m.nn.ReflectionPad3d(1), m.nn.ReplicationPad3d(1),
        m.nn.CircularPad3d((1, 0, 0, 1, 2, 2)))], []),
    "mode_padding_modules": lambda m: (lambda t: [m.nn.ReflectionPad2d((1, 0, 2, 1))(t), m.nn.ReplicationPad2d(1)(t),
                                                  m.nn.CircularPad2d((0, 1, 1, 0))(t)], [x(m, 1, 2, 3, 4)]),
    "batch_norm3d": lambda m: (_perturbed(m, m.nn.BatchNorm3d(3)), [x(m, 2, 3, 2, 3, 2)]),
    "batch_norm3d_eval": lambda m: (_evaluated3d(m, m.nn.BatchNorm3d(3, momentum=None)), [x(m, 2, 3, 2, 3, 2)]),
    "batch_norm3d_4d": lambda m: (m.nn.BatchNorm3d(3), [x(m, 2, 3, 2, 3)]),
    "lazy_batch_norm1d": lambda m: (m.nn.LazyBatchNorm1d(), [x(m, 4, 3)]),
    "lazy_batch_norm2d": lambda m: (m.nn.LazyBatchNorm2d(momentum=0.3), [x(m, 2, 3, 2, 2)]),
    "lazy_batch_norm3d_plain": lambda m: (m.nn.LazyBatchNorm3d(affine=False, track_running_stats=False),
                                          [x(m, 2, 3, 2, 2, 2)]),
    "lazy_batch_norm1d_3d_input": lambda m: (m.nn.LazyBatchNorm1d(), [x(m, 2, 3, 2, 2)]),
    "lazy_instance_norm1d": lambda m: (m.nn.LazyInstanceNorm1d(), [x(m, 2, 3, 5)]),
    "lazy_instance_norm2d": lambda m: (m.nn.LazyInstanceNorm2d(affine=False, track_running_stats=False),
                                       [x(m, 2, 3, 2, 3)]),
    "lazy_instance_norm3d": lambda m: (m.nn.LazyInstanceNorm3d(), [x(m, 2, 3, 2, 2, 2)]),
    "lazy_conv1d": lambda m: (m.nn.LazyConv1d(4, 3, padding=1), [x(m, 2, 3, 5)]),
    "lazy_conv1d_unbatched": lambda m: (m.nn.LazyConv1d(4, 2, bias=False), [x(m, 3, 5)]),
    "lazy_reprs": lambda m: (lambda: [repr(n) for n in (m.nn.LazyBatchNorm1d(), m.nn.LazyInstanceNorm2d(eps=1e-3),
                                                        m.nn.LazyConv1d(4, 3))] + [
        list(m.nn.LazyBatchNorm2d().state_dict()), list(m.nn.LazyInstanceNorm1d().state_dict())], []),
    "conv_transpose1d": lambda m: (m.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1, dilation=2),
                                   [x(m, 2, 3, 5)]),
    "conv_transpose1d_groups_no_bias": lambda m: (m.nn.ConvTranspose1d(4, 6, 2, groups=2, bias=False), [x(m, 2, 4, 5)]),
    "conv_transpose1d_unbatched": lambda m: (m.nn.ConvTranspose1d(3, 2, 3), [x(m, 3, 5)]),
    "conv_transpose1d_output_size": lambda m: (lambda t: _seeded_conv_t(m)(t, output_size=[12]), [x(m, 2, 3, 5)]),
    "conv_transpose1d_functional": lambda m: (lambda t, w, b: m.nn.functional.conv_transpose1d(t, w, b, 2, 1),
                                              [x(m, 2, 3, 5), x(m, 3, 2, 3, seed=1), x(m, 2, seed=2)]),
    "conv_transpose1d_1d_input": lambda m: (m.nn.functional.conv_transpose1d, [x(m, 5), x(m, 3, 2, 3)]),
    "conv_transpose1d_channels": lambda m: (m.nn.functional.conv_transpose1d, [x(m, 2, 4, 5), x(m, 3, 2, 3)]),
    "conv_transpose1d_reprs": lambda m: (lambda: [repr(m.nn.ConvTranspose1d(3, 2, 3, stride=2)), list(
        m.nn.ConvTranspose1d(3, 2, 3).state_dict())], []),
    "lazy_conv_transpose1d": lambda m: (m.nn.LazyConvTranspose1d(4, 3, stride=2, padding=1), [x(m, 2, 3, 5)]),
    "lazy_conv_transpose1d_unbatched": lambda m: (m.nn.LazyConvTranspose1d(2, 2, bias=False), [x(m, 3, 5)]),
    "lazy_conv_transpose2d": lambda m: (m.nn.LazyConvTranspose2d(4, 3, stride=2), [x(m, 2, 3, 4, 4)]),
    "lazy_conv_transpose1d_4d": lambda m: (m.nn.LazyConvTranspose1d(4, 3), [x(m, 2, 3, 4, 4)]),
    "lazy_conv_transpose_reprs": lambda m: (lambda: [repr(m.nn.LazyConvTranspose1d(4, 3)),
                                                     repr(m.nn.LazyConvTranspose2d(4, 3, stride=2))], []),
    **{f"pdist_p{p}": lambda m, p=p: (lambda t: m.nn.functional.pdist(t, p), [x(m, 4, 3)])
       for p in (0, 0.5, 1, 2, 3, float("inf"))},
    **{f"pdist_repeated_rows_p{p}": lambda m, p=p: (lambda t: m.nn.functional.pdist(t, p), [
        m.tensor([[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]], requires_grad=True)]) for p in (0, 0.5, 1, 2, 3, float("inf"))},
    "pdist_one_row": lambda m: (m.nn.functional.pdist, [x(m, 1, 3)]),
    "pdist_1d": lambda m: (m.nn.functional.pdist, [x(m, 3)]),
    "pdist_negative_p": lambda m: (lambda t: m.nn.functional.pdist(t, -1), [x(m, 4, 3)]),
    "pdist_long": lambda m: (m.nn.functional.pdist, [m.arange(6).reshape(3, 2)]),
    # pixel shuffle
    "pixel_shuffle": lambda m: (m.nn.PixelShuffle(2), [x(m, 2, 8, 2, 3)]),
    "pixel_shuffle_unbatched": lambda m: (m.nn.PixelShuffle(3), [x(m, 9, 2, 1)]),
    "pixel_shuffle_5d": lambda m: (m.nn.functional.pixel_shuffle, [x(m, 2, 1, 8, 2, 2), 2]),
    "pixel_shuffle_long": lambda m: (m.nn.functional.pixel_shuffle, [m.arange(16).reshape(4, 2, 2), 2]),
    "pixel_shuffle_2d": lambda m: (m.nn.functional.pixel_shuffle, [x(m, 3, 4), 2]),
    "pixel_shuffle_channels": lambda m: (m.nn.functional.pixel_shuffle, [x(m, 1, 3, 4, 4), 2]),
    "pixel_shuffle_zero": lambda m: (m.nn.functional.pixel_shuffle, [x(m, 1, 4, 4, 4), 0]),
    "pixel_unshuffle": lambda m: (m.nn.PixelUnshuffle(2), [x(m, 2, 2, 4, 6)]),
    "pixel_unshuffle_unbatched": lambda m: (m.nn.PixelUnshuffle(3), [x(m, 1, 3, 6)]),
    "pixel_unshuffle_2d": lambda m: (m.nn.functional.pixel_unshuffle, [x(m, 3, 4), 2]),
    "pixel_unshuffle_height": lambda m: (m.nn.functional.pixel_unshuffle, [x(m, 1, 3, 5, 4), 2]),
    "pixel_unshuffle_width": lambda m: (m.nn.functional.pixel_unshuffle, [x(m, 1, 3, 4, 5), 2]),
    "pixel_unshuffle_zero": lambda m: (m.nn.functional.pixel_unshuffle, [x(m, 1, 3, 4, 4), 0]),
    "pixel_shuffle_reprs": lambda m: (lambda: [repr(m.nn.PixelShuffle(2)), repr(m.nn.PixelUnshuffle(3))], []),
    "pixel_shuffle_twice": lambda m: (lambda t: m.nn.functional.pixel_unshuffle(m.nn.functional.pixel_shuffle(t, 2), 2),
                                      [x(m, 1, 8, 2, 3)]),
    # instance and RMS normalisation
    "instance_norm1d": lambda m: (m.nn.InstanceNorm1d(3), [x(m, 2, 3, 5)]),
    "instance_norm1d_affine": lambda m: (_perturbed(m, m.nn.InstanceNorm1d(3, affine=True)), [x(m, 2, 3, 5)]),
    "instance_norm1d_no_bias": lambda m: (m.nn.InstanceNorm1d(3, affine=True, bias=False), [x(m, 2, 3, 5)]),
    "instance_norm1d_tracked": lambda m: (_perturbed(m, m.nn.InstanceNorm1d(3, affine=True, track_running_stats=True)),
                                          [x(m, 2, 3, 5)]),
    "instance_norm1d_tracked_momentum_none": lambda m: (m.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True),
                                                        [x(m, 2, 3, 5)]),
    "instance_norm1d_tracked_eval": lambda m: (_evaluated(m, m.nn.InstanceNorm1d(3, track_running_stats=True)),
                                               [x(m, 2, 3, 5)]),
    "instance_norm1d_unbatched": lambda m: (m.nn.InstanceNorm1d(3, affine=True), [x(m, 3, 5)]),
    "instance_norm1d_4d": lambda m: (m.nn.InstanceNorm1d(3), [x(m, 2, 3, 4, 5)]),
    "instance_norm1d_1d": lambda m: (m.nn.InstanceNorm1d(3), [x(m, 3)]),
    "instance_norm1d_wrong_channels_affine": lambda m: (m.nn.InstanceNorm1d(3, affine=True), [x(m, 2, 4, 5)]),
    "instance_norm1d_one_position": lambda m: (m.nn.InstanceNorm1d(3), [x(m, 2, 3, 1)]),
    "instance_norm2d": lambda m: (m.nn.InstanceNorm2d(3, eps=1e-3), [x(m, 2, 3, 4, 5)]),
    "instance_norm2d_unbatched": lambda m: (m.nn.InstanceNorm2d(3), [x(m, 3, 2, 2)]),
    "instance_norm2d_2d": lambda m: (m.nn.InstanceNorm2d(3), [x(m, 3, 2)]),
    "instance_norm3d": lambda m: (m.nn.InstanceNorm3d(2, affine=True), [x(m, 2, 2, 2, 3, 2)]),
    "instance_norm_functional": lambda m: (lambda t, w: m.nn.functional.instance_norm(t, weight=w, bias=w * 2),
                                           [x(m, 2, 3, 4), x(m, 3, seed=1)]),
    "instance_norm_functional_stats": lambda m: (lambda t: m.nn.functional.instance_norm(
        t, m.zeros(3) + 0.5, m.ones(3) * 2, use_input_stats=False), [x(m, 2, 3, 4)]),
    "instance_norm_functional_no_stats": lambda m: (lambda t: m.nn.functional.instance_norm(t, use_input_stats=False),
                                                    [x(m, 2, 3, 4)]),
    "instance_norm_functional_bad_weight": lambda m: (lambda t: m.nn.functional.instance_norm(t, weight=m.ones(2)),
                                                      [x(m, 2, 3, 4)]),
    "instance_norm_reprs": lambda m: (lambda: [repr(n) for n in (
        m.nn.InstanceNorm1d(3), m.nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
        m.nn.InstanceNorm3d(2, 1e-3, None, bias=False))] + [
        list(m.nn.InstanceNorm2d(4, affine=True, track_running_stats=True).state_dict())], []),
    "rms_norm": lambda m: (_perturbed(m, m.nn.RMSNorm(5)), [x(m, 2, 3, 5)]),
    "rms_norm_eps": lambda m: (m.nn.RMSNorm([3, 5], eps=1e-3), [x(m, 2, 3, 5)]),
    "rms_norm_no_affine": lambda m: (m.nn.RMSNorm(5, elementwise_affine=False), [x(m, 2, 3, 5)]),
    "rms_norm_double": lambda m: (lambda t: m.nn.functional.rms_norm(t, (5,)), [x(m, 2, 5, dtype="float64")]),
    "rms_norm_half": lambda m: (lambda t: m.nn.functional.rms_norm(t, (5,), eps=1e-2), [x(m, 2, 5, dtype="float16")]),
    "rms_norm_wrong_shape": lambda m: (m.nn.RMSNorm(5), [x(m, 2, 4)]),
    "rms_norm_wrong_shape_2d": lambda m: (m.nn.RMSNorm((2, 5)), [x(m, 2, 4)]),
    "rms_norm_empty_shape": lambda m: (lambda t: m.nn.functional.rms_norm(t, ()), [x(m, 2, 4)]),
    "rms_norm_bad_weight": lambda m: (lambda t: m.nn.functional.rms_norm(t, (5,), m.ones(4)), [x(m, 2, 5)]),
    "rms_norm_long": lambda m: (lambda t: m.nn.functional.rms_norm(t, (5,)), [m.arange(10).reshape(2, 5)]),
    "rms_norm_reprs": lambda m: (lambda: [repr(m.nn.RMSNorm([2, 3], eps=1e-3)), repr(m.nn.RMSNorm(3, elementwise_affine=False)),
                                          list(m.nn.RMSNorm(3).state_dict())], []),
    # recurrent cells (same seed: same initial weights)
    "rnn_cell": lambda m: (m.nn.RNNCell(4, 3), [x(m, 2, 4), x(m, 2, 3, seed=1)]),
    "rnn_cell_relu_no_bias": lambda m: (m.nn.RNNCell(4, 3, bias=False, nonlinearity="relu"), [x(m, 2, 4)]),
    "rnn_cell_unbatched": lambda m: (m.nn.RNNCell(4, 3), [x(m, 4), x(m, 3, seed=1)]),
    "rnn_cell_bad_nonlinearity": lambda m: (m.nn.RNNCell(4, 3, nonlinearity="sigmoid"), [x(m, 2, 4)]),
    "rnn_cell_input_size": lambda m: (m.nn.RNNCell(4, 3), [x(m, 2, 5)]),
    "rnn_cell_batch": lambda m: (m.nn.RNNCell(4, 3), [x(m, 2, 4), x(m, 3, 3)]),
    "rnn_cell_hidden_size": lambda m: (m.nn.RNNCell(4, 3), [x(m, 2, 4), x(m, 2, 4)]),
    "rnn_cell_3d": lambda m: (m.nn.RNNCell(4, 3), [x(m, 1, 2, 4)]),
    "rnn_cell_3d_hidden": lambda m: (m.nn.RNNCell(4, 3), [x(m, 2, 4), x(m, 1, 2, 3)]),
    "lstm_cell": lambda m: _lstm_cell(m, m.nn.LSTMCell(4, 3), x(m, 2, 4), x(m, 2, 3, seed=1), x(m, 2, 3, seed=2)),
    "lstm_cell_zero_state": lambda m: (m.nn.LSTMCell(4, 3), [x(m, 2, 4)]),
    "lstm_cell_unbatched_no_bias": lambda m: (lambda t, h, c: m.nn.LSTMCell(4, 3, False)(t, (h, c)),
                                              [x(m, 4), x(m, 3, seed=1), x(m, 3, seed=2)]),
    "lstm_cell_one_state": lambda m: (lambda t, h: m.nn.LSTMCell(4, 3)(t, (h,)), [x(m, 2, 4), x(m, 2, 3)]),
    "lstm_cell_3d_state": lambda m: (lambda t, h, c: m.nn.LSTMCell(4, 3)(t, (h, c)),
                                     [x(m, 2, 4), x(m, 2, 3), x(m, 1, 2, 3)]),
    "lstm_cell_batch": lambda m: (lambda t, h, c: m.nn.LSTMCell(4, 3)(t, (h, c)), [x(m, 2, 4), x(m, 2, 3), x(m, 3, 3)]),
    "gru_cell": lambda m: (m.nn.GRUCell(4, 3), [x(m, 2, 4), x(m, 2, 3, seed=1)]),
    "gru_cell_zero_state_no_bias": lambda m: (m.nn.GRUCell(4, 3, bias=False), [x(m, 2, 4)]),
    "gru_cell_unbatched": lambda m: (m.nn.GRUCell(4, 3), [x(m, 4), x(m, 3, seed=1)]),
    "gru_cell_input_size": lambda m: (m.nn.GRUCell(4, 3), [x(m, 2, 5)]),
    "cell_reprs": lambda m: (lambda: [repr(c) for c in (
        m.nn.RNNCell(4, 3, bias=False, nonlinearity="relu"), m.nn.RNNCell(4, 3), m.nn.LSTMCell(4, 3, False),
        m.nn.GRUCell(4, 3))] + [list(m.nn.GRUCell(4, 3).state_dict())], []),
    # losses
    **{f"margin_ranking_{r}": lambda m, r=r: (m.nn.MarginRankingLoss(0.3, reduction=r),
                                                [x(m, 5), x(m, 5, seed=1), _signs(m, 5)]) for r in REDUCTIONS},
    "margin_ranking_dims": lambda m: (m.nn.functional.margin_ranking_loss, [x(m, 3, 4), x(m, 3), _signs(m, 3)]),
    "margin_ranking_sizes": lambda m: (m.nn.functional.margin_ranking_loss, [x(m, 3), x(m, 3), _signs(m, 4)]),
    "margin_ranking_reduction": lambda m: (lambda a, b: m.nn.functional.margin_ranking_loss(a, b, _signs(m, 3),
                                                                                           reduction="x"),
                                           [x(m, 3), x(m, 3)]),
    "margin_ranking_legacy": lambda m: (lambda a, b: m.nn.functional.margin_ranking_loss(a, b, _signs(m, 3),
                                                                                        size_average=False),
                                        [x(m, 3), x(m, 3)]),
    **{f"soft_margin_{r}": lambda m, r=r: (m.nn.SoftMarginLoss(reduction=r), [x(m, 3, 4, scale=3), _signs(m, 3, 4)])
       for r in REDUCTIONS},
    "soft_margin_broadcast": lambda m: (m.nn.functional.soft_margin_loss, [x(m, 3, 4), _signs(m, 4)]),
    "soft_margin_bad_sizes": lambda m: (m.nn.functional.soft_margin_loss, [x(m, 3, 4), _signs(m, 5)]),
    "soft_margin_target_grad": lambda m: (m.nn.functional.soft_margin_loss, [x(m, 3, 4), x(m, 3, 4, seed=1)]),
    **{f"cosine_embedding_{r}": lambda m, r=r: (m.nn.CosineEmbeddingLoss(0.2, reduction=r),
                                                  [x(m, 3, 4), x(m, 3, 4, seed=1), _signs(m, 3)]) for r in REDUCTIONS},
    "cosine_embedding_unbatched": lambda m: (m.nn.functional.cosine_embedding_loss,
                                             [x(m, 4), x(m, 4, seed=1), m.tensor(-1.0), -0.5]),
    "cosine_embedding_2d_target": lambda m: (m.nn.functional.cosine_embedding_loss, [x(m, 3, 4), x(m, 3, 4), m.ones(3, 1)]),
    "cosine_embedding_1d_input": lambda m: (m.nn.functional.cosine_embedding_loss, [x(m, 4), x(m, 3, 4), m.ones(3)]),
    "cosine_embedding_0d_target": lambda m: (m.nn.functional.cosine_embedding_loss, [x(m, 3, 4), x(m, 3, 4), m.tensor(1.0)]),
    **{f"hinge_embedding_{r}": lambda m, r=r: (m.nn.HingeEmbeddingLoss(0.5, reduction=r),
                                                 [x(m, 3, 4), _signs(m, 3, 4)]) for r in REDUCTIONS},
    **{f"triplet_{r}": lambda m, r=r: (m.nn.TripletMarginLoss(reduction=r), [x(m, 3, 4), x(m, 3, 4, seed=1),
                                                                           x(m, 3, 4, seed=2)]) for r in REDUCTIONS},
    "triplet_swap_p1": lambda m: (m.nn.TripletMarginLoss(0.5, p=1, swap=True), [x(m, 3, 4), x(m, 3, 4, seed=1),
                                                                              x(m, 3, 4, seed=2)]),
    "triplet_dims": lambda m: (m.nn.functional.triplet_margin_loss, [x(m, 3, 4), x(m, 3, 4), x(m, 4)]),
    "triplet_margin": lambda m: (lambda a: m.nn.functional.triplet_margin_loss(a, a, a, margin=0), [x(m, 3)]),
    "triplet_module_margin": lambda m: (lambda: m.nn.TripletMarginLoss(margin=-1.0), []),
    **{f"poisson_{r}": lambda m, r=r: (m.nn.PoissonNLLLoss(reduction=r), [x(m, 3, 4), _counts(m, 3, 4)])
       for r in REDUCTIONS},
    "poisson_full_rates": lambda m: (m.nn.PoissonNLLLoss(log_input=False, full=True),
                                     [x(m, 3, 4).abs().detach().requires_grad_(), _counts(m, 3, 4)]),
    "poisson_reduction": lambda m: (lambda t: m.nn.functional.poisson_nll_loss(t, t, reduction="x"), [x(m, 3)]),
    **{f"gaussian_{r}": lambda m, r=r: (m.nn.GaussianNLLLoss(reduction=r), [x(m, 3, 4), x(m, 3, 4, seed=1),
                                                                          _positive(m, 3, 4)]) for r in REDUCTIONS},
    "gaussian_full_homoscedastic": lambda m: (m.nn.GaussianNLLLoss(full=True, eps=0.1),
                                              [x(m, 3, 4), x(m, 3, 4, seed=1), _positive(m, 3)]),
    "gaussian_one_per_row": lambda m: (m.nn.GaussianNLLLoss(), [x(m, 3, 4), x(m, 3, 4, seed=1), _positive(m, 3, 1)]),
    "gaussian_float_var": lambda m: (lambda a, b: m.nn.functional.gaussian_nll_loss(a, b, 0.5), [x(m, 3, 4), x(m, 3, 4)]),
    "gaussian_negative_float": lambda m: (lambda a, b: m.nn.functional.gaussian_nll_loss(a, b, -0.5), [x(m, 3), x(m, 3)]),
    "gaussian_negative": lambda m: (m.nn.functional.gaussian_nll_loss, [x(m, 3), x(m, 3), -_positive(m, 3)]),
    "gaussian_wrong_size": lambda m: (m.nn.functional.gaussian_nll_loss, [x(m, 3, 4), x(m, 3, 4), _positive(m, 3, 2)]),
    "gaussian_reduction": lambda m: (lambda a: m.nn.functional.gaussian_nll_loss(a, a, _positive(m, 3), reduction="x"),
                                     [x(m, 3)]),
    **{f"multilabel_soft_margin_{r}": lambda m, r=r: (m.nn.MultiLabelSoftMarginLoss(reduction=r),
                                                        [x(m, 3, 4), _labels(m, 3, 4)]) for r in REDUCTIONS},
    "multilabel_soft_margin_weight": lambda m: (m.nn.MultiLabelSoftMarginLoss(weight=m.tensor([0.5, 1.0, 2.0, 1.5])),
                                                [x(m, 3, 4), _labels(m, 3, 4)]),
    "multilabel_soft_margin_reduction": lambda m: (lambda a: m.nn.functional.multilabel_soft_margin_loss(
        a, _labels(m, 3, 4), reduction="x"), [x(m, 3, 4)]),
    "loss_reprs": lambda m: (lambda: [repr(loss) for loss in (
        m.nn.MarginRankingLoss(), m.nn.SoftMarginLoss(), m.nn.CosineEmbeddingLoss(0.5), m.nn.TripletMarginLoss(),
        m.nn.PoissonNLLLoss(), m.nn.GaussianNLLLoss(), m.nn.MultiLabelSoftMarginLoss(), m.nn.HingeEmbeddingLoss())] + [
        list(m.nn.MultiLabelSoftMarginLoss(weight=m.ones(4)).state_dict())], []),
    **{f"multi_margin_{r}_p{p}": lambda m, r=r, p=p: (m.nn.MultiMarginLoss(p=p, margin=0.8, reduction=r),
                                                         [x(m, 3, 4), _ids(m, [0, 3, 1])]) for r in REDUCTIONS for p in (1, 2)},
    "multi_margin_weight": lambda m: (m.nn.MultiMarginLoss(weight=m.tensor([0.5, 1.0, 2.0, 1.5])), [x(m, 3, 4), _ids(m, [0, 3, 2])]),
    "multi_margin_1d": lambda m: (m.nn.MultiMarginLoss(reduction="none"), [x(m, 4), _ids(m, [2])]),
    "multi_margin_0d_target": lambda m: (m.nn.MultiMarginLoss(reduction="none"), [x(m, 4), _ids(m, 2)]),
    "multi_margin_target_size": lambda m: (m.nn.functional.multi_margin_loss, [x(m, 3, 4), _ids(m, [0, 3])]),
    "multi_margin_target_range": lambda m: (m.nn.functional.multi_margin_loss, [x(m, 3, 4), _ids(m, [0, 4, 1])]),
    "multi_margin_weight_size": lambda m: (lambda t: m.nn.functional.multi_margin_loss(t, _ids(m, [0, 3, 1]), weight=m.ones(3)),
                                           [x(m, 3, 4)]),
    "multi_margin_weight_2d": lambda m: (lambda t: m.nn.functional.multi_margin_loss(t, _ids(m, [0, 3, 1]), weight=m.ones(1, 4)),
                                         [x(m, 3, 4)]),
    "multi_margin_p3": lambda m: (lambda t: m.nn.functional.multi_margin_loss(t, _ids(m, [0, 3, 1]), p=3), [x(m, 3, 4)]),
    "multi_margin_float_target": lambda m: (m.nn.functional.multi_margin_loss, [x(m, 3, 4), m.tensor([0.0, 3.0, 1.0])]),
    "multi_margin_3d": lambda m: (m.nn.functional.multi_margin_loss, [x(m, 2, 3, 4), _ids(m, [0, 3])]),
    "multi_margin_module_p": lambda m: (lambda: m.nn.MultiMarginLoss(p=3), []),
    **{f"multilabel_margin_{r}": lambda m, r=r: (m.nn.MultiLabelMarginLoss(reduction=r),
                                                   [x(m, 3, 4), _ids(m, [[0, 3, -1, 1], [1, -1, 0, 0], [-1, 0, 0, 0]])])
       for r in REDUCTIONS},
    "multilabel_margin_1d": lambda m: (m.nn.MultiLabelMarginLoss(reduction="none"), [x(m, 4), _ids(m, [3, 0, -1, 2])]),
    "multilabel_margin_full": lambda m: (m.nn.MultiLabelMarginLoss(), [x(m, 2, 3), _ids(m, [[0, 1, 2], [2, 2, -1]])]),
    "multilabel_margin_target_size": lambda m: (m.nn.functional.multilabel_margin_loss, [x(m, 3, 4), _ids(m, [[0, 3, -1, 1]])]),
    "multilabel_margin_target_range": lambda m: (m.nn.functional.multilabel_margin_loss,
                                                 [x(m, 3, 4), _ids(m, [[0, 4, -1, 1]] * 3)]),
    "multilabel_margin_3d": lambda m: (m.nn.functional.multilabel_margin_loss, [x(m, 2, 3, 4), m.zeros(2, 3, 4, dtype=m.int64)]),
    **{f"triplet_distance_{r}": lambda m, r=r: (m.nn.TripletMarginWithDistanceLoss(reduction=r),
                                                  [x(m, 3, 4), x(m, 3, 4, seed=1), x(m, 3, 4, seed=2)]) for r in REDUCTIONS},
    "triplet_distance_cosine_swap": lambda m: (m.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1.0 - m.nn.functional.cosine_similarity(a, b), margin=0.5, swap=True),
        [x(m, 3, 4), x(m, 3, 4, seed=1), x(m, 3, 4, seed=2)]),
    "triplet_distance_margin": lambda m: (lambda: m.nn.TripletMarginWithDistanceLoss(margin=0), []),
    "triplet_distance_reduction": lambda m: (lambda a: m.nn.functional.triplet_margin_with_distance_loss(
        a, a, a, reduction="x"), [x(m, 3)]),
    "triplet_distance_dims": lambda m: (m.nn.functional.triplet_margin_with_distance_loss, [x(m, 3, 4), x(m, 3, 4), x(m, 4)]),
    "lp_pool1d": lambda m: (m.nn.LPPool1d(2, 3), [x(m, 2, 3, 7)]),
    "lp_pool1d_options": lambda m: (lambda t: m.nn.LPPool1d(1.5, 2, stride=1, ceil_mode=True)(t.abs()), [x(m, 3, 7)]),
    "lp_pool1d_inf": lambda m: (m.nn.LPPool1d(float("inf"), 2), [x(m, 2, 3, 6)]),
    "lp_pool2d": lambda m: (m.nn.LPPool2d(2, (2, 3)), [x(m, 2, 3, 4, 6)]),
    "lp_pool2d_stride": lambda m: (m.nn.LPPool2d(3, 2, stride=1), [x(m, 3, 4, 5)]),
    "lp_pool2d_minus_inf": lambda m: (lambda t: m.nn.functional.lp_pool2d(t, -float("inf"), 2), [x(m, 2, 3, 4, 6)]),
    "margin_reprs": lambda m: (lambda: [repr(n) for n in (
        m.nn.MultiMarginLoss(), m.nn.MultiLabelMarginLoss(), m.nn.LPPool1d(2, 3), m.nn.LPPool2d(1.5, (2, 3), 1, True),
        m.nn.TripletMarginWithDistanceLoss())] + [list(m.nn.MultiMarginLoss(weight=m.ones(3)).state_dict())], []),
    "unfold": lambda m: (m.nn.Unfold((2, 3), padding=1, stride=2), [x(m, 2, 3, 5, 6)]),
    "unfold_dilated_unbatched": lambda m: (m.nn.Unfold(2, dilation=2), [x(m, 3, 5, 6)]),
    "unfold_2d": lambda m: (m.nn.functional.unfold, [x(m, 5, 6), 2]),
    "unfold_5d": lambda m: (m.nn.functional.unfold, [x(m, 1, 2, 3, 5, 6), 2]),
    "unfold_zero_kernel": lambda m: (m.nn.functional.unfold, [x(m, 2, 3, 5, 6), 0]),
    "unfold_zero_stride": lambda m: (lambda t: m.nn.functional.unfold(t, 2, stride=0), [x(m, 2, 3, 5, 6)]),
    "unfold_zero_dilation": lambda m: (lambda t: m.nn.functional.unfold(t, 2, dilation=0), [x(m, 2, 3, 5, 6)]),
    "unfold_negative_padding": lambda m: (lambda t: m.nn.functional.unfold(t, 2, padding=-1), [x(m, 2, 3, 5, 6)]),
    "unfold_too_big": lambda m: (m.nn.functional.unfold, [x(m, 2, 3, 5, 6), 7]),
    "unfold_long": lambda m: (m.nn.functional.unfold, [m.arange(24).reshape(1, 2, 3, 4), 2]),
    "fold": lambda m: (m.nn.Fold((4, 5), 2), [x(m, 2, 12, 12)]),
    "fold_options_unbatched": lambda m: (m.nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=1, stride=2), [x(m, 6, 9)]),
    "fold_kernel_product": lambda m: (m.nn.functional.fold, [x(m, 2, 12, 12), (4, 5), 3]),
    "fold_blocks": lambda m: (m.nn.functional.fold, [x(m, 2, 12, 12), (5, 5), 2]),
    "fold_too_small": lambda m: (m.nn.functional.fold, [x(m, 2, 12, 12), (1, 1), 2]),
    "fold_4d": lambda m: (m.nn.functional.fold, [x(m, 2, 3, 4, 5), (4, 5), 2]),
    "fold_1d": lambda m: (m.nn.functional.fold, [x(m, 12), (4, 5), 2]),
    "fold_zero_kernel": lambda m: (m.nn.functional.fold, [x(m, 2, 12, 12), (4, 5), 0]),
    "fold_of_unfold": lambda m: (lambda t: m.nn.functional.fold(m.nn.functional.unfold(t, 3, padding=1), (4, 5), 3,
                                                                 padding=1), [x(m, 1, 2, 4, 5)]),
    "fold_reprs": lambda m: (lambda: [repr(n) for n in (m.nn.Unfold(2), m.nn.Unfold((2, 3), 1, 1, 2), m.nn.Fold((4, 5), 2),
                                                        m.nn.Fold(4, (2, 2), stride=2))], []),
    "max_unpool2d": lambda m: _unpooled(m, m.nn.MaxPool2d(2, return_indices=True), m.nn.MaxUnpool2d(2), (2, 3, 4, 6)),
    "max_unpool2d_size": lambda m: _unpooled(m, m.nn.MaxPool2d(3, 2, 1, return_indices=True), m.nn.MaxUnpool2d(3, 2, 1),
                                             (2, 3, 5, 7), output_size=(5, 7)),
    "max_unpool2d_full_size": lambda m: _unpooled(m, m.nn.MaxPool2d(2, return_indices=True), m.nn.MaxUnpool2d(2),
                                                  (2, 3, 5, 7), output_size=(2, 3, 5, 7)),
    "max_unpool2d_bad_size": lambda m: _unpooled(m, m.nn.MaxPool2d(2, return_indices=True), m.nn.MaxUnpool2d(2),
                                                 (2, 3, 4, 6), output_size=(9, 9)),
    "max_unpool2d_unbatched": lambda m: _unpooled(m, m.nn.MaxPool2d(2, return_indices=True), m.nn.MaxUnpool2d(2), (3, 4, 6)),
    "max_unpool1d": lambda m: _unpooled(m, m.nn.MaxPool1d(2, return_indices=True), m.nn.MaxUnpool1d(2), (2, 3, 6)),
    "max_unpool1d_unbatched": lambda m: _unpooled(m, m.nn.MaxPool1d(3, 2, 1, return_indices=True), m.nn.MaxUnpool1d(3, 2, 1),
                                                  (3, 7), output_size=[7]),
    "max_unpool2d_index_shape": lambda m: (lambda t: m.nn.functional.max_unpool2d(t, m.zeros(3, 2, 3, dtype=m.int64), 2),
                                           [x(m, 2, 3, 2, 3)]),
    "max_unpool2d_float_index": lambda m: (lambda t: m.nn.functional.max_unpool2d(t, m.zeros(2, 3, 2, 3), 2),
                                           [x(m, 2, 3, 2, 3)]),
    "max_unpool2d_bad_index": lambda m: (lambda t: m.nn.functional.max_unpool2d(t, m.full((2, 3, 2, 3), 160), 2),
                                         [x(m, 2, 3, 2, 3)]),
    "channel_shuffle": lambda m: (m.nn.ChannelShuffle(3), [x(m, 2, 6, 2, 2)]),
    "channel_shuffle_3d": lambda m: (m.nn.functional.channel_shuffle, [x(m, 2, 6, 3), 2]),
    "channel_shuffle_native": lambda m: (m.nn.functional.native_channel_shuffle, [x(m, 2, 6, 3), 3]),
    "channel_shuffle_groups": lambda m: (m.nn.ChannelShuffle(4), [x(m, 2, 6, 3)]),
    "channel_shuffle_2d": lambda m: (m.nn.ChannelShuffle(2), [x(m, 4, 6)]),
    "channel_shuffle_zero": lambda m: (m.nn.ChannelShuffle(0), [x(m, 2, 6, 3)]),
    "unpool_reprs": lambda m: (lambda: [repr(n) for n in (m.nn.MaxUnpool2d(2), m.nn.MaxUnpool1d(3, 2, 1),
                                                          m.nn.ChannelShuffle(2))], []),
    # bilinear
    "bilinear": lambda m: (m.nn.Bilinear(5, 4, 3), [x(m, 2, 5), x(m, 2, 4, seed=1)]),
    "bilinear_no_bias_3d": lambda m: (m.nn.Bilinear(5, 4, 3, bias=False), [x(m, 2, 3, 5), x(m, 2, 3, 4, seed=1)]),
    "bilinear_unbatched": lambda m: (m.nn.Bilinear(5, 4, 3), [x(m, 5), x(m, 4, seed=1)]),
    "bilinear_dims": lambda m: (m.nn.functional.bilinear, [x(m, 2, 5), x(m, 2, 2, 4), x(m, 3, 5, 4)]),
    "bilinear_batch": lambda m: (m.nn.functional.bilinear, [x(m, 2, 5), x(m, 3, 4), x(m, 3, 5, 4)]),
    "bilinear_in1": lambda m: (m.nn.functional.bilinear, [x(m, 2, 6), x(m, 2, 4), x(m, 3, 5, 4)]),
    "bilinear_in2": lambda m: (m.nn.functional.bilinear, [x(m, 2, 5), x(m, 2, 3), x(m, 3, 5, 4)]),
    "bilinear_bias": lambda m: (m.nn.functional.bilinear, [x(m, 2, 5), x(m, 2, 4), x(m, 3, 5, 4), x(m, 2)]),
    # upsampling, local response normalisation
    "upsampling_nearest2d": lambda m: (m.nn.UpsamplingNearest2d(scale_factor=2), [x(m, 1, 2, 2, 3)]),
    "upsampling_nearest2d_size": lambda m: (m.nn.UpsamplingNearest2d(size=(3, 5)), [x(m, 1, 2, 2, 3)]),
    "local_response_norm_3d": lambda m: (m.nn.LocalResponseNorm(3), [x(m, 2, 5, 4, scale=10)]),
    "local_response_norm_4d": lambda m: (m.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), [x(m, 2, 5, 3, 2)]),
    "local_response_norm_5d": lambda m: (m.nn.LocalResponseNorm(4, alpha=0.3), [x(m, 2, 6, 2, 2, 2)]),
    "local_response_norm_2d": lambda m: (m.nn.LocalResponseNorm(3), [x(m, 2, 5)]),
    "local_response_norm_empty": lambda m: (m.nn.LocalResponseNorm(3), [x(m, 0, 5, 2)]),
    "more_reprs": lambda m: (lambda: [repr(n) for n in (
        m.nn.Bilinear(5, 4, 3), m.nn.Bilinear(5, 4, 3, False), m.nn.UpsamplingNearest2d(scale_factor=2),
        m.nn.UpsamplingNearest2d((2, 3)), m.nn.LocalResponseNorm(3), m.nn.AlphaDropout(0.2), m.nn.FeatureAlphaDropout(),
        m.nn.Dropout3d(inplace=True))] + [list(m.nn.Bilinear(5, 4, 3).state_dict())], []),
    # dropout: the same draws from the same seed
    "dropout3d": lambda m: (m.nn.Dropout3d(0.4), [x(m, 2, 3, 2, 2, 2)]),
    "dropout3d_unbatched": lambda m: (m.nn.Dropout3d(0.4), [x(m, 3, 2, 2, 2)]),
    "dropout3d_eval": lambda m: (m.nn.Dropout3d(0.4).eval(), [x(m, 2, 3, 2, 2, 2)]),
    "dropout3d_inplace": lambda m: (lambda t: m.nn.functional.dropout3d(t * 1, 0.3, inplace=True), [x(m, 2, 3, 2, 2, 2)]),
    "dropout3d_p1": lambda m: (lambda t: m.nn.functional.dropout3d(t, 1.0), [x(m, 2, 3, 2, 2, 2)]),
    "dropout3d_bad_p": lambda m: (lambda t: m.nn.functional.dropout3d(t, 1.5), [x(m, 2, 3, 2, 2, 2)]),
    "alpha_dropout": lambda m: (m.nn.AlphaDropout(0.3), [x(m, 4, 5)]),
    "alpha_dropout_double": lambda m: (m.nn.AlphaDropout(0.6), [x(m, 4, 5, dtype="float64")]),
    "alpha_dropout_eval": lambda m: (m.nn.AlphaDropout(0.3).eval(), [x(m, 4, 5)]),
    "alpha_dropout_default_not_training": lambda m: (m.nn.functional.alpha_dropout, [x(m, 4, 5)]),
    "alpha_dropout_inplace": lambda m: (lambda t: m.nn.functional.alpha_dropout(t * 1, 0.5, True, True), [x(m, 4, 5)]),
    "alpha_dropout_p1": lambda m: (lambda t: m.nn.functional.alpha_dropout(t, 1.0, True), [x(m, 4, 5)]),
    "alpha_dropout_bad_p": lambda m: (lambda t: m.nn.functional.alpha_dropout(t, -0.1, True), [x(m, 4, 5)]),
    "feature_alpha_dropout": lambda m: (m.nn.FeatureAlphaDropout(0.5), [x(m, 4, 5, 3)]),
    "feature_alpha_dropout_1d": lambda m: (lambda t: m.nn.functional.feature_alpha_dropout(t, 0.5, True), [x(m, 5)]),
    # embedding bags (same seed: same N(0, 1) weights)
    **{f"embedding_bag_{mode}": lambda m, mode=mode: _bag(m, m.nn.EmbeddingBag(10, 3, mode=mode), _ids(m, [1, 2, 4, 5, 4, 3, 2, 9]),
                                                            m.tensor([0, 4, 4])) for mode in ("sum", "mean", "max")},
    **{f"embedding_bag_2d_{mode}": lambda m, mode=mode: _bag(m, m.nn.EmbeddingBag(10, 3, mode=mode),
                                                               _ids(m, [[1, 2, 4], [4, 3, 2]])) for mode in ("sum", "mean", "max")},
    **{f"embedding_bag_padding_{mode}": lambda m, mode=mode: _bag(
        m, m.nn.EmbeddingBag(10, 3, mode=mode, padding_idx=2), _ids(m, [1, 2, 4, 2, 2, 2, 0]), m.tensor([0, 3, 4]))
       for mode in ("sum", "mean", "max")},
    **{f"embedding_bag_last_offset_{mode}": lambda m, mode=mode: _bag(
        m, m.nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=True), _ids(m, [1, 2, 4, 5, 4, 3, 2, 9]),
        m.tensor([0, 3, 3, 8])) for mode in ("sum", "mean", "max")},
    "embedding_bag_int32": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3, mode="sum"), _ids(m, [1, 2, 4, 5], m.int32),
                                          m.tensor([0, 1], dtype=m.int32)),
    "embedding_bag_weights": lambda m: _weighted_bag(m, m.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=4),
                                                     _ids(m, [1, 2, 4, 5, 1]), m.tensor([0, 2]), x(m, 5, seed=3)),
    "embedding_bag_weights_2d": lambda m: _weighted_bag(m, m.nn.EmbeddingBag(10, 3, mode="sum"),
                                                        _ids(m, [[1, 2, 4], [5, 1, 1]]), None, x(m, 2, 3, seed=3)),
    "embedding_bag_weights_mean": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [1, 2]), m.tensor([0]), m.ones(2)),
    "embedding_bag_weights_shape": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3, mode="sum"), _ids(m, [1, 2]), m.tensor([0]),
                                                  m.ones(3)),
    "embedding_bag_2d_offsets": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [[1, 2]]), m.tensor([0])),
    "embedding_bag_no_offsets": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [1, 2])),
    "embedding_bag_2d_offsets_tensor": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [1, 2]), m.tensor([[0]])),
    "embedding_bag_3d": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [[[1, 2]]])),
    "embedding_bag_bad_mode": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3, mode="min"), _ids(m, [[1, 2]])),
    "embedding_bag_max_freq": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=True),
                                             _ids(m, [[1, 2]])),
    "embedding_bag_first_offset": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [1, 2, 3]), m.tensor([1, 2])),
    "embedding_bag_last_offset_too_big": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), _ids(m, [1, 2, 3]), m.tensor([0, 4])),
    "embedding_bag_float_input": lambda m: _bag(m, m.nn.EmbeddingBag(10, 3), m.tensor([1.0, 2.0]), m.tensor([0])),
    "embedding_bag_reprs": lambda m: (lambda: [repr(b) for b in (
        m.nn.EmbeddingBag(10, 3), m.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                                                    mode="sum", padding_idx=-1),
        m.nn.EmbeddingBag.from_pretrained(m.ones(4, 2), mode="max"))] + [
        m.nn.EmbeddingBag.from_pretrained(m.ones(4, 2)).weight.requires_grad,
        m.nn.EmbeddingBag(10, 3, padding_idx=-2).padding_idx], []),
}


def _ids(m, values, dtype=None):
    return m.tensor(values, dtype=dtype or m.int64)


def _unpooled(m, pool, unpool, shape, **options):
    """Max-pool, then unpool with the indices: the input's gradient flows through both."""
    return (lambda t: unpool(*pool(t), **options)), [x(m, *shape)], unpool


def _weighted_bag(m, bag, ids, offsets, weights):
    return (lambda w: bag(ids, offsets, w)), [weights], bag


def _bag(m, bag, *arguments):
    """The bag's output for ``arguments`` (input, offsets, per-sample weights), compared with the weight's gradient."""
    return (lambda: bag(*arguments)), [], bag


def _signs(m, *shape):
    return m.tensor(np.where(np.random.default_rng(5).standard_normal(shape) > 0, 1.0, -1.0), dtype=m.float32)


def _counts(m, *shape):
    return m.tensor(np.random.default_rng(6).integers(0, 5, shape), dtype=m.float32)


def _labels(m, *shape):
    return m.tensor(np.random.default_rng(8).integers(0, 2, shape), dtype=m.float32)


def _positive(m, *shape):
    return m.tensor(np.random.default_rng(9).uniform(0.05, 2.0, shape), dtype=m.float32, requires_grad=True)


def _lstm_cell(m, cell, *inputs):
    return (lambda t, h, c: cell(t, (h, c))), list(inputs), cell


def _perturbed(m, module):
    """``module`` with parameters other than PyTorch's ones and zeros, so that their gradients show."""
    with m.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(m.linspace(0.5, 1.5 + i, p.numel()).reshape(p.shape))
    return module


def _seeded_conv_t(m):
    m.manual_seed(0)
    return m.nn.ConvTranspose1d(3, 2, 3, stride=2)


def _evaluated3d(m, module):
    """``module`` after two training steps, in evaluation mode."""
    for seed in (7, 8):
        module(m.tensor(np.random.default_rng(seed).standard_normal((2, 3, 2, 2, 2)), dtype=m.float32))
    return module.eval()


def _evaluated(m, module):
    """``module`` after a training step (so its running statistics moved), in evaluation mode."""
    module(m.tensor(np.random.default_rng(7).standard_normal((4, 3, 5)), dtype=m.float32))
    return module.eval()


# errors whose text is nnref's own (the batch norm layers name themselves and the shape they want)
OWN_MESSAGE = {"batch_norm3d_4d", "lazy_batch_norm1d_3d_input"}


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    ours, theirs = run(CASES[name], nnref), run(CASES[name], torch)
    if ours[0] == theirs[0] == "raises":  # nnref may name the layer, or add a hint
        assert ours[1] == theirs[1] and (theirs[2] in ours[2] or name in OWN_MESSAGE), (ours, theirs)
    else:
        assert ours == theirs


def test_gumbel_softmax_warns_about_eps_as_pytorch():
    for m in (nnref, torch):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            m.nn.functional.gumbel_softmax(m.zeros(2, 3), eps=1e-3)


def test_deprecated_names_warn_as_pytorch_and_compute_the_same():
    values = np.arange(12.0).reshape(1, 1, 3, 4)
    results = []
    for m in (nnref, torch):
        F = m.nn.functional
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            loss = m.nn.NLLLoss2d(ignore_index=1)
        with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
            up = F.upsample(m.tensor(values), scale_factor=2)
        with pytest.warns(UserWarning, match="`nn.functional.upsample_nearest` is deprecated"):
            nearest = F.upsample_nearest(m.tensor(values), size=(4, 5))
        with pytest.warns(UserWarning, match="`nn.functional.upsample_bilinear` is deprecated"):
            bilinear = F.upsample_bilinear(m.tensor(values), scale_factor=2)
        scores = m.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 2, 2))
        results.append([repr(loss), round(float(loss(scores, m.tensor([[[0, 1], [2, 1]], [[1, 0], [0, 2]]]))), 12),
                        up.numpy().tolist(), nearest.numpy().tolist(),
                        np.round(bilinear.numpy(), 12).tolist()])  # PyTorch sums the corners in another order
    assert results[0] == results[1]


def test_buffer_registers_itself_as_pytorchs():
    results = []
    for m in (torch, nnref):
        class Holder(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.kept = m.nn.Buffer(m.ones(2))
                self.scratch = m.nn.Buffer(m.zeros(3), persistent=False)
                self.plain = m.ones(1)

        module = Holder()
        leaf = m.ones(2, requires_grad=True)
        marked = m.nn.Buffer(leaf)
        module.kept = m.nn.Buffer(m.full((2,), 3.0), persistent=False)  # re-assigned: now non-persistent
        module.plain_again = m.nn.Buffer(m.zeros(1))
        results.append([list(module.state_dict()), [n for n, _ in module.named_buffers()],
                        isinstance(module.scratch, m.nn.Buffer), isinstance(m.ones(1), m.nn.Buffer),
                        type(marked).__name__, marked.requires_grad, marked.grad_fn is None, marked.persistent,
                        list(m.nn.Buffer().shape), repr(module), module.kept.tolist()])
    assert results[0] == results[1]


def test_softmin_without_dim_warns_as_pytorch():
    for m in (nnref, torch):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
            m.nn.Softmin()(m.zeros(2, 3))


def test_embedding_bag_refuses_what_pytorch_computes_inconsistently():
    bag = nnref.nn.EmbeddingBag(10, 3, mode="sum", scale_grad_by_freq=True)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        bag(nnref.tensor([1, 2, 1]), nnref.tensor([0]))
    bag = nnref.nn.EmbeddingBag(10, 3, include_last_offset=True)
    with pytest.raises(RuntimeError, match="the last offset must be the input's length"):
        bag(nnref.tensor([1, 2, 1]), nnref.tensor([0, 2]))


def test_dropout3d_warns_as_pytorch_for_other_dims():
    for m in (nnref, torch):
        with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
            m.nn.functional.dropout3d(m.ones(2, 3, 4), 0.5)


def test_instance_norm_warns_as_pytorch_when_the_channels_do_not_match():
    for m in (nnref, torch):
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
            m.nn.InstanceNorm1d(3)(m.zeros(2, 4, 5))
        with pytest.warns(UserWarning, match="input's size at dim=0 does not match num_features"):
            m.nn.InstanceNorm2d(3)(m.zeros(2, 4, 5))


@pytest.mark.parametrize("name", ["prelu", "threshold", "hardshrink", "softshrink", "soft_margin_loss", "reflect_pad",
                                  "replicate_pad", "circular_pad", "unfold", "fold", "channel_shuffle", "max_unpool2d"])
def test_second_derivatives_match_pytorch(name):
    results = []
    for m in (torch, nnref):
        t = m.tensor(np.random.default_rng(1).standard_normal((2, 3)) * 2, requires_grad=True)
        F = m.nn.functional
        w = m.tensor([0.1, -0.3, 0.7], dtype=m.float64, requires_grad=True)
        y = {"prelu": lambda: F.prelu(t, w) * t, "threshold": lambda: F.threshold(t, 0.1, 2.0) * t,
             "hardshrink": lambda: F.hardshrink(t, 0.5) * t, "softshrink": lambda: F.softshrink(t, 0.5) * t,
             "soft_margin_loss": lambda: F.soft_margin_loss(t, (t.detach() > 0.3).double() * 2 - 1, reduction="none") * t,
             "reflect_pad": lambda: F.pad(t, (2, 1), mode="reflect") ** 3,
             "replicate_pad": lambda: F.pad(t, (2, 1), mode="replicate") ** 3,
             "circular_pad": lambda: F.pad(t, (2, 1), mode="circular") ** 3,
             "unfold": lambda: F.unfold(t.reshape(1, 1, 2, 3), 2, padding=1) ** 3,
             "fold": lambda: F.fold(t.reshape(1, 2, 3), (2, 3), (2, 1)) ** 3,
             "channel_shuffle": lambda: F.channel_shuffle(t.reshape(1, 2, 3), 2) ** 3,
             "max_unpool2d": lambda: F.max_unpool2d(t.reshape(1, 1, 2, 3), m.tensor([[[[0, 2, 5], [7, 9, 10]]]]), (1, 2))
             ** 3,
             }[name]()
        inputs = (t, w) if name == "prelu" else (t,)
        first = m.autograd.grad(y.sum(), inputs, create_graph=True)
        second = m.autograd.grad(sum((g * g).sum() for g in first), inputs)
        results.append([np.round(g.detach().numpy(), 6).tolist() for g in (*first, *second)])
    assert results[0] == results[1]
