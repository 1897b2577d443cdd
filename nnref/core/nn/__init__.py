"""The core's ``nn``: ``Module``, ``Parameter`` and the containers (``torch/nn``)."""
