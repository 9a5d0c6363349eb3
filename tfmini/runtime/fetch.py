"""Flattening ``Session.run`` fetch structures and rebuilding them from values.

Any nesting of list, tuple, namedtuple, dict (any Mapping) and attrs classes
is accepted; leaves are Outputs, Operations, op wrappers, variables or names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from tfmini.core.graph import Graph, Operation, Output


def resolve_fetch(graph: Graph, fetch: Any) -> Output | Operation:
    """The graph element a fetch leaf stands for."""
    if isinstance(fetch, (Output, Operation)):
        element = fetch
    elif isinstance(fetch, str):
        try:
            element = graph.as_graph_element(fetch)
        except (KeyError, ValueError) as e:
            raise ValueError(
                f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({e})"
            ) from None
    elif hasattr(fetch, "_as_graph_element"):
        element = fetch._as_graph_element()
    elif hasattr(fetch, "as_output") and hasattr(fetch, "op"):
        try:
            element = fetch.as_output()
        except TypeError:
            element = fetch.op
    else:
        raise TypeError(
            f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or Tensor. "
            f"(Can not convert a {type(fetch).__name__} into a Tensor or Operation.)"
        )
    if element.graph is not graph:
        raise ValueError(f"Fetch argument {fetch!r} is not an element of this session's graph.")
    return element


class FetchMapper:
    """Flattens a fetch structure into unique Outputs and target Operations.

    ``build(values)`` puts fetched values (one per unique Output) back into
    the user's structure; Operations come back as None.
    """

    def __init__(self, graph: Graph, fetches: Any):
        self.outputs: list[Output] = []
        self.targets: list[Operation] = []
        self._index: dict[Output, int] = {}
        self._graph = graph
        self.build: Callable[[list], Any] = self._compile(fetches)

    def _leaf(self, fetch: Any) -> Callable[[list], Any]:
        element = resolve_fetch(self._graph, fetch)
        if isinstance(element, Operation):
            if element not in self.targets:
                self.targets.append(element)
            return lambda values: None
        i = self._index.get(element)
        if i is None:
            i = self._index[element] = len(self.outputs)
            self.outputs.append(element)
        return lambda values: values[i]

    def _compile(self, fetch: Any) -> Callable[[list], Any]:
        if fetch is None:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        if hasattr(fetch, "_tm_fetch_components"):
            # Composite values (IndexedSlices) fetch their parts and rebuild themselves.
            components, rebuild = fetch._tm_fetch_components()
            parts = [self._compile(c) for c in components]
            return lambda values: rebuild([p(values) for p in parts])
        if isinstance(fetch, (Output, Operation, str)) or hasattr(fetch, "_as_graph_element") or (
            hasattr(fetch, "as_output") and hasattr(fetch, "op")
        ):
            return self._leaf(fetch)
        # Any list or tuple is a structure, a namedtuple whose field is called "op" included
        # (operands, which have as_output, were taken as leaves above).
        if isinstance(fetch, (list, tuple)):
            parts = [self._compile(f) for f in fetch]
            if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):
                cls = type(fetch)
                return lambda values: cls(*[p(values) for p in parts])
            cls = type(fetch)
            if cls in (list, tuple):
                return lambda values: cls(p(values) for p in parts)
            return lambda values: cls([p(values) for p in parts])
        if isinstance(fetch, Mapping):
            keys = list(fetch.keys())
            parts = [self._compile(fetch[k]) for k in keys]
            cls = type(fetch)

            def build_mapping(values):
                items = [(k, p(values)) for k, p in zip(keys, parts)]
                try:
                    return cls(items)
                except TypeError:
                    return dict(items)

            return build_mapping
        if attrs.has(type(fetch)):
            names = [f.name for f in attrs.fields(type(fetch))]
            parts = [self._compile(getattr(fetch, n)) for n in names]
            return lambda values: attrs.evolve(
                fetch, **{n.lstrip("_"): p(values) for n, p in zip(names, parts)}
            )
        return self._leaf(fetch)
