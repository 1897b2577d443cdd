"""``grid_sampler_2d`` (``F.grid_sample`` on 4-D inputs) and its backward, and
``affine_grid_generator`` (``F.affine_grid``) with its backward.

Mirrors ``aten/src/ATen/native/GridSampler.cpp`` (the checks) and the vectorised CPU kernel
``aten/src/ATen/native/cpu/GridSamplerKernel.cpp`` (``ComputeLocation``, ``ApplyGridSample``,
``grid_sample_2d_grid_slice_iterator``), and ``aten/src/ATen/native/AffineGridGenerator.cpp``.

The kernel is compiled with FMA contraction: ``(in + 1) * scale - 0.5`` and the sums of products
(``nw_val * nw + ne_val * ne + ...``) round once per multiply-add, the first product alone;
:func:`_fma` reproduces that.  The input gradient is a float scatter-add in the kernel's order
(vectors of ``step`` grid points, the nw, ne, sw and se corners of one vector in turn), so it is
an ``add.at`` over events in that order, in the input's dtype, as the kernel adds them.
"""
import numpy as np

from .._device import array_module_of
from ..autograd.graph import Node
from ._common import needs_grad, record, wrap
from .fused import fma as _fma, linspace_values

__all__ = ["grid_sampler_2d", "affine_grid_generator"]

# Vectorized<float> and Vectorized<double> lanes of the kernel PyTorch 2.13 runs on x86 (AVX2 width,
# measured: the input gradient of overlapping points matches with no other width).
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
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
