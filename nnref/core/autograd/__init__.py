"""The core's autograd: grad modes, the graph's nodes, the engine (with ``backward`` and
``grad``, where a pass starts) and custom Functions."""
