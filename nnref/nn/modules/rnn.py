"""``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their one-step cells (``torch/nn/modules/rnn.py``).

The parameters, their names, order, shapes and initial values are PyTorch's, so a
state_dict moves between the libraries and ``manual_seed`` gives the same weights.  The
recurrence is written with ``F.linear``, ``sigmoid``, ``tanh``, ``stack`` and ``cat``, the
way ATen's CPU fallback (``aten/src/ATen/native/RNN.cpp``) composes it: the input
projections of all time steps in one product, then one step per time step.  Autograd
records those ops' nodes (PyTorch's CPU LSTM records its oneDNN kernel instead).  A
``PackedSequence`` input runs ATen's packed layers: each step only the sequences still running,
and the output is packed again, with each sequence's final state from its own last step.
"""
import math
import numbers
import warnings

from ... import _ops
from ..._creation import empty, zeros
from ...core._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """The parameters and the layer/direction loop that RNN, LSTM and GRU share."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size:
            raise NotImplementedError("nnref's LSTM has no proj_size (projected hidden states); PyTorch's "
                                      "has: leave proj_size at 0 or project the outputs with nn.Linear")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        factory_kwargs = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                suffix = "_reverse" if direction else ""
                layer_input_size = input_size if layer == 0 else hidden_size * (2 if bidirectional else 1)
                shapes = [("weight_ih", (gate_size, layer_input_size)), ("weight_hh", (gate_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias uniform in ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``, in order."""
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op, as in PyTorch on the CPU (it packs the weights for cuDNN)."""

    @property
    def all_weights(self):
        """The weights grouped per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]``
        (``torch/nn/modules/rnn.py``)."""
        per_direction = 4 if self.bias else 2
        weights = [getattr(self, name) for name in self._flat_weights_names]
        return [weights[i:i + per_direction] for i in range(0, len(weights), per_direction)]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- the forward pass ---------------------------------------------------------------------------
    def _check_input(self, input):
        if not isinstance(input, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a tensor input, got {type(input).__name__}")
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def _initial_state(self, input, hx, batch_size, batched):
        directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * directions, batch_size, self.hidden_size)
        if hx is None:
            return zeros(expected, dtype=input.dtype, device=input.device)
        if not batched:
            if hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
        elif hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(hx.shape)}")
        return hx

    def _run(self, input, states):
        """The layers and directions over ``input`` (time, batch, features); ``states`` is a list of
        initial state tensors (h, or h and c), each (layers * directions, batch, hidden)."""
        directions = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                suffix = "_reverse" if direction else ""
                weights = [getattr(self, f"{kind}_l{layer}{suffix}") for kind in ("weight_ih", "weight_hh")]
                biases = [getattr(self, f"{kind}_l{layer}{suffix}") if self.bias else None
                          for kind in ("bias_ih", "bias_hh")]
                projected = F.linear(layer_input, weights[0], biases[0])  # every time step at once
                state = [s[index] for s in states]
                steps = range(layer_input.shape[0] - 1, -1, -1) if direction else range(layer_input.shape[0])
                produced = [None] * layer_input.shape[0]
                for t in steps:
                    state = self._cell(projected[t], state, weights[1], biases[1])
                    produced[t] = state[0]
                outputs.append(_ops.shape.stack(produced, 0))
                for final, value in zip(finals, state):
                    final.append(value)
            layer_input = outputs[0] if directions == 1 else _ops.shape.cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, training=True)
        return layer_input, [_ops.shape.stack(final, 0) for final in finals]

    def _run_packed(self, data, batch_sizes, states):
        """The layers and directions over the packed steps ``data`` (ATen's ``PackedLayer`` and
        ``ReversedPackedLayer``, ``aten/src/ATen/native/RNN.cpp``): each step runs the sequences
        still going, and a sequence's final state is the one after its own last step."""
        directions = 2 if self.bidirectional else 1
        starts = [0]
        for size in batch_sizes[:-1]:
            starts.append(starts[-1] + size)
        finals = [[] for _ in states]
        layer_input = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                suffix = "_reverse" if direction else ""
                weight_ih, weight_hh = (getattr(self, f"{kind}_l{layer}{suffix}") for kind in ("weight_ih", "weight_hh"))
                bias_ih, bias_hh = (getattr(self, f"{kind}_l{layer}{suffix}") if self.bias else None
                                    for kind in ("bias_ih", "bias_hh"))
                projected = F.linear(layer_input, weight_ih, bias_ih)  # every step at once
                steps = [projected[start:start + size] for start, size in zip(starts, batch_sizes)]
                run = self._packed_reversed if direction else self._packed_forward
                output, state = run(steps, [s[index] for s in states], weight_hh, bias_hh)
                outputs.append(output)
                for final, value in zip(finals, state):
                    final.append(value)
            layer_input = outputs[0] if directions == 1 else _ops.shape.cat(outputs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, training=True)
        return layer_input, [_ops.shape.stack(final, 0) for final in finals]

    def _packed_forward(self, steps, initial, weight_hh, bias_hh):
        """Forward in time; when the batch shrinks, the rows that leave keep their state as final."""
        state, finished, produced = initial, [], []
        for step in steps:
            size, last = step.shape[0], state[0].shape[0]
            if size < last:
                finished.append([s[size:last] for s in state])
                state = [s[:size] for s in state]
            state = self._cell(step, state, weight_hh, bias_hh)
            produced.append(state[0])
        finished.append(state)
        finished.reverse()  # the longest sequences (first rows) ended last
        return _ops.shape.cat(produced, 0), [_ops.shape.cat(list(pieces), 0) for pieces in zip(*finished)]

    def _packed_reversed(self, steps, initial, weight_hh, bias_hh):
        """Backward in time from each sequence's last step: rows join with their initial state."""
        state, produced = [s[:steps[-1].shape[0]] for s in initial], []
        for step in reversed(steps):
            size, last = step.shape[0], state[0].shape[0]
            if size > last:
                state = [_ops.shape.cat([s, start[last:size]], 0) for s, start in zip(state, initial)]
            state = self._cell(step, state, weight_hh, bias_hh)
            produced.append(state[0])
        produced.reverse()
        return _ops.shape.cat(produced, 0), state

    def _forward_packed(self, input, hx_list):
        """A ``PackedSequence`` in and out; the states are in the caller's batch order, as
        PyTorch's ``permute_hidden`` keeps them (``torch/nn/modules/rnn.py``)."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.shape[-1]}")
        sizes = [int(size) for size in batch_sizes.tolist()]
        states = []
        for hx in hx_list:
            if hx is not None and sorted_indices is not None:
                hx = hx.index_select(1, sorted_indices)
            states.append(self._initial_state(data, hx, sizes[0], True))
        output, finals = self._run_packed(data, sizes, states)
        if unsorted_indices is not None:
            finals = [final.index_select(1, unsorted_indices) for final in finals]
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), finals

    def _forward(self, input, hx_list):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx_list)
        self._check_input(input)
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        states = [self._initial_state(input, hx, input.shape[1], batched) for hx in hx_list]
        output, finals = self._run(input, states)
        if not batched:
            return output.squeeze(1), [f.squeeze(1) for f in finals]
        if self.batch_first:
            output = output.transpose(0, 1)
        return output, finals


class RNN(RNNBase):
    """The Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size,
                         num_layers, bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)

    def _cell(self, projected, state, weight_hh, bias_hh):
        pre = projected + F.linear(state[0], weight_hh, bias_hh)
        return [pre.tanh() if self.nonlinearity == "tanh" else pre.relu()]

    def forward(self, input, hx=None):
        """``(output, h_n)``: the last layer's state at every step, and every layer's last state."""
        output, (h_n,) = self._forward(input, [hx])
        return output, h_n


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates (in that order in the weights)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device=device, dtype=dtype)

    def _cell(self, projected, state, weight_hh, bias_hh):
        h, c = state
        gates = projected + F.linear(h, weight_hh, bias_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return [o.sigmoid() * c.tanh(), c]

    def forward(self, input, hx=None):
        """``(output, (h_n, c_n))``; ``hx`` is ``(h_0, c_0)`` or None (zeros)."""
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise RuntimeError("LSTM expects hx to be a tuple (h_0, c_0)")
        output, (h_n, c_n) = self._forward(input, [None, None] if hx is None else list(hx))
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit: reset, update and new gates (in that order in the weights)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, device=device, dtype=dtype)

    def _cell(self, projected, state, weight_hh, bias_hh):
        (h,) = state
        hidden = F.linear(h, weight_hh, bias_hh)
        i_r, i_z, i_n = projected.chunk(3, 1)
        h_r, h_z, h_n = hidden.chunk(3, 1)
        reset, update = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
        new = (i_n + reset * h_n).tanh()
        return [new + update * (h - new)]

    def forward(self, input, hx=None):
        """``(output, h_n)``."""
        output, (h_n,) = self._forward(input, [hx])
        return output, h_n



