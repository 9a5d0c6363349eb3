"""Build-time constant folding: an op's value computed by its CPU kernel when the graph is built.

An op registers :func:`fold_constant` as its ``value_fn`` so that shape
inference sees through it, as TensorFlow folds constants while inferring shapes.
"""

from __future__ import annotations

import weakref

import numpy as np

from tfmini.core import registry
from tfmini.core.builder import static_value
from tfmini.core.graph import Output
from tfmini.core.opdef import group_flat

_FOLD_LIMIT = 4096  # elements; bigger values are not folded at build time


_fold_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _kernel_args(op, values: list) -> list:
    """Groups the flat input values of ``op`` into one entry per input argument."""
    return group_flat(op.op_def.inputs, op.attrs, values)


def fold_constant(output: Output) -> np.ndarray | None:
    """A ``value_fn``: the op's CPU kernel run on its inputs' build-time values.

    This is TensorFlow's constant folding during shape inference, so that
    ``tf.reshape(x, tf.stack([tf.shape(y)[0], -1]))`` gets a static shape when
    ``y``'s is known. Only small values are folded (at most ``_FOLD_LIMIT`` elements).

    Args:
        output: The Output whose value is wanted.

    Returns:
        A read-only array, or None when some input is not known at build time.
    """
    try:
        return _fold_cache[output]
    except KeyError:
        pass
    op = output.op
    n = output.shape.num_elements()
    if n is not None and n > _FOLD_LIMIT:
        return None
    values = []
    for inp in op.inputs:
        v = static_value(inp)
        if v is None or np.size(v) > _FOLD_LIMIT:
            return None
        values.append(v)
    kernel = registry.behaviour_of(op).kernel_for("CPU")
    if kernel is None or kernel.takes_ctx:
        return None
    if kernel.attr_names is None:
        kwargs = dict(op.attrs)
    else:
        kwargs = {k: op.attrs[k] for k in kernel.attr_names if k in op.attrs}
        if "node" in kernel.attr_names:
            kwargs["node"] = op
    result = kernel.fn(*_kernel_args(op, values), **kwargs)
    # Kernels return a sequence for several output arguments or a list output (even of one).
    if len(op.op_def.outputs) > 1 or any(a.is_list for a in op.op_def.outputs):
        result = result[output.value_index]
    result = np.array(result, dtype=output.dtype.np_dtype)
    if result.size > _FOLD_LIMIT:
        return None
    result.flags.writeable = False
    _fold_cache[output] = result
    return result
