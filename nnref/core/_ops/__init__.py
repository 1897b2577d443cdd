"""The core's operations: each forward next to its backward node."""
