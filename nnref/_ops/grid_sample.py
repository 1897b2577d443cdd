"""``grid_sampler_2d`` and ``grid_sampler_3d`` (``F.grid_sample`` on 4-D and 5-D inputs) with their
backward, and ``affine_grid_generator`` (``F.affine_grid``) with its backward.

Mirrors ``aten/src/ATen/native/GridSampler.cpp`` (the checks, and the scalar 3-D loops with the
helpers of ``GridSampler.h``, compiled without FMA), the vectorised 2-D CPU kernel
``aten/src/ATen/native/cpu/GridSamplerKernel.cpp`` (``ComputeLocation``, ``ApplyGridSample``,
``grid_sample_2d_grid_slice_iterator``), and ``aten/src/ATen/native/AffineGridGenerator.cpp``.

The kernel is compiled with FMA contraction: ``(in + 1) * scale - 0.5`` and the sums of products
(``nw_val * nw + ne_val * ne + ...``) round once per multiply-add, the first product alone;
:func:`_fma` reproduces that.  The input gradient is a float scatter-add in the kernel's order
(vectors of ``step`` grid points, the nw, ne, sw and se corners of one vector in turn), so it is
an ``add.at`` over events in that order, in the input's dtype, as the kernel adds them.
"""
import math

import numpy as np

from .._capability import SUM_LANES as _LANES
from ..core._device import array_module_of
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .fused import fma as _fma, linspace_values

__all__ = ["grid_sampler_2d", "affine_grid_generator"]

_CUBIC_A = -0.75  # the cubic convolution constant, as in UpSampleBicubic2d.h


class _Location:
    """``ComputeLocation`` for one spatial size: grid values to source positions with the padding
    rule, and ``d position / d grid``."""

    def __init__(self, size, padding, align_corners, dtype):
        self.kind = dtype.type
        f = self.kind
        self.size, self.padding, self.align_corners = size, padding, align_corners
        self.max_val = f(size - 1)
        if align_corners:
            self.scaling_factor = f(size - 1) / f(2)
            self.low, self.twice_span, self.empty = f(0), f(size - 1) * f(2), size <= 1
        else:
            self.scaling_factor = f(size) / f(2)
            self.low, self.twice_span, self.empty = f(-0.5), f(size) * f(2), size <= 0

    def unnormalize(self, g):
        f = self.kind
        if self.align_corners:
            return (g + f(1)) * self.scaling_factor
        return _fma(g + f(1), self.scaling_factor, f(-0.5))

    def clip(self, x):
        """``clamp_max(max_val, clamp_min(0, x))``: NaN becomes 0, as the operand order makes it."""
        xp = array_module_of(x)
        x = xp.where(x > 0, x, self.kind(0))
        return xp.where(x < self.max_val, x, self.max_val)

    def _reflect_parts(self, x):
        xp = array_module_of(x)
        shifted = x - self.low if not self.align_corners else x
        with np.errstate(invalid="ignore", over="ignore"):
            abs_in = xp.abs(shifted)
            double_flips = xp.trunc(abs_in / self.twice_span)
            extra = _fma(-double_flips, self.twice_span, abs_in)
        return shifted, extra, self.twice_span - extra

    def reflect(self, x):
        xp = array_module_of(x)
        if self.empty:
            return xp.zeros_like(x)
        _, extra, reflected = self._reflect_parts(x)
        out = xp.where(xp.isnan(extra) | (extra < reflected), extra, reflected)
        return out + self.low if not self.align_corners else out

    def coordinates(self, x):
        """``compute_coordinates``: the padding rule on positions already unnormalised."""
        if self.padding == "border":
            return self.clip(x)
        if self.padding == "reflection":
            return self.clip(self.reflect(x))
        return x

    def apply(self, g):
        return self.coordinates(self.unnormalize(g))

    def apply_get_grad(self, g):
        xp = array_module_of(g)
        f = self.kind
        x = self.unnormalize(g)
        if self.padding == "zeros":
            return x, xp.full(x.shape, self.scaling_factor)
        grad = xp.full(x.shape, self.scaling_factor)
        if self.padding == "reflection":
            if self.empty:
                return xp.zeros_like(x), xp.zeros_like(x)
            shifted, extra, reflected = self._reflect_parts(x)
            flip = extra > reflected
            x = xp.where(flip, reflected, extra)
            if not self.align_corners:
                x = x + self.low
            grad = xp.where(flip ^ (shifted < 0), f(-1), f(1)) * grad
        bounded_lo = xp.where(xp.isnan(x) | (x > 0), x, f(0))
        res = xp.where(xp.isnan(bounded_lo) | (bounded_lo < self.max_val), bounded_lo, self.max_val)
        inside = (bounded_lo != 0) & (res != self.max_val)
        return res, xp.where(inside, grad, f(0))


