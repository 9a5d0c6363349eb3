"""Graph-level and op-level seeds as ``tf.compat.v1`` derives them
(``tensorflow/python/framework/random_seed.py``).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from tfmini.core.function import root_graph
from tfmini.core.scope import get_default_graph

__all__ = ["get_seed", "set_random_seed"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1

# Seed requests with no op seed under a graph seed, counted per graph (TensorFlow keeps the
# same weak dictionary): only such requests advance it, not the ops a graph holds.
_graph_to_seed_count: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _truncate_seed(seed: int) -> int:
    return int(seed) % _MAXINT32


def set_random_seed(seed: int | None) -> None:
    """Sets the default graph's random seed (``tf.compat.v1.set_random_seed``).

    Random ops built afterwards without an op seed get seeds from it and from a per-graph
    counter of such requests; ops with an op seed pair it with this graph seed. Two graphs
    with the same seeds give the same streams.

    Args:
        seed: An int, or None to clear it.
    """
    get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The ``(seed, seed2)`` pair a random op gets (``tf.compat.v1.get_seed``).

    * graph seed set, op seed given: ``(graph_seed mod (2**31-1), op_seed mod (2**31-1))``;
    * graph seed set, no op seed: the op seed is the graph's count of such requests
      (0, 1, 2, ...);
    * only an op seed: ``(87654321, op_seed mod (2**31-1))``;
    * neither: ``(None, None)``, and the op draws nondeterministic seeds when it runs.

    A result of ``(0, 0)`` becomes ``(0, 2**31-1)``.

    Args:
        op_seed: The op-level seed, or None.
    """
    graph = get_default_graph()
    # A function graph (a loop body, a cond branch) has the seed of the graph it is built in,
    # as TensorFlow's FuncGraph copies its outer graph's seed.
    global_seed = graph.seed if graph.seed is not None else root_graph(graph).seed
    if global_seed is not None:
        if op_seed is None:
            with _lock:
                op_seed = _graph_to_seed_count.get(graph, 0)
                _graph_to_seed_count[graph] = op_seed + 1
        seeds: tuple[Any, Any] = (_truncate_seed(global_seed), _truncate_seed(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate_seed(op_seed))
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds
