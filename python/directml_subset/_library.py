"""The library itself, below devices and operators: its errors (DirectMLError), its version,
its feature levels, and the base of the objects that hold one of its handles."""

from __future__ import annotations

import operator
import re

from . import _capi as C
from ._capi import lib


class DirectMLError(RuntimeError):
    """A call into the library failed.

    ``hresult`` is the HRESULT as an unsigned 32-bit number (``0x80070057`` for E_INVALIDARG,
    as Windows headers write it); ``hresult_signed`` is the same value as the C ``int32_t``.
    ``message`` is the library's message (``dmls_get_last_error_message``), ``function`` the
    ``dmls_`` function that failed and ``name`` the HRESULT's name (``"E_INVALIDARG"``).
    """

    def __init__(self, hresult: int, message: str, function: str) -> None:
        self.hresult = hresult & 0xFFFFFFFF
        self.hresult_signed = self.hresult - (1 << 32) if self.hresult & 0x80000000 else self.hresult
        self.message = message
        self.function = function
        self.name = C.HRESULT_NAMES.get(self.hresult, f"HRESULT 0x{self.hresult:08X}")
        super().__init__(f"{message} ({function} returned {self.name}, 0x{self.hresult:08X})")

    def __reduce__(self):
        # Rebuilt from its three arguments (pickle, copy): an error raised in a
        # multiprocessing worker reaches the parent as itself.
        # (With its attributes, notes included, restored after.)
        return (type(self), (self.hresult, self.message, self.function), self.__dict__)


def _check(hr, function):
    if hr < 0:
        raise DirectMLError(hr, C.last_error_message(), function)


def version() -> str:
    """The library's version (``dmls_version``)."""
    return lib.dmls_version().decode()


def _parse_level(level):
    if level is None:
        return 0
    if isinstance(level, str):
        key = level.upper()
        for prefix in ("DML_FEATURE_LEVEL_", "FEATURE_LEVEL_"):
            if key.startswith(prefix):
                key = key[len(prefix) :]
        key = key.replace(".", "_")
        newer = re.fullmatch(r"([1-9]|1[0-5])_([0-9]|1[0-5])", key)
        if key not in C.FEATURE_LEVELS and newer:
            value = int(newer[1]) << 12 | int(newer[2]) << 8
            if value > max(C.FEATURE_LEVELS.values()):
                # A level a newer DirectML may define: the library answers for it
                # (DXGI_ERROR_UNSUPPORTED for a device; not supported, in a query), as for 0xMm00.
                return value
        if key not in C.FEATURE_LEVELS:
            raise ValueError(
                f"Device: feature_level {level!r} is not a DirectML feature level "
                f"({', '.join(C.FEATURE_LEVELS)})"
            )
        return C.FEATURE_LEVELS[key]
    level = operator.index(level)
    if not 0 <= level <= C.UINT32_MAX:
        raise ValueError(f"Device: feature_level {level} does not fit DML_FEATURE_LEVEL (32 bits)")
    return level


def feature_level_name(level):
    for k, v in C.FEATURE_LEVELS.items():
        if v == level:
            return k
    return f"0x{level:x}"


class _Closable:
    """Closed by `close()`, at the end of a `with` block, or when collected."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