def _indices(x, size):
    """Integer positions (0 where the float one is NaN or out of ``int32`` range) and which lie in
    ``[0, size)``: the kernel's masks, taken before its ``int32`` conversion can wrap."""
    xp = array_module_of(x)
    inside = (x >= 0) & (x < size)
    return xp.where(inside, x, 0).astype(np.int64), inside


class _Sampler:
    """The source positions, weights and in-bound masks of one call, shared by forward and backward:
    ``corners`` is a list of ``(row, col, inside, weight)`` in the kernel's order."""

    def __init__(self, input_shape, grid, mode, padding, align_corners, with_grad):
        self.xp = xp = array_module_of(grid)
        dtype = grid.dtype
        self.H, self.W = input_shape[2], input_shape[3]
        self.mode, self.padding = mode, padding
        self.loc_w = _Location(self.W, padding, align_corners, dtype)
        self.loc_h = _Location(self.H, padding, align_corners, dtype)
        gx, gy = grid[..., 0], grid[..., 1]
        f = dtype.type
        with np.errstate(invalid="ignore", over="ignore"):
            if mode == "bicubic":
                x, y = self.loc_w.unnormalize(gx), self.loc_h.unnormalize(gy)
                self.gx_mult = xp.full(x.shape, self.loc_w.scaling_factor)
                self.gy_mult = xp.full(y.shape, self.loc_h.scaling_factor)
                ix, iy = xp.floor(x), xp.floor(y)
                self.tx, self.ty = x - ix, y - iy
                cx, cy = _cubic_coefficients(self.tx), _cubic_coefficients(self.ty)
                self.cx, self.cy = cx, cy
                # interp_x[j] sums the four columns of row j; the corners run row-major.
                self.corners = []
                for j in range(4):
                    for i in range(4):
                        r, rin = self._bounded(iy + f(j - 1), self.loc_h, self.H)
                        c, cin = self._bounded(ix + f(i - 1), self.loc_w, self.W)
                        self.corners.append((r, c, rin & cin, None))
            elif mode == "nearest":
                x, y = self.loc_w.apply(gx), self.loc_h.apply(gy)
                c, cin = _indices(xp.rint(x), self.W)
                r, rin = _indices(xp.rint(y), self.H)
                self.corners = [(r, c, rin & cin, None)]
            else:
                if with_grad:
                    x, self.gx_mult = self.loc_w.apply_get_grad(gx)
                    y, self.gy_mult = self.loc_h.apply_get_grad(gy)
                else:
                    x, y = self.loc_w.apply(gx), self.loc_h.apply(gy)
                x_w, y_n = xp.floor(x), xp.floor(y)
                w = x - x_w
                e = f(1) - w
                n = y - y_n
                s = f(1) - n
                self.n, self.s, self.w, self.e = n, s, w, e
                cw, win = _indices(x_w, self.W)
                ce, ein = _indices(x_w + f(1), self.W)
                rn, nin = _indices(y_n, self.H)
                rs, sin = _indices(y_n + f(1), self.H)
                self.corners = [(rn, cw, nin & win, s * e), (rn, ce, nin & ein, s * w),
                                (rs, cw, sin & win, n * e), (rs, ce, sin & ein, n * w)]

    def _bounded(self, coord, loc, size):
        """``get_value_bounded``'s position: the padding rule on an integer position, then the mask."""
        return _indices(loc.coordinates(coord), size)

    def gather(self, data, corner):
        """The input values at one corner, ``(N, C, H_out, W_out)``, zero where out of bounds."""
        xp = self.xp
        r, c, inside, _ = corner
        batch = xp.arange(data.shape[0]).reshape(-1, 1, 1, 1)
        channel = xp.arange(data.shape[1]).reshape(1, -1, 1, 1)
        values = data[batch, channel, r[:, None], c[:, None]]
        return xp.where(inside[:, None], values, data.dtype.type(0))


