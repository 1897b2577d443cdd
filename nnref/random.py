"""``torch.random``: the generator's functions under their module name (``fork_rng`` too)."""
from ._random import (default_generator, fork_rng, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]
