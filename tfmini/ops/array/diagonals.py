"""Diagonals and bands of (batches of) matrices: MatrixBandPart, MatrixDiagV3,
MatrixDiagPartV3, MatrixSetDiagV3, and the tensor diagonals Diag and DiagPart.

Semantics follow ``tensorflow/core/kernels/linalg/matrix_diag_op.cc`` and
``matrix_band_part_op.cc``: ``k`` is one diagonal index or a ``[low, high]`` band; a band's
diagonals are stacked from ``high`` down to ``low``, each ``max_diag_len`` long, shorter ones
aligned by ``align`` (superdiagonals first, subdiagonals second) and padded with
``padding_value``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_autopacked, build_output
from tfmini.ops.common.kernel_util import invalid_argument

_ALIGN = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'"


# ----------------------------------------------------------------------------------------
# MatrixBandPart


def _band_part_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 0)
    shape_fns.with_rank(ic.input_shape(2), 0)
    return [shape_fns.with_rank_at_least(ic.input_shape(0), 2)]


@register_op(
    "MatrixBandPart",
    inputs=["input: T", "num_lower: Tindex", "num_upper: Tindex"],
    outputs=["band: T"],
    attrs=["T: type", "Tindex: {int32, int64} = DT_INT64"],
    shape_fn=_band_part_shape,
)
def matrix_band_part_kernel(input, num_lower, num_upper):  # noqa: A002
    """Zeros outside the band of ``num_lower`` sub- and ``num_upper`` superdiagonals
    (negative keeps the whole triangle)."""
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{dims_str(x.shape)}")
    m, n = x.shape[-2:]
    lo, hi = np.asarray(num_lower), np.asarray(num_upper)
    for name, v, limit in (("num_lower", lo, m), ("num_upper", hi, n)):
        if v.ndim != 0:
            raise invalid_argument(f"{name} must be scalar, got shape {dims_str(v.shape)}")
        if int(v) > limit:
            raise invalid_argument(
                f"{name} must be negative or less or equal to number of "
                f"{'rows' if name == 'num_lower' else 'columns'} ({limit}) got: {int(v)}")
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = np.ones((m, n), bool)
    if int(lo) >= 0:
        keep &= (i - j) <= int(lo)
    if int(hi) >= 0:
        keep &= (j - i) <= int(hi)
    return np.where(keep, x, np.zeros((), x.dtype))


def matrix_band_part(input: Any, num_lower: Any, num_upper: Any,  # noqa: A002
                     name: str | None = None) -> Output:
    """The band of each inner matrix (``tf.linalg.band_part``).

    Args:
        input: ``[..., M, N]`` tensor.
        num_lower: Subdiagonals kept (negative: all).
        num_upper: Superdiagonals kept (negative: all).
        name: Optional op name.

    Returns:
        A tensor of ``input``'s shape.
    """
    x = as_operand(input)
    lower = as_operand(num_lower, None)
    upper = as_operand(num_upper, lower.dtype)
    return build_output("MatrixBandPart", [x, lower, upper], name=name)


# ----------------------------------------------------------------------------------------
# Diagonal layout helpers (the kernels' index arithmetic)


def _k_range(k: np.ndarray) -> tuple[int, int]:
    flat = np.asarray(k).reshape(-1).tolist()
    if not flat or len(flat) > 2:
        raise invalid_argument(f"diag_index must have only one or two elements, received "
                               f"{len(flat)} elements.")
    lo, hi = int(flat[0]), int(flat[-1])
    if lo > hi:
        raise invalid_argument(f"lower_diag_index must not be larger than upper_diag_index: "
                               f"{lo} > {hi}")
    return lo, hi


def _left_aligned(d: int, align: str) -> bool:
    sup_left = align in ("LEFT_LEFT", "LEFT_RIGHT")
    sub_left = align in ("LEFT_LEFT", "RIGHT_LEFT")
    return (d >= 0 and sup_left) or (d <= 0 and sub_left)


def _diag_positions(d: int, m: int, n: int, max_len: int, align: str):
    """(slot in the stored diagonal, row, column) of each element of diagonal ``d``."""
    length = max(0, min(m + min(0, d), n - max(0, d)))
    offset = 0 if _left_aligned(d, align) else max_len - length
    j = np.arange(length)
    rows = j - min(d, 0)
    cols = j + max(d, 0)
    return offset + j, rows, cols


# ----------------------------------------------------------------------------------------
# MatrixDiagPartV3


def _static_k(ic, key) -> tuple[int, int] | None:
    v = ic.input_value(key)
    if v is None:
        return None
    flat = np.asarray(v).reshape(-1).tolist()
    if not flat or len(flat) > 2:
        raise ValueError("diag_index must be a scalar or a vector of length 2")
    if flat[0] > flat[-1]:
        raise ValueError(f"lower_diag_index is greater than upper_diag_index: {flat[0]} > "
                         f"{flat[-1]}")
    return int(flat[0]), int(flat[-1])


def _diag_part_shape(ic) -> list[TensorShape]:
    inp = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    shape_fns.with_rank_at_most(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 0)
    k = _static_k(ic, 1)
    if inp.dims is None or k is None:
        return [unknown_shape()]
    *batch, m, n = inp.dims
    lo, hi = k
    if m is not None and not (lo > -m or lo == 0):
        raise ValueError(f"lower_diag_index is out of bound: {lo}. It must be between {-m} "
                         f"and {n}")
    if n is not None and not (hi < n or hi == 0):
        raise ValueError(f"upper_diag_index is out of bound: {hi} It must be between {-m} and "
                         f"{n}")
    max_len = None if m is None or n is None else min(m + min(hi, 0), n - max(lo, 0))
    dims = [*batch] + ([hi - lo + 1] if lo != hi else []) + [max_len]
    return [TensorShape(dims)]


@register_op(
    "MatrixDiagPartV3",
    inputs=["input: T", "k: int32", "padding_value: T"],
    outputs=["diagonal: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_diag_part_shape,
)
def matrix_diag_part_v3_kernel(input, k, padding_value, *, align):  # noqa: A002
    """The diagonals ``k`` of each inner matrix."""
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{dims_str(x.shape)}")
    pad = np.asarray(padding_value)
    if pad.ndim != 0:
        raise invalid_argument(f"padding_value must be a scalar, received shape "
                               f"{dims_str(pad.shape)}")
    lo, hi = _k_range(k)
    m, n = x.shape[-2:]
    if not ((lo > -m or lo == 0) and (hi < n or hi == 0)):
        raise invalid_argument(
            f"Diagonal out of bounds: lower_diag_index = {lo}, upper_diag_index = {hi}, "
            f"num_rows = {m}, num_cols = {n}")
    max_len = min(m + min(hi, 0), n - max(lo, 0))
    num = hi - lo + 1
    out = np.full(x.shape[:-2] + (num, max_len), pad, dtype=x.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        slots, rows, cols = _diag_positions(d, m, n, max_len, align)
        out[..., r, slots] = x[..., rows, cols]
    return out[..., 0, :] if num == 1 else out


def matrix_diag_part(input: Any, name: str = "diag_part", k: Any = 0,  # noqa: A002
                     padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Output:
    """The diagonal(s) ``k`` of each inner matrix (``tf.linalg.diag_part``).

    Args:
        input: ``[..., M, N]`` tensor.
        name: Op name.
        k: A diagonal index (0 main, positive above) or a ``[low, high]`` band.
        padding_value: Fills the slots of diagonals shorter than the longest.
        align: How short diagonals sit: superdiagonal side then subdiagonal side.

    Returns:
        ``[..., max_diag_len]``, or ``[..., high - low + 1, max_diag_len]`` for a band.
    """
    x = as_operand(input)
    return build_autopacked("MatrixDiagPartV3", [x, _k_input(k), as_operand(padding_value,
                                                                              x.dtype)],
                            {"align": align}, name=name).outputs[0]


def _k_input(k: Any) -> Output:
    return as_operand(k if isinstance(k, Output) else np.asarray(k, np.int32))


# ----------------------------------------------------------------------------------------
# MatrixDiagV3


def _diag_v3_shape(ic) -> list[TensorShape]:
    diag = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    k = _static_k(ic, 1)
    rows, cols = ic.input_value(2), ic.input_value(3)
    if diag.dims is None or k is None or rows is None or cols is None:
        return [unknown_shape()]
    lo, hi = k
    dims = list(diag.dims)
    if lo != hi:
        if len(dims) < 2:
            raise ValueError("diagonal must be at least 2-dim when lower_diag_index < "
                             "upper_diag_index")
        if dims[-2] is not None and dims[-2] != hi - lo + 1:
            raise ValueError("The number of rows of `diagonal` doesn't match the number of "
                             "diagonals implied from `d_lower` and `d_upper`.")
        batch = dims[:-2]
    else:
        batch = dims[:-1]
    max_len = dims[-1]
    if max_len is None:
        return [TensorShape([*batch, None, None])]
    m, n = _infer_rows_cols(int(rows), int(cols), lo, hi, max_len, ValueError)
    return [TensorShape([*batch, m, n])]


def _infer_rows_cols(rows: int, cols: int, lo: int, hi: int, max_len: int, error) -> tuple:
    min_rows = max_len - min(hi, 0)
    min_cols = max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if not (rows == min_rows or cols == min_cols):
        msg = ("The number of rows or columns is not consistent with the specified d_lower, "
               "d_upper, and diagonal.")
        raise error(msg) if error is ValueError else invalid_argument(msg)
    return rows, cols


@register_op(
    "MatrixDiagV3",
    inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32",
            "padding_value: T"],
    outputs=["output: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_diag_v3_shape,
)
def matrix_diag_v3_kernel(diagonal, k, num_rows, num_cols, padding_value, *, align):
    """Matrices with the given diagonals, ``padding_value`` elsewhere."""
    diag = np.asarray(diagonal)
    lo, hi = _k_range(k)
    for name, v in (("num_rows", num_rows), ("num_cols", num_cols),
                    ("padding_value", padding_value)):
        if np.ndim(v) != 0:
            raise invalid_argument(f"{name} must be a scalar")
    num = hi - lo + 1
    if num > 1 and (diag.ndim < 2 or diag.shape[-2] != num):
        raise invalid_argument(
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range.")
    if diag.ndim < 1:
        raise invalid_argument("diagonal must be at least 1-dim")
    max_len = diag.shape[-1]
    m, n = _infer_rows_cols(int(num_rows), int(num_cols), lo, hi, max_len, None)
    batch = diag.shape[:-2] if num > 1 else diag.shape[:-1]
    stacked = diag if num > 1 else diag[..., None, :]
    out = np.full(batch + (m, n), np.asarray(padding_value), dtype=diag.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        slots, rows, cols = _diag_positions(d, m, n, max_len, align)
        out[..., rows, cols] = stacked[..., r, slots]
    return out


def matrix_diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1,
                num_cols: Any = -1, padding_value: Any = 0,
                align: str = "RIGHT_LEFT") -> Output:
    """Matrices with the given diagonal(s) (``tf.linalg.diag``, op ``MatrixDiagV3``).

    Args:
        diagonal: ``[..., max_diag_len]``, or ``[..., num_diags, max_diag_len]`` for a band.
        name: Op name.
        k: The diagonal index or ``[low, high]`` band.
        num_rows: Rows of the result (-1: inferred).
        num_cols: Columns of the result (-1: inferred).
        padding_value: The value off the diagonals.
        align: How short diagonals sit in ``diagonal``.

    Returns:
        ``[..., num_rows, num_cols]``.
    """
    d = as_operand(diagonal)
    ints = [as_operand(v if isinstance(v, Output) else np.asarray(v, np.int32))
            for v in (num_rows, num_cols)]
    return build_autopacked(
        "MatrixDiagV3", [d, _k_input(k), *ints, as_operand(padding_value, d.dtype)],
        {"align": align}, name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# MatrixSetDiagV3


def _set_diag_shape(ic) -> list[TensorShape]:
    inp = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    _static_k(ic, 2)
    return [inp]


@register_op(
    "MatrixSetDiagV3",
    inputs=["input: T", "diagonal: T", "k: int32"],
    outputs=["output: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_set_diag_shape,
)
def matrix_set_diag_v3_kernel(input, diagonal, k, *, align):  # noqa: A002
    """``input`` with its diagonals ``k`` replaced by ``diagonal``."""
    x, diag = np.asarray(input), np.asarray(diagonal)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{dims_str(x.shape)}")
    lo, hi = _k_range(k)
    m, n = x.shape[-2:]
    if not ((lo > -m or lo == 0) and (hi < n or hi == 0)):
        raise invalid_argument(
            f"Diagonal out of bounds: lower_diag_index = {lo}, upper_diag_index = {hi}, "
            f"num_rows = {m}, num_cols = {n}")
    num = hi - lo + 1
    max_len = min(m + min(hi, 0), n - max(lo, 0))
    expected = x.shape[:-2] + ((num,) if num > 1 else ()) + (max_len,)
    if diag.shape != expected:
        raise invalid_argument(
            f"diagonal must have shape {dims_str(expected)}, received shape "
            f"{dims_str(diag.shape)}")
    out = x.copy()
    stacked = diag if num > 1 else diag[..., None, :]
    for r, d in enumerate(range(hi, lo - 1, -1)):
        slots, rows, cols = _diag_positions(d, m, n, max_len, align)
        out[..., rows, cols] = stacked[..., r, slots]
    return out


def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0,  # noqa: A002
                    align: str = "RIGHT_LEFT") -> Output:
    """``input`` with diagonal(s) ``k`` replaced (``tf.linalg.set_diag``).

    Args:
        input: ``[..., M, N]`` tensor.
        diagonal: The new diagonal(s), shaped as :func:`matrix_diag_part` returns them.
        name: Op name.
        k: The diagonal index or ``[low, high]`` band.
        align: How short diagonals sit in ``diagonal``.

    Returns:
        A tensor of ``input``'s shape.
    """
    x = as_operand(input)
    return build_autopacked("MatrixSetDiagV3", [x, as_operand(diagonal, x.dtype), _k_input(k)],
                            {"align": align}, name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# The older versions: MatrixDiag/MatrixDiagPart/MatrixSetDiag (main diagonal) and their V2
# (``k`` and padding, diagonals packed as V3's LEFT_LEFT)


def _main_diag_shape(ic) -> list[TensorShape]:
    d = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    if d.dims is None:
        return [unknown_shape()]
    return [TensorShape([*d.dims, d.dims[-1]])]


@register_op("MatrixDiag", inputs=["diagonal: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=_main_diag_shape)
def matrix_diag_kernel(diagonal):
    """Square matrices with ``diagonal`` on the main diagonal."""
    d = np.asarray(diagonal)
    if d.ndim < 1:
        raise invalid_argument(f"input must be at least 1-dim, received shape: "
                               f"{dims_str(d.shape)}")
    return matrix_diag_v3_kernel(d, np.int32(0), np.int32(-1), np.int32(-1),
                                 np.zeros((), d.dtype), align="RIGHT_LEFT")


def _main_diag_part_shape(ic) -> list[TensorShape]:
    s = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    if s.dims is None:
        return [unknown_shape()]
    *batch, m, n = s.dims
    return [TensorShape([*batch, None if m is None or n is None else min(m, n)])]


@register_op("MatrixDiagPart", inputs=["input: T"], outputs=["diagonal: T"],
             attrs=["T: type"], shape_fn=_main_diag_part_shape)
def matrix_diag_part_kernel(input):  # noqa: A002
    """The main diagonal of each inner matrix."""
    x = np.asarray(input)
    return matrix_diag_part_v3_kernel(x, np.int32(0), np.zeros((), x.dtype),
                                      align="RIGHT_LEFT")


def _main_set_diag_shape(ic) -> list[TensorShape]:
    return [shape_fns.with_rank_at_least(ic.input_shape(0), 2)]


@register_op("MatrixSetDiag", inputs=["input: T", "diagonal: T"], outputs=["output: T"],
             attrs=["T: type"], shape_fn=_main_set_diag_shape)
def matrix_set_diag_kernel(input, diagonal):  # noqa: A002
    """``input`` with its main diagonal replaced."""
    return matrix_set_diag_v3_kernel(input, diagonal, np.int32(0), align="RIGHT_LEFT")


register_op(
    "MatrixDiagV2",
    inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32",
            "padding_value: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_diag_v3_shape,
    doc="MatrixDiagV3 with diagonals packed LEFT_LEFT.",
)(lambda diagonal, k, num_rows, num_cols, padding_value: matrix_diag_v3_kernel(
    diagonal, k, num_rows, num_cols, padding_value, align="LEFT_LEFT"))
register_op(
    "MatrixDiagPartV2",
    inputs=["input: T", "k: int32", "padding_value: T"],
    outputs=["diagonal: T"],
    attrs=["T: type"],
    shape_fn=_diag_part_shape,
    doc="MatrixDiagPartV3 with diagonals packed LEFT_LEFT.",
)(lambda input, k, padding_value: matrix_diag_part_v3_kernel(  # noqa: A006
    input, k, padding_value, align="LEFT_LEFT"))
register_op(
    "MatrixSetDiagV2",
    inputs=["input: T", "diagonal: T", "k: int32"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_set_diag_shape,
    doc="MatrixSetDiagV3 with diagonals packed LEFT_LEFT.",
)(lambda input, diagonal, k: matrix_set_diag_v3_kernel(  # noqa: A006
    input, diagonal, k, align="LEFT_LEFT"))


# ----------------------------------------------------------------------------------------
# Diag, DiagPart

_DIAG_TYPES = "T: {half, float, double, int32, int64}"


def _diag_shape(ic) -> list[TensorShape]:
    s = as_shape(ic.input_shape(0))
    if s.dims is None:
        return [unknown_shape()]
    return [TensorShape(list(s.dims) * 2)]


@register_op("Diag", inputs=["diagonal: T"], outputs=["output: T"], attrs=[_DIAG_TYPES],
             shape_fn=_diag_shape)
def diag_kernel(diagonal):
    """A tensor of shape ``D + D`` with ``diagonal`` (of shape D) on its diagonal."""
    d = np.asarray(diagonal)
    if d.ndim < 1:
        raise invalid_argument("Input must be at least rank 1, got 0")
    out = np.zeros((d.size, d.size), d.dtype)
    out[np.arange(d.size), np.arange(d.size)] = d.reshape(-1)
    return out.reshape(d.shape * 2)


def _diag_part_tensor_shape(ic) -> list[TensorShape]:
    s = as_shape(ic.input_shape(0))
    if s.dims is None:
        return [unknown_shape()]
    if s.rank % 2:
        raise ValueError(f"Input must have even rank <= 6, input rank is {s.rank}")
    half = s.rank // 2
    return [TensorShape([shape_fns.merge_dim(a, b) for a, b in zip(s.dims[:half],
                                                                    s.dims[half:])])]


@register_op("DiagPart", inputs=["input: T"], outputs=["diagonal: T"], attrs=[_DIAG_TYPES],
             shape_fn=_diag_part_tensor_shape)
def diag_part_kernel(input):  # noqa: A002
    """The diagonal of a tensor of shape ``D + D``."""
    x = np.asarray(input)
    half = x.ndim // 2
    if x.ndim % 2 or x.ndim == 0:
        raise invalid_argument(f"The rank of the tensor should be even and positive, got shape "
                               f"{dims_str(x.shape)}")
    if x.shape[:half] != x.shape[half:]:
        raise invalid_argument(f"Invalid shape {dims_str(x.shape)}: dimensions must match")
    size = int(np.prod(x.shape[:half], dtype=np.int64))
    return x.reshape(size, size)[np.arange(size), np.arange(size)].reshape(x.shape[:half])


def diag(diagonal: Any, name: str | None = None) -> Output:
    """``tf.linalg.tensor_diag``: shape ``D + D`` with ``diagonal`` on the diagonal."""
    return build_output("Diag", [diagonal], name=name)


def diag_part(input: Any, name: str | None = None) -> Output:  # noqa: A002
    """``tf.linalg.tensor_diag_part``: the diagonal of a tensor of shape ``D + D``."""
    return build_output("DiagPart", [input], name=name)


__all__ = ["diag", "diag_part", "matrix_band_part", "matrix_diag", "matrix_diag_part",
           "matrix_set_diag"]