def _cubic_coefficients(t):
    """``get_cubic_coefficients``: the four cubic convolution weights.  As compiled (measured), the
    outer ones round every step (their sums add products by constants, which are not fused) and the
    inner ones fuse both multiply-adds."""
    f = t.dtype.type
    a = f(_CUBIC_A)

    def outer(x):
        return ((a * x - f(5) * a) * x + f(8) * a) * x - f(4) * a

    def inner(x):
        return _fma(_fma(a + f(2), x, -(a + f(3))) * x, x, f(1))

    return [outer(t + f(1)), inner(t), inner(f(1) - t), outer(f(2) - t)]


def _cubic_coefficients_grad(t):
    """``get_cubic_coefficients_grad``: the derivatives of the four weights by ``x``, rounded at
    every step (each multiply-add there adds a product of constants, which fusing leaves exact)."""
    f = t.dtype.type
    a = f(_CUBIC_A)
    x0, x1, x2, x3 = f(-1) - t, f(0) - t, f(1) - t, f(2) - t
    return [(f(-3) * a * x0 - f(10) * a) * x0 - f(8) * a,
            (f(-3) * (a + f(2)) * x1 - f(2) * (a + f(3))) * x1,
            (f(3) * (a + f(2)) * x2 - f(2) * (a + f(3))) * x2,
            (f(3) * a * x3 - f(10) * a) * x3 + f(8) * a]


def _weighted_sum(values, weights):
    """``v0 * w0 + v1 * w1 + ...`` as compiled: the first product, then one fused add per term."""
    out = values[0] * weights[0]
    for v, w in zip(values[1:], weights[1:]):
        out = _fma(v, w, out)
    return out


def _forward(data, grid, mode, padding, align_corners):
    sampler = _Sampler(data.shape, grid, mode, padding, align_corners, False)
    with np.errstate(invalid="ignore", over="ignore"):
        if mode == "nearest":
            return sampler.gather(data, sampler.corners[0])
        if mode == "bilinear":
            return _weighted_sum([sampler.gather(data, c) for c in sampler.corners],
                                 [c[3][:, None] for c in sampler.corners])
        rows = []
        for j in range(4):
            values = [sampler.gather(data, sampler.corners[4 * j + i]) for i in range(4)]
            c0, c1, c2, c3 = (c[:, None] for c in sampler.cx)
            # As compiled (measured): the first two products fused, the other two added rounded.
            rows.append(_fma(c0, values[0], c1 * values[1]) + c2 * values[2] + c3 * values[3])
        return _weighted_sum([c[:, None] for c in sampler.cy], rows)


