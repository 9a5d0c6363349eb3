"""The two string ops a sharded ``Saver`` builds: ``StringJoin`` and ``StaticRegexFullMatch``.

TensorFlow registers them in ``tensorflow/core/ops/string_ops.cc``; they live here, beside
the checkpoint ops that need them, until tfmini has a strings family.
"""

from __future__ import annotations

import re

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument

__all__: list[str] = []


def _join_shape(ic) -> list[TensorShape]:
    out = TensorShape(())
    shapes = ic.input_shape("inputs") if ic.attrs.get("N") else []
    for shape in shapes:
        if shape.rank == 0:
            continue
        out = shape if out.rank == 0 else shape_fns.merge_shapes(out, shape)
    return [out]


def _as_text(v) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


@register_op(
    "StringJoin",
    inputs=["inputs: N * string"],
    outputs=["output: string"],
    attrs=["N: int >= 0", "separator: string = ''"],
    shape_fn=_join_shape,
)
def string_join(inputs, *, separator):
    """Joins the inputs elementwise; scalars are repeated to the others' shape."""
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shapes = {a.shape for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise invalid_argument(
            f"Input shapes do not match: {' vs. '.join(str(list(s)) for s in sorted(shapes))}")
    shape = shapes.pop() if shapes else ()
    flat = [np.broadcast_to(a, shape).ravel() for a in arrays]
    sep = _as_text(separator)
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    for i in range(out.size):
        out[i] = sep.join(_as_text(f[i]) for f in flat)
    return out.reshape(shape)


@register_op(
    "StaticRegexFullMatch",
    inputs=["input: string"],
    outputs=["output: bool"],
    attrs=["pattern: string"],
    shape_fn=shape_fns.unchanged,
)
def static_regex_full_match(input, *, pattern):  # noqa: A002 (TensorFlow's input name)
    """Whether each element matches ``pattern`` entirely (RE2 syntax; Python's ``re`` here)."""
    try:
        regex = re.compile(_as_text(pattern))
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {pattern!r}, error: {e}") from None
    arr = np.asarray(input, dtype=object)
    out = np.array([regex.fullmatch(_as_text(v)) is not None for v in arr.ravel()], dtype=bool)
    return out.reshape(arr.shape)


no_gradient("StringJoin")
no_gradient("StaticRegexFullMatch")
