"""`pip install ./python` builds the library with cargo and bundles it, so that the installed
package imports with no environment variable. Slow (runs cargo), so opt-in:
DIRECTML_SUBSET_TEST_INSTALL=1 python/run_tests.sh <lib> -k install"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent


def source_tree_state():
    """Every file under python/ that git does not track (ignored ones included), or the
    status when git is there."""
    try:
        return subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "."],
            cwd=PYTHON_DIR, check=True, capture_output=True, text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(p.relative_to(PYTHON_DIR)) for p in PYTHON_DIR.rglob("*") if "__pycache__" not in p.parts)


@pytest.mark.skipif(
    os.environ.get("DIRECTML_SUBSET_TEST_INSTALL") != "1",
    reason="opt-in: set DIRECTML_SUBSET_TEST_INSTALL=1 (runs cargo build --release)",
)
def test_pip_install_bundles_the_library(tmp_path):
    before = source_tree_state()
    target = tmp_path / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(PYTHON_DIR)]
    if importlib.util.find_spec("setuptools") and importlib.util.find_spec("wheel"):
        cmd.insert(4, "--no-build-isolation")
    subprocess.run(cmd, check=True)
    bundled = target / "directml_subset" / "libdirectml_subset.so"
    assert bundled.is_file()
    assert (target / "directml_subset" / "py.typed").is_file()
    # Nothing left in the source tree (no build/, no *.egg-info), ignored files included.
    assert source_tree_state() == before
    env = {k: v for k, v in os.environ.items() if k not in ("DIRECTML_SUBSET_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    code = (
        "import numpy as np, directml_subset as d; "
        "print(d.LIBRARY_PATH); "
        "assert d.onnx_nonzero(np.eye(2)).tolist() == [[0, 1], [0, 1]]"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, check=True, capture_output=True, text=True
    ).stdout
    assert Path(out.strip()).resolve() == bundled.resolve()