def _chunked_order(grid):
    """The kernel's vectors of grid points: ``(rows, per_row)`` for ``grid_sample_2d_grid_slice_iterator``
    (the whole ``H x W`` slice when it is contiguous in either layout, else one row at a time)."""
    _, H, W, _ = grid.shape
    item = grid.itemsize
    sH, sW, sC = (s // item for s in grid.strides[1:])
    flat = H == 1 or (sW in (1, 2) and sH == W * sW and abs(sC) in (1, H * W)) or (W == 1 and sH in (1, 2))
    return (1, H * W) if flat else (H, W)


def _scatter_add(shape, events, dtype, grid):
    """The input gradient: ``events`` is a list, in the kernel's corner order, of
    ``(row, col, inside, value)`` with ``value`` of shape ``(N, C, H_out, W_out)``; each is added to
    ``grad_input`` in the order the kernel adds them (one vector of points, all its corners, then
    the next vector), in ``dtype``."""
    xp = array_module_of(events[0][3])
    N, C, H, W = shape
    rows, per_row = _chunked_order(grid)
    step = _LANES[np.dtype(dtype)]
    chunks = -(-per_row // step)
    padded = chunks * step - per_row

    def arrange(a):
        """``(N, C?, H_out, W_out)`` to ``(N, C?, rows, chunks, step)``, padded with the lanes past ``len``."""
        a = a.reshape(*a.shape[:-2], rows, per_row)
        a = xp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, padded)])
        return a.reshape(*a.shape[:-1], chunks, step)

    targets, values, valid = [], [], []
    for r, c, inside, value in events:
        targets.append(arrange(r * W + c)[:, None])
        valid.append(arrange(inside)[:, None])
        values.append(arrange(value))
    # Corners sit between the chunk and lane axes: (N, C, rows, chunks, corner, step).
    target = xp.broadcast_to(xp.stack(targets, -2), (N, C, rows, chunks, len(events), step))
    keep = xp.broadcast_to(xp.stack(valid, -2), target.shape)
    value = xp.stack(values, -2)
    base = (xp.arange(N * C) * (H * W)).reshape(N, C, 1, 1, 1, 1)
    out = xp.zeros(N * C * H * W, dtype=dtype)
    xp.add.at(out, (target + base)[keep], value[keep])
    return out.reshape(shape)


def _backward(grad_out, data, grid, mode, padding, align_corners, input_needed):
    """``grid_sampler_2d_backward``: ``(grad_input or None, grad_grid)``."""
    xp = array_module_of(data)
    sampler = _Sampler(data.shape, grid, mode, padding, align_corners, mode == "bilinear")
    grad_input = None
    with np.errstate(invalid="ignore", over="ignore"):
        if mode == "nearest":
            if input_needed:
                grad_input = _scatter_add(data.shape, [sampler.corners[0][:3] + (grad_out,)], data.dtype, grid)
            return grad_input, xp.zeros(grid.shape, grid.dtype)
        if mode == "bilinear":
            if input_needed:
                events = [c[:3] + (c[3][:, None] * grad_out,) for c in sampler.corners]
                grad_input = _scatter_add(data.shape, events, data.dtype, grid)
            nw, ne, sw, se = (sampler.gather(data, c) for c in sampler.corners)
            s, n, e, w = (v[:, None] for v in (sampler.s, sampler.n, sampler.e, sampler.w))
            # gx += ((ne - nw) * s + (se - sw) * n) * gOut, summed over channels in order.
            gx = _fused_running_sum(_fma(se - sw, n, (ne - nw) * s), grad_out)
            gy = _fused_running_sum(_fma(se - ne, w, (sw - nw) * e), grad_out)
        else:
            gcx, gcy = _cubic_coefficients_grad(sampler.tx), _cubic_coefficients_grad(sampler.ty)
            events, dx, dy = [], [], []
            for j in range(4):
                for i in range(4):
                    corner = sampler.corners[4 * j + i]
                    cx, cy = sampler.cx[i][:, None], sampler.cy[j][:, None]
                    if input_needed:
                        events.append(corner[:3] + (grad_out * cx * cy,))
                    val_g = sampler.gather(data, corner) * grad_out
                    dx.append((val_g * gcx[i][:, None], cy))
                    dy.append((val_g * gcy[j][:, None], cx))
            if input_needed:
                grad_input = _scatter_add(data.shape, _kernel_order(events), data.dtype, grid)
            gx, gy = _cubic_grid_sum(_kernel_order(dx)), _cubic_grid_sum(_kernel_order(dy))
        grad_grid = xp.stack([gx * sampler.gx_mult, gy * sampler.gy_mult], -1)
    return grad_input, grad_grid.astype(grid.dtype, copy=False)


def _kernel_order(terms):
    """Bicubic's kernel loops ``i`` (columns) outside ``j`` (rows); ``terms`` come row-major."""
    return [terms[4 * j + i] for i in range(4) for j in range(4)]


