"""The library's file name on this platform. Standard library only: setup.py reads this file
on its own (without importing the package, which needs the built library)."""

import sys

LIBRARY_FILE = {"win32": "directml_subset.dll", "darwin": "libdirectml_subset.dylib"}.get(
    sys.platform, "libdirectml_subset.so"
)
