"""collectives.py, then ddp_train.py, in one launch (each process starts once: that is most of
the time these runs take)."""
import os
import runpy
from pathlib import Path

here = Path(__file__).resolve().parent
runpy.run_path(str(here / "collectives.py"), run_name="__main__")
if "SECOND_MASTER_PORT" in os.environ:  # PyTorch's second rendezvous needs a port of its own
    os.environ["MASTER_PORT"] = os.environ["SECOND_MASTER_PORT"]
runpy.run_path(str(here / "ddp_train.py"), run_name="__main__")
