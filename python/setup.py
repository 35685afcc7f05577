"""Builds the Rust library with cargo and bundles it inside the `directml_subset` package.

`pip install ./python` (from a clone of the repository) runs this in place: the build step runs
`cargo build --release --manifest-path ../Cargo.toml`, finds the cdylib cargo produced (cargo's
own JSON messages say where, so CARGO_TARGET_DIR is honoured) and copies it next to
`directml_subset/__init__.py`. Set CARGO to use another cargo binary.

The binary wheel (scripts/dist.sh wheel) bundles a library built beforehand instead: it sets
DIRECTML_SUBSET_PREBUILT_LIBRARY to that file and DIRECTML_SUBSET_WHEEL_PLATFORM to the
platform tag the library meets (manylinux_2_17_x86_64).
"""

import atexit
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 ships bdist_wheel itself
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # older setuptools: the wheel package's
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
MANIFEST = HERE.parent / "Cargo.toml"
PACKAGE = "directml_subset"

# The file name the package loads (read from the package without importing it: the import
# needs the library this script builds).
LIBRARY_FILE = runpy.run_path(str(HERE / PACKAGE / "_library_file.py"))["LIBRARY_FILE"]


def crate_version():
    try:
        text = MANIFEST.read_text()
    except OSError:
        return "0.0.0"
    m = re.search(r'^\s*version\s*=\s*"([^"]+)"', text, re.M)
    return m.group(1) if m else "0.0.0"


def build_rust_library():
    prebuilt = os.environ.get("DIRECTML_SUBSET_PREBUILT_LIBRARY")
    if prebuilt:
        if not Path(prebuilt).is_file():
            sys.exit(f"directml_subset: DIRECTML_SUBSET_PREBUILT_LIBRARY={prebuilt} is not a file")
        return Path(prebuilt)
    if not MANIFEST.exists():
        sys.exit(
            f"directml_subset: {MANIFEST} not found. Build the Python package from a clone of the "
            "repository: pip install ./python"
        )
    cargo = os.environ.get("CARGO", "cargo")
    cmd = [
        cargo,
        "build",
        "--release",
        "--lib",
        "--manifest-path",
        str(MANIFEST),
        "--message-format=json-render-diagnostics",
    ]
    print("directml_subset: running " + " ".join(cmd), flush=True)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True)
    except FileNotFoundError:
        sys.exit(f"directml_subset: `{cargo}` not found; install Rust (https://rustup.rs) to build the library")
    except subprocess.CalledProcessError as e:
        sys.exit(f"directml_subset: cargo build failed (exit {e.returncode})")
    found = None
    for line in proc.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-artifact":
            continue
        if msg.get("target", {}).get("name") != "directml_subset":
            continue
        for f in msg.get("filenames", []):
            if Path(f).name == LIBRARY_FILE:
                found = Path(f)
    if found is None or not found.exists():
        sys.exit(f"directml_subset: cargo did not report building {LIBRARY_FILE}")
    return found


class BuildPyWithCargo(build_py):
    def run(self):
        super().run()
        library = build_rust_library()
        if getattr(self, "editable_mode", False):
            dest_dir = HERE / PACKAGE
        else:
            dest_dir = Path(self.build_lib) / PACKAGE
        dest_dir.mkdir(parents=True, exist_ok=True)
        dest = dest_dir / LIBRARY_FILE
        shutil.copyfile(library, dest)
        print(f"directml_subset: bundled {library} as {dest}", flush=True)


class BinaryDistribution(Distribution):
    """The package holds a native library: it installs into platlib (the wheel's root is not
    purelib), as a package with extension modules does."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """The wheel holds a native library but no Python extension: any Python 3, this platform."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", os.environ.get("DIRECTML_SUBSET_WHEEL_PLATFORM") or plat


# Build products and metadata go to a temporary folder, never into the source tree (pip builds
# a local directory in place): `pip install ./python` leaves no build/ or *.egg-info behind.
SCRATCH = tempfile.mkdtemp(prefix="directml_subset-build-")
atexit.register(shutil.rmtree, SCRATCH, True)

setup(
    version=crate_version(),
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildPyWithCargo, "bdist_wheel": PlatformWheel},
    options={
        "build": {"build_base": os.path.join(SCRATCH, "build")},
        "egg_info": {"egg_base": SCRATCH},
    },
)