def _cubic_grid_sum(terms):
    """``g = g - a * b`` over the channels (outer loop) and the 16 neighbours (inner): ``terms``
    are ``[(a, b), ...]`` with ``a`` of shape ``(N, C, H, W)``, ``b`` ``(N, 1, H, W)``."""
    xp = array_module_of(terms[0][0])
    a = xp.stack([t[0] for t in terms], 2)  # (N, C, 16, H, W)
    b = xp.stack([xp.broadcast_to(t[1], t[0].shape) for t in terms], 2)
    n = a.shape[0]
    return _fused_running_sum(-a.reshape(n, -1, *a.shape[3:]), b.reshape(n, -1, *b.shape[3:]))


def _fused_running_sum(a, b):
    """``g = fma(a[:, k], b[:, k], g)`` for ``k`` in order from ``g = 0``: the kernel's accumulation
    over channels, one rounding per step, so a loop over that axis (each step vectorised)."""
    xp = array_module_of(a)
    g = xp.zeros((a.shape[0],) + a.shape[2:], dtype=a.dtype)
    for k in range(a.shape[1]):
        g = _fma(a[:, k], b[:, k], g)
    return g


class GridSampler2DBackwardBackward0(Node):
    """The node PyTorch gives the gradients under ``create_graph=True``; nnref does not differentiate
    ``grid_sampler_2d_backward``, so going through it raises instead of treating them as constants."""
    num_outputs = 2

    def _zeros_for_output(self, index):
        return None  # backward raises whichever gradients arrive

    def backward(self, *grads):
        raise NotImplementedError("nnref cannot differentiate grid_sample's backward (GridSampler2DBackwardBackward0): "
                                  "double backward through F.grid_sample is not implemented")


class GridSampler2DBackward0(Node):
    """``grid_sampler_2d_backward``: gradients for ``input`` (when it needs one) and ``grid``."""

    def backward(self, grad):
        input_, grid = self.saved_tensors
        need_input, need_grid = self.needs_input_grad
        grad_input, grad_grid = _backward(grad._data, input_._data, grid._data, self.mode, self.padding,
                                          self.align_corners, need_input)
        grads = (wrap(grad_input, grad) if need_input else None, wrap(grad_grid, grad) if need_grid else None)
        if needs_grad(grad, input_, grid):
            node = GridSampler2DBackwardBackward0((grad, input_, grid))
            for output_nr, g in enumerate(grads):
                if g is not None:
                    g.grad_fn, g._output_nr = node, output_nr
        return grads


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def check_grid_sampler(input, grid):
    """``check_grid_sampler_common`` and ``check_grid_sampler_2d`` of ``GridSampler.cpp``."""
    if input._device != grid._device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input._device} and grid is on {grid._device}")
    if input._dtype != grid._dtype:  # the kernel's accessor check, before the shape checks
        raise RuntimeError(f"expected scalar type {input._dtype._legacy_name[:-6]} but found "
                           f"{grid._dtype._legacy_name[:-6]}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_shape(input)} and grid with sizes {_shape(grid)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, "
                           f"but got grid with sizes {_shape(grid)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {_shape(input)} with dimension {i} being empty")


def grid_sampler_2d(input, grid, mode, padding, align_corners):
    """``grid_sampler_2d``: samples ``(N, C, H, W)`` at the ``(N, H_out, W_out, 2)`` positions of
    ``grid`` (x then y, in ``[-1, 1]``), with its node ``GridSampler2DBackward0``."""
    data = _forward(input._data, grid._data, mode, padding, align_corners)
    return record(wrap(data.astype(input._data.dtype, copy=False), input), GridSampler2DBackward0,
                  (input, grid), saved=(input, grid), mode=mode, padding=padding, align_corners=align_corners)


def _linspace_from_neg_one(n, align_corners, dtype, xp):
    """``linspace_from_neg_one``: ``n`` points over ``[-1, 1]``, pulled in by ``(n - 1) / n`` to the
    pixel centres unless ``align_corners``."""
    if n <= 1:
        return xp.zeros(1, dtype=dtype)
    f = dtype.type
    points = linspace_values(-1.0, 1.0, n, dtype, xp)
    if not align_corners:
        points = points * f(n - 1) / f(n)
    return points