__all__ += ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Module):
    """The parameters of one recurrent step: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        factory_kwargs = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        """Every weight and bias uniform in ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``, in order
        (``torch/nn/modules/rnn.py``)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_step(self, input, hiddens):
        """ATen's ``check_rnn_cell_forward_input`` and ``_hidden`` (``aten/src/ATen/native/RNN.cpp``)."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for index, hx in enumerate(hiddens):
            if input.shape[0] != hx.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{index} batch size "
                                   f"{hx.shape[0]}")
            if hx.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {hx.shape[1]}, expected "
                                   f"{self.hidden_size}")

    def _batched(self, input, hx, count):
        """``input`` as ``(batch, input_size)`` and the ``count`` hidden states (zeros when ``hx`` is None)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        hiddens = None if hx is None else ([hx] if count == 1 else list(hx))
        if hiddens is not None:
            if count == 1 and hx.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
            if count > 1:
                for index, value in enumerate(hiddens):
                    if value.dim() not in (1, 2):
                        raise ValueError(f"{name}: Expected hx[{index}] to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hiddens is None:
            state = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            hiddens = [state] * count
        elif not batched:
            hiddens = [h.unsqueeze(0) for h in hiddens]
        return input, hiddens, batched


class RNNCell(RNNCellBase):
    """One step of the Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """The next hidden state ``(batch, hidden_size)`` (or ``(hidden_size)`` for an unbatched input)."""
        input, (h,), batched = self._batched(input, hx, 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_step(input, [h])
        pre = F.linear(h, self.weight_hh, self.bias_hh) + F.linear(input, self.weight_ih, self.bias_ih)
        ret = pre.tanh() if self.nonlinearity == "tanh" else pre.relu()
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: input, forget, cell and output gates (in that order in the weights); returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """``(h', c')``; ``hx`` is ``(h, c)`` or None (zeros)."""
        if hx is not None and len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        input, (h, c), batched = self._batched(input, hx, 2)
        self._check_step(input, [h, c])
        gates = F.linear(h, self.weight_hh, self.bias_hh) + F.linear(input, self.weight_ih, self.bias_ih)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: reset, update and new gates (in that order in the weights)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """The next hidden state ``(batch, hidden_size)`` (or ``(hidden_size)`` for an unbatched input)."""
        input, (h,), batched = self._batched(input, hx, 1)
        self._check_step(input, [h])
        i_r, i_z, i_n = F.linear(input, self.weight_ih, self.bias_ih).chunk(3, 1)
        h_r, h_z, h_n = F.linear(h, self.weight_hh, self.bias_hh).chunk(3, 1)
        reset, update = (h_r + i_r).sigmoid(), (h_z + i_z).sigmoid()
        new = (i_n + h_n * reset).tanh()
        ret = (h - new) * update + new
        return ret if batched else ret.squeeze(0)
