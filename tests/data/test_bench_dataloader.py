"""``python -m bench.dataloader --quick`` runs end to end (the same batches checked, JSON written);
how fast anything is, is not asserted here."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parent.parent.parent


def test_quick_dataloader_benchmark(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "bench.dataloader", "--quick", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads((tmp_path / "dataloader.json").read_text())
    assert set(result["epochs"]) == {"sequential", "shuffle"}
    assert all(e["nnref_s"] > 0 and e["torch_s"] > 0 for e in result["epochs"].values())
