"""`pip install ./python` builds the library with cargo and bundles it, so that the installed
package imports with no environment variable, and leaves the source tree as it was.

It runs pip and cargo, so the main test run skips it: ctest runs it as the test `python_install`
(with cargo on the library build's target directory), or by hand:
DIRECTML_SUBSET_TEST_INSTALL=1 python/run_tests.sh <lib> tests/test_install.py

Offline: pip builds with the setuptools of this Python (--no-build-isolation; 77 or newer,
which python/requirements-test.txt asks for) and looks at no index."""

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


def has_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # its parent package is missing
        return False


@pytest.mark.skipif(
    os.environ.get("DIRECTML_SUBSET_TEST_INSTALL") != "1",
    reason="runs pip and cargo: ctest's python_install, or set DIRECTML_SUBSET_TEST_INSTALL=1",
)
def test_pip_install_bundles_the_library(tmp_path):
    # What setup.py builds wheels with, from this Python: setuptools' own bdist_wheel (70.1+)
    # or the `wheel` package's.
    if not any(has_module(m) for m in ("setuptools.command.bdist_wheel", "wheel.bdist_wheel")):
        pytest.fail("pip install --no-build-isolation needs setuptools 77 or newer in this Python: "
                    "pip install -r python/requirements-test.txt")
    before = source_tree_state()
    target = tmp_path / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
           "--disable-pip-version-check", "--target", str(target), str(PYTHON_DIR)]
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