def base_grid(size, align_corners, dtype, xp):
    """``make_base_grid_4D`` / ``make_base_grid_5D``: ``(1, *spatial, dims + 1)`` holding the
    normalised ``x, y(, z)`` of every output position and a trailing 1."""
    spatial = [int(s) for s in size[2:]]
    axes = [_linspace_from_neg_one(n, align_corners, dtype, xp) for n in reversed(spatial)]  # x first
    grids = xp.meshgrid(*[a for a in reversed(axes)], indexing="ij")  # spatial order
    coords = list(reversed(grids)) + [xp.ones(spatial, dtype=dtype)]
    return xp.stack(coords, -1)[None]


class AffineGridGeneratorBackward0(Node):
    """``affine_grid_generator_backward``: ``base_grid^T @ grad_grid`` per batch, transposed."""

    def backward(self, grad):
        from .linalg import bmm
        n = grad.shape[0]
        dims = len(self.size) - 2
        base = wrap(base_grid(self.size, self.align_corners, grad._data.dtype, array_module_of(grad._data)), grad)
        points = base.reshape(1, -1, dims + 1).expand(n, -1, dims + 1)
        grad_theta = bmm(points.transpose(1, 2), grad.reshape(n, -1, dims))
        return (grad_theta.transpose(1, 2),)


def affine_grid_generator(theta, size, align_corners):
    """``affine_grid_generator``: ``base_grid @ theta^T`` per batch, shaped ``(N, *spatial, dims)``.
    The product has 3 (or 4) terms; PyTorch's batched GEMM sums them left to right, each rounded
    (measured bit for bit), which is what the explicit sum below does."""
    size = [int(s) for s in size]
    dims = len(size) - 2
    data = theta._data
    base = base_grid(size, align_corners, data.dtype, array_module_of(data))[..., None, :]  # (1, *sp, 1, k)
    t = data.reshape(data.shape[0], *([1] * dims), dims, dims + 1)  # (N, *1, dims, k)
    out = base[..., 0] * t[..., 0]
    for k in range(1, dims + 1):
        out = out + base[..., k] * t[..., k]
    return record(wrap(out, theta), AffineGridGeneratorBackward0, (theta,), size=size,
                  align_corners=align_corners)


# -- grid_sampler_3d: the scalar CPU code of GridSampler.cpp (compiled without FMA) -------------------


def _source_index_3d(coord, size, padding, align_corners, with_grad):
    """``grid_sampler_compute_source_index(_set_grad)`` of ``GridSampler.h``: unnormalise, then clip
    or reflect (``fmod``) and clip; with ``with_grad`` also ``d index / d coord``."""
    xp = array_module_of(coord)
    f = coord.dtype.type
    if align_corners:
        x = ((coord + f(1)) / f(2)) * f(size - 1)
        grad = xp.full(coord.shape, f(size - 1) / f(2))
    else:
        x = ((coord + f(1)) * f(size) - f(1)) / f(2)
        grad = xp.full(coord.shape, f(size) / f(2))
    if padding == "zeros":
        return x, grad
    if padding == "reflection":
        twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if twice_low == twice_high:
            x, mult = xp.zeros_like(x), xp.zeros_like(x)
        else:
            low = f(twice_low) / f(2)
            span = f(twice_high - twice_low) / f(2)
            shifted = x - low
            mult = xp.where(shifted < 0, f(-1), f(1))
            shifted = xp.abs(shifted)
            extra = xp.fmod(shifted, span)
            odd = (xp.floor(shifted / span) % 2) != 0
            x = xp.where(odd, span - extra + low, extra + low)
            mult = xp.where(odd, -mult, mult)
        grad = grad * mult
    top = f(size - 1)
    if with_grad:  # clip_coordinates_set_grad: the borders count as outside, NaN passes through
        outside = (x <= 0) | (x >= top)
        return xp.where(x <= 0, f(0), xp.where(x >= top, top, x)), xp.where(outside, f(0), grad)
    clipped = xp.where(x <= 0, f(0), xp.where(x >= top, top, x))
    return xp.where(xp.isnan(x), top, clipped), grad  # std::min(size - 1, std::max(nan, 0)) is size - 1


_CORNERS_3D = [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]  # tnw..bse: (dz, dy, dx)


