"""Clipping functions, as TensorFlow's ``clip_ops``: ``clip_by_value``, ``clip_by_norm``,
``global_norm`` and ``clip_by_global_norm``.

They are compositions of existing ops (Minimum/Maximum, Sum, Select, Sqrt, L2Loss, Pack,
Identity) built the way TensorFlow's Python builds them, in the same name scopes, so the
graphs, the values and the gradients are TensorFlow's. An ``IndexedSlices`` argument (the
gradient of a ``gather``) is clipped on its values and comes back as an ``IndexedSlices``
with the same indices and dense shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import name_scope
from tfmini.ops.array import identity, ones_like, stack
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.math import cast, maximum, minimum, reduce_sum, sqrt, where
from tfmini.ops.nn.nn_ops import l2_loss

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]


def _values_of(t: Any, name: str):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t: Any, values):
    if isinstance(t, IndexedSlices):
        return IndexedSlices(values, t.indices, t.dense_shape)
    return values


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None):
    """``tf.clip_by_value``: ``maximum(minimum(t, clip_value_max), clip_value_min)``.

    Args:
        t: A tensor or an ``IndexedSlices``.
        clip_value_min, clip_value_max: Scalars, or tensors broadcastable to ``t``'s shape
            without changing it.
        name: Optional name scope (default ``"clip_by_value"``); the result's op takes it.

    Returns:
        The clipped tensor, or an ``IndexedSlices`` of clipped values.

    Raises:
        ValueError: the bounds would broadcast ``t`` to a larger shape.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values_of(t, "t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
    return _like(t, t_max)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None):
    """``tf.clip_by_norm``: ``t * clip_norm / max(l2norm(t, axes), clip_norm)``.

    The norm is taken over ``axes`` (all of them by default), with TensorFlow's two-``where``
    guard so that an all-zero ``t`` has a zero (not NaN) gradient.

    Returns:
        The clipped tensor, or an ``IndexedSlices`` of clipped values.
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values_of(t, "t")
        l2sum = reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = where(pred, l2sum, ones_like(l2sum))
        l2norm = where(pred, sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        values_clip = identity(intermediate / maximum(l2norm, clip_norm), name=scope)
    return _like(t, values_clip)


def _check_list(t_list: Any) -> list:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list: Any, name: str | None = None):
    """``tf.global_norm``: ``sqrt(sum(l2norm(t)**2 for t in t_list))``; ``None`` entries are
    skipped and ``IndexedSlices`` count by their values.

    Raises:
        TypeError: ``t_list`` is not a sequence.
    """
    t_list = _check_list(t_list)
    with name_scope(name, "global_norm", t_list):
        values = [_values_of(t, f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        half_squared_norms = [l2_loss(v) for v in values if v is not None]
        half_squared_norm = reduce_sum(stack(half_squared_norms))
        two = convert_to_tensor(2.0, dtype=half_squared_norm.dtype)
        norm = sqrt(half_squared_norm * two, name="global_norm")
    return norm


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None):
    """``tf.clip_by_global_norm``: scales every tensor by
    ``clip_norm / max(global_norm, clip_norm)``.

    Args:
        t_list: Tensors, ``IndexedSlices`` or ``None`` (kept as ``None``).
        clip_norm: The largest global norm let through.
        use_norm: A precomputed global norm (otherwise :func:`global_norm` of ``t_list``).
        name: Optional name scope (default ``"clip_by_global_norm"``).

    Returns:
        ``(list_clipped, global_norm)``. A non-finite global norm makes every clipped value
        NaN, as in TensorFlow.

    Raises:
        TypeError: ``t_list`` is not a sequence.
    """
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        one = convert_to_tensor(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_norm * minimum(1.0 / use_norm, one / clip_norm)
        # A no-op for a finite norm; NaN for inf/-inf/NaN.
        scale = scale_for_finite + (use_norm - use_norm)
        values = [_values_of(t, f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        # The scale is cast to each tensor's dtype (float16 gradients under a float32 norm).
        clipped = [None if v is None else identity(v * cast(scale, v.dtype), name=f"{scope}_{i}")
                   for i, v in enumerate(values)]
        list_clipped = [_like(t, c) if c is not None else None for c, t in zip(clipped, t_list)]
    return list_clipped, use_norm
