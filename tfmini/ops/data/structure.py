"""Element structures: nested tuples, dicts and namedtuples of tensors, as ``tf.data`` sees them
(``tensorflow/python/data/util/nest.py``).

Unlike ``tf.nest``, ``tf.data`` treats a Python *list* as one tensor (it is converted with
``convert_to_tensor``), so only tuples, namedtuples and dicts are structure. Dicts flatten in
sorted key order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__: list[str] = []


def is_structure(x: Any) -> bool:
    """True for the containers ``tf.data`` recurses into (tuple, namedtuple, dict)."""
    return isinstance(x, (tuple, dict))


def flatten(x: Any) -> list:
    """The leaves of ``x`` in ``tf.data``'s order."""
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in flatten(x[k])]
    if isinstance(x, tuple):
        return [leaf for item in x for leaf in flatten(item)]
    return [x]


def pack_as(structure: Any, flat: list) -> Any:
    """``flat`` (leaves in :func:`flatten` order) rebuilt in ``structure``'s shape."""
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, built[k]) for k in s) if type(s) is not dict else \
                {k: built[k] for k in s}
        if isinstance(s, tuple):
            items = [build(v) for v in s]
            return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
        return next(it)

    return build(structure)


def map_structure(fn: Callable[[Any], Any], x: Any) -> Any:
    """``x`` with ``fn`` applied to each leaf."""
    return pack_as(x, [fn(leaf) for leaf in flatten(x)])


def same_structure(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` nest the same way (leaves may differ)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True
