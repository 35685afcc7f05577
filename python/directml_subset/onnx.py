"""NonZero, Trilu and EyeLike for ONNX's reference evaluator, run by directml_subset.

    import onnx.reference
    import directml_subset.onnx

    sess = onnx.reference.ReferenceEvaluator(model, new_ops=directml_subset.onnx.OPS)
    outputs = sess.run(None, {"x": x})

Every node of these three operators runs on the library (``onnx_nonzero``, ``trilu``,
``eye_like``: DirectML's NONZERO_COORDINATES, DIAGONAL_MATRIX1 and DIAGONAL_MATRIX); every
other operator stays ONNX's reference implementation. Needs the ``onnx`` package.

Types: the library runs bool, int8/16/32/64, uint8/16/32/64 and float16/32/64 (the types of
ONNX's NonZero, Trilu and EyeLike save strings, bfloat16 and, for NonZero and Trilu, complex64
and complex128). Any other type (for example bfloat16, strings or complex) falls back to
ONNX's reference implementation of the operator, so a model that runs without the overrides
runs with them. EyeLike outside the library's reach
falls back too: a 1-D input (ONNX's reference accepts it as a square matrix) or an
output ``dtype`` the library has no type for. Errors of the library itself (for example a
device too old for the operator) raise ``directml_subset.DirectMLError``.

``device``: the functions run on ``directml_subset.default_device()``; set
``DirectMLOp.device`` (class attribute) to run them on another ``Device``.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
from onnx.reference.op_run import OpRun
from onnx.reference.ops.op_eyelike import EyeLike as _RefEyeLike
from onnx.reference.ops.op_non_zero import NonZero as _RefNonZero
from onnx.reference.ops.op_trilu import Trilu as _RefTrilu

from . import _api, _tensor

__all__ = ["NonZero", "Trilu", "EyeLike", "OPS", "DirectMLOp"]


def _supported(dtype: np.dtype) -> bool:
    try:
        _tensor.data_type(dtype, "onnx")
    except TypeError:
        return False
    return True


class DirectMLOp(OpRun):
    """Base of the three operators: ``device`` is the Device they run on (None: the default)."""

    op_domain = ""
    device: Optional[_api.Device] = None


class NonZero(DirectMLOp):
    """ONNX NonZero on DirectML's DML_OPERATOR_NONZERO_COORDINATES (``onnx_nonzero``)."""

    def _run(self, x: np.ndarray) -> Tuple[np.ndarray]:
        if not _supported(x.dtype):
            return _RefNonZero._run(self, x)
        return (_api.onnx_nonzero(x, device=self.device),)


class Trilu(DirectMLOp):
    """ONNX Trilu on DirectML's DML_OPERATOR_DIAGONAL_MATRIX1 (``trilu``)."""

    def _run(self, x: np.ndarray, k: Optional[np.ndarray] = None, upper: Any = None) -> Tuple[np.ndarray]:
        if not _supported(x.dtype) or x.ndim < 2:
            return _RefTrilu._run(self, x, k, upper=upper)
        kk = 0 if k is None else int(np.asarray(k).reshape(()).item())
        return (_api.trilu(x, kk, upper=bool(1 if upper is None else upper), device=self.device),)


class EyeLike(DirectMLOp):
    """ONNX EyeLike on DirectML's DML_OPERATOR_DIAGONAL_MATRIX (``eye_like``)."""

    def _run(self, data: np.ndarray, *args: Any, dtype: Optional[int] = None, k: Optional[int] = None) -> Tuple[np.ndarray]:
        out_dtype = None
        if dtype is not None:
            from onnx import TensorProto
            from onnx.helper import tensor_dtype_to_np_dtype

            if dtype == TensorProto.STRING:
                out_dtype = None
            else:
                out_dtype = np.dtype(tensor_dtype_to_np_dtype(dtype))
        target = data.dtype if dtype is None else out_dtype
        if data is None or data.ndim != 2 or target is None or not _supported(target):
            return _RefEyeLike._run(self, data, *args, dtype=dtype, k=k)
        return (_api.eye_like(data, 0 if k is None else int(k), dtype=target, device=self.device),)


#: The three operators, for ``ReferenceEvaluator(model, new_ops=OPS)``.
OPS = [NonZero, Trilu, EyeLike]
