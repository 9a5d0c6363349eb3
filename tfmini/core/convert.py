"""Turning Python values into graph Outputs (``tm.convert_to_tensor``).

Core knows no op by name, so the ops layer installs the function that turns
a literal (number, list, NumPy array) into a Const, and types such as
Variable register their own conversion with
:func:`register_tensor_conversion_function`, as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.graph import Output

_conversion_funcs: list[tuple[int, type, Callable]] = []
_literal_fn: Callable | None = None


def register_tensor_conversion_function(
    base_type: type | tuple, conversion_func: Callable, priority: int = 100
) -> None:
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False) -> Output``
    for instances of ``base_type`` (TensorFlow's signature). Lower priority runs first.
    The function builds in the ambient scope, which the builder sets to its own."""
    _conversion_funcs.append((priority, base_type, conversion_func))
    _conversion_funcs.sort(key=lambda t: t[0])


def set_literal_conversion(fn: Callable) -> None:
    """Installs the function building a constant from a literal (called by ``tfmini.ops``)."""
    global _literal_fn
    _literal_fn = fn


def is_symbolic(value: Any) -> bool:
    """True for values that already stand for a graph tensor (Outputs, operands, variables)."""
    if isinstance(value, Output) or hasattr(value, "as_output"):
        return True
    return any(isinstance(value, t) for _, t, _ in _conversion_funcs)


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    preferred_dtype: Any = None,
    dtype_hint: Any = None,
) -> Output:
    """Converts ``value`` to an Output of the ambient graph.

    Raises:
        ValueError: ``dtype`` is given and ``value`` is an Output of another dtype
            (TensorFlow's "Tensor conversion requested dtype ..." message).
        TypeError: ``value`` cannot be converted.
    """
    want: DType | None = as_dtype(dtype) if dtype is not None else None
    hint = preferred_dtype if preferred_dtype is not None else dtype_hint
    if isinstance(value, Output):
        out = value
    elif hasattr(value, "as_output") and not isinstance(value, type):
        out = value.as_output()
    else:
        out = None
        for _, base, fn in _conversion_funcs:
            if isinstance(value, base):
                out = fn(value, dtype=want, name=name)
                break
        if out is None:
            if _literal_fn is None:
                raise TypeError(f"Cannot convert {value!r} to a tensor: no ops are loaded")
            target = want if want is not None else (as_dtype(hint) if hint is not None else None)
            try:
                out = _literal_fn(value, target, name)
            except (TypeError, ValueError):
                if want is None and hint is not None:
                    out = _literal_fn(value, None, name)
                else:
                    raise
    if not isinstance(out, Output):
        raise TypeError(f"Conversion of {value!r} did not produce a tensor but {out!r}")
    if want is not None and out.dtype != want:
        raise ValueError(
            f"Tensor conversion requested dtype {want.name} for Tensor with dtype "
            f"{out.dtype.name}: {out!r}"
        )
    return out