class _Sampler3D:
    """Source positions, corner indices, masks and weights of one ``grid_sampler_3d`` call."""

    def __init__(self, input_shape, grid, mode, padding, align_corners, with_grad):
        xp = self.xp = array_module_of(grid)
        f = grid.dtype.type
        self.D, self.H, self.W = input_shape[2:]
        with np.errstate(invalid="ignore", over="ignore"):
            ix, self.gx_mult = _source_index_3d(grid[..., 0], self.W, padding, align_corners, with_grad)
            iy, self.gy_mult = _source_index_3d(grid[..., 1], self.H, padding, align_corners, with_grad)
            iz, self.gz_mult = _source_index_3d(grid[..., 2], self.D, padding, align_corners, with_grad)
            self.ix, self.iy, self.iz = ix, iy, iz
            if mode == "nearest":
                self.corners = [self._corner(xp.rint(iz), xp.rint(iy), xp.rint(ix))]
                return
            x0, y0, z0 = xp.floor(ix), xp.floor(iy), xp.floor(iz)
            self.x0, self.y0, self.z0 = x0, y0, z0
            self.corners = [self._corner(z0 + dz, y0 + dy, x0 + dx) for dz, dy, dx in _CORNERS_3D]
            # The weight of a corner: the distances to the opposite corner, x * y * z, as written.
            self.weights = []
            for dz, dy, dx in _CORNERS_3D:
                wx, wy, wz = self.distances(dx, dy, dz)
                self.weights.append(wx * wy * wz)

    def distances(self, dx, dy, dz):
        """``(ix_opp - ix)`` or ``(ix - ix_opp)`` per axis for the corner ``(dz, dy, dx)``."""
        f = self.ix.dtype.type
        wx = (self.ix - self.x0) if dx else ((self.x0 + f(1)) - self.ix)
        wy = (self.iy - self.y0) if dy else ((self.y0 + f(1)) - self.iy)
        wz = (self.iz - self.z0) if dz else ((self.z0 + f(1)) - self.iz)
        return wx, wy, wz

    def _corner(self, z, y, x):
        inside = (z >= 0) & (z < self.D) & (y >= 0) & (y < self.H) & (x >= 0) & (x < self.W)
        xp = self.xp
        z, y, x = (xp.where(inside, v, 0).astype(np.int64) for v in (z, y, x))
        return (z * self.H + y) * self.W + x, inside

    def gather(self, data, corner):
        """Input values at a corner, ``(N, C, D_out, H_out, W_out)``, 0 outside."""
        xp = self.xp
        flat_index, inside = corner
        n, c = data.shape[:2]
        flat = data.reshape(n, c, -1)
        values = xp.take_along_axis(flat, flat_index.reshape(n, 1, -1), axis=2).reshape(n, c, *flat_index.shape[1:])
        return xp.where(inside[:, None], values, data.dtype.type(0))


def _running_sum(terms):
    """``acc = 0; acc += t`` over the leading axis of ``terms``, in order, in the dtype."""
    xp = array_module_of(terms)
    return xp.cumsum(terms, axis=0, dtype=terms.dtype)[-1]


def _forward_3d(data, grid, mode, padding, align_corners):
    sampler = _Sampler3D(data.shape, grid, mode, padding, align_corners, False)
    xp = sampler.xp
    with np.errstate(invalid="ignore", over="ignore"):
        if mode == "nearest":
            return sampler.gather(data, sampler.corners[0])
        # out = 0; out += value * weight for each corner inside, in the kernel's corner order.
        terms = xp.stack([xp.where(c[1][:, None], sampler.gather(data, c) * w[:, None], data.dtype.type(0))
                          for c, w in zip(sampler.corners, sampler.weights)])
        return _running_sum(terms)


def _scatter_add_3d(shape, events, dtype):
    """The input gradient: per grid point in order (n, d, h, w), each corner's value added in turn
    (``safe_add_3d``), in the dtype; ``events`` are ``(flat_index, inside, value (N, C, *out))``."""
    xp = array_module_of(events[0][2])
    n, c = shape[:2]
    volume = math.prod(shape[2:])
    index = xp.stack([xp.broadcast_to(e[0][:, None], e[2].shape) for e in events], -1)  # (N, C, *out, corners)
    keep = xp.stack([xp.broadcast_to(e[1][:, None], e[2].shape) for e in events], -1)
    value = xp.stack([e[2] for e in events], -1)
    base = (xp.arange(n * c) * volume).reshape(n, c, *([1] * (index.ndim - 2)))
    out = xp.zeros(n * c * volume, dtype=dtype)
    xp.add.at(out, (index + base)[keep], value[keep])  # in the kernel's order, in the dtype
    return out.reshape(shape)


