"""Scans: Cumsum, Cumprod and CumulativeLogsumexp (``exclusive``, ``reverse``), as
``tensorflow/core/kernels/scan_ops.cc``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import FLOAT_TYPES, NUMERIC_TYPES


def _scan_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 0)
    return [ic.input_shape(0)]


def _scan_kernel(accumulate, identity):
    def kernel(x, axis, *, exclusive, reverse):
        x, a = np.asarray(x), np.asarray(axis)
        if a.ndim != 0:
            raise invalid_argument(f"ScanOp: axis must be a scalar, not {dims_str(a.shape)}")
        a = int(a)
        if not -x.ndim <= a < x.ndim:
            raise invalid_argument(
                f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got {a}")
        a %= x.ndim
        work = np.flip(x, a) if reverse else x
        if exclusive:
            pad = np.full(work.shape[:a] + (1,) + work.shape[a + 1:], identity(x.dtype), x.dtype)
            work = np.concatenate([pad, np.take(work, np.arange(work.shape[a] - 1), axis=a)], a)
        out = accumulate(work, a).astype(x.dtype)
        return np.ascontiguousarray(np.flip(out, a) if reverse else out)

    return kernel


def _cumsum(x, a):
    if x.dtype == np.float16:
        return np.cumsum(x.astype(np.float32), axis=a)
    return np.cumsum(x, axis=a, dtype=x.dtype)


def _cumprod(x, a):
    if x.dtype == np.float16:
        return np.cumprod(x.astype(np.float32), axis=a)
    return np.cumprod(x, axis=a, dtype=x.dtype)


def _cumlogsumexp(x, a):
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    return np.logaddexp.accumulate(work, axis=a)


def _register(op_type: str, types: str, accumulate, identity, doc: str) -> None:
    register_op(
        op_type,
        inputs=["x: T", "axis: Tidx"],
        outputs=["out: T"],
        attrs=["exclusive: bool = false", "reverse: bool = false", f"T: {{{types}}}",
               "Tidx: {int32, int64} = DT_INT32"],
        shape_fn=_scan_shape,
        doc=doc,
    )(_scan_kernel(accumulate, identity))


_register("Cumsum", NUMERIC_TYPES, _cumsum, lambda dt: 0, "Running sum along an axis.")
_register("Cumprod", NUMERIC_TYPES, _cumprod, lambda dt: 1, "Running product along an axis.")
_register("CumulativeLogsumexp", FLOAT_TYPES, _cumlogsumexp, lambda dt: -np.inf,
          "Running log(sum(exp(x))) along an axis.")


def _scan_fn(op_type: str, public: str, doc: str):
    def fn(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Output:
        return build_output(op_type, [as_operand(x), axis],
                            {"exclusive": exclusive, "reverse": reverse}, name=name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (
        f"{doc} (``tf.math.{public}``, op ``{op_type}``).\n\n"
        "Args:\n"
        "    x: A tensor.\n"
        "    axis: The scanned axis (default 0; negative counts from the end).\n"
        "    exclusive: Each output leaves out its own element (starts at the identity).\n"
        "    reverse: Scan from the end.\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    A tensor of x's shape.\n"
    )
    return fn


cumsum = _scan_fn("Cumsum", "cumsum", "Running sum")
cumprod = _scan_fn("Cumprod", "cumprod", "Running product")
cumulative_logsumexp = _scan_fn("CumulativeLogsumexp", "cumulative_logsumexp",
                                "Running log-sum-exp")

__all__ = ["cumprod", "cumsum"]