def _backward_3d(grad_out, data, grid, mode, padding, align_corners, input_needed):
    """``grid_sampler_3d_backward``: ``(grad_input or None, grad_grid)``."""
    xp = array_module_of(data)
    f = data.dtype.type
    sampler = _Sampler3D(data.shape, grid, mode, padding, align_corners, True)
    grad_input = None
    with np.errstate(invalid="ignore", over="ignore"):
        if mode == "nearest":
            if input_needed:
                corner = sampler.corners[0]
                grad_input = _scatter_add_3d(data.shape, [(corner[0], corner[1], grad_out)], data.dtype)
            return grad_input, xp.zeros(grid.shape, grid.dtype)
        if input_needed:
            events = [(c[0], c[1], w[:, None] * grad_out) for c, w in zip(sampler.corners, sampler.weights)]
            grad_input = _scatter_add_3d(data.shape, events, data.dtype)
        # gix -= / += value * (the other two distances) * gOut, per channel, corner by corner.
        gx, gy, gz = [], [], []
        for corner, (dz, dy, dx) in zip(sampler.corners, _CORNERS_3D):
            wx, wy, wz = sampler.distances(dx, dy, dz)
            value = sampler.gather(data, corner)
            inside = corner[1][:, None]
            for out, a, b, sign in ((gx, wy, wz, dx), (gy, wx, wz, dy), (gz, wx, wy, dz)):
                term = value * a[:, None] * b[:, None] * grad_out
                out.append(xp.where(inside, term if sign else -term, f(0)))
        # Channels outside, corners inside: (N, C, 8, ...) -> (C * 8, N, ...) in that order.
        sums = [_running_sum(xp.moveaxis(xp.stack(g, 2), (1, 2), (0, 1)).reshape(-1, *g[0].shape[:1],
                                                                                  *g[0].shape[2:]))
                for g in (gx, gy, gz)]
        grad_grid = xp.stack([sampler.gx_mult * sums[0], sampler.gy_mult * sums[1], sampler.gz_mult * sums[2]], -1)
    return grad_input, grad_grid.astype(grid.dtype, copy=False)


class GridSampler3DBackward0(Node):
    """``grid_sampler_3d_backward``: gradients for ``input`` (when it needs one) and ``grid``."""

    def backward(self, grad):
        input_, grid = self.saved_tensors
        need_input, need_grid = self.needs_input_grad
        grad_input, grad_grid = _backward_3d(grad._data, input_._data, grid._data, self.mode, self.padding,
                                             self.align_corners, need_input)
        grads = (wrap(grad_input, grad) if need_input else None, wrap(grad_grid, grad) if need_grid else None)
        if needs_grad(grad, input_, grid):
            node = GridSampler3DBackwardBackward0((grad, input_, grid))
            for output_nr, g in enumerate(grads):
                if g is not None:
                    g.grad_fn, g._output_nr = node, output_nr
        return grads


class GridSampler3DBackwardBackward0(GridSampler2DBackwardBackward0):
    """As :class:`GridSampler2DBackwardBackward0`, for 5-D inputs."""


def grid_sampler_3d(input, grid, mode, padding, align_corners):
    """``grid_sampler_3d``: samples ``(N, C, D, H, W)`` at the ``(N, D_out, H_out, W_out, 3)``
    positions of ``grid`` (x, y, z in ``[-1, 1]``), trilinear or nearest, with ``GridSampler3DBackward0``."""
    data = _forward_3d(input._data, grid._data, mode, padding, align_corners)
    return record(wrap(data.astype(input._data.dtype, copy=False), input), GridSampler3DBackward0,
                  (input, grid), saved=(input, grid), mode=mode, padding=padding, align_corners=align_corners)
